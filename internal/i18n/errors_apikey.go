package i18n

// The messages of API keys' rotation (apikey_use.go).

func init() {
	registerErrors(map[string]string{
		"A key cannot replace itself: choose the new key of the rotation.":                 "Una clave no puede reemplazarse a sí misma: elija la clave nueva de la rotación.",
		"Key %s is of %s and cannot replace key %s of %s: a key works in one environment.": "La clave %s es de %s y no puede reemplazar la clave %s de %s: una clave funciona en un solo ambiente.",
		"The new key %s is revoked: create another.":                                       "La clave nueva %s está revocada: cree otra.",
		"The new key %s expired: create another.":                                          "La clave nueva %s venció: cree otra.",
	})
}
