package i18n

// The messages of issuing and rotating API keys (apikey_create.go).

func init() {
	registerErrors(map[string]string{
		"A key needs at least one scope: %s.":                                                 "Una clave necesita al menos un permiso: %s.",
		"A key's name must be at most %d characters (got %d).":                                "El nombre de una clave debe tener como máximo %d caracteres (tiene %d).",
		"Key %s is revoked or expired: there is nothing to rotate; create a new key instead.": "La clave %s está revocada o vencida: no hay nada que rotar; cree una clave nueva.",
	})
}
