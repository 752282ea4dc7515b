package portal

// The audit log's page (audit.go, audit.templ).
func init() {
	registerSpanish(map[string]string{
		"Audit log": "Auditoría",
		"This page of the audit log does not exist: go back to the newest entries.": "Esa página de la auditoría no existe: vuelva a las entradas más recientes.",
		"the operator (command line)": "el operador (línea de comandos)",
		"Every change made in the company, by whom, when and from which address. Entries cannot be edited: each carries the hash of the one before it, so that a changed or removed entry shows.": "Cada cambio hecho en la empresa, quién lo hizo, cuándo y desde qué dirección. Las entradas no se pueden editar: cada una lleva el hash de la anterior, de modo que una entrada cambiada o borrada se nota.",
		"Filter":                 "Filtrar",
		"Who":                    "Quién",
		"Everyone":               "Todos",
		"What":                   "Qué",
		"Every change":           "Todos los cambios",
		"Since":                  "Desde",
		"Show":                   "Mostrar",
		"Entries":                "Entradas",
		"No entry matches.":      "Ninguna entrada coincide.",
		"No.":                    "N.º",
		"When":                   "Cuándo",
		"On what":                "Sobre qué",
		"Address":                "Dirección",
		"Before and after":       "Antes y después",
		"See":                    "Ver",
		"Before":                 "Antes",
		"After":                  "Después",
		"Pages of the audit log": "Páginas de la auditoría",
		"Newest entries":         "Entradas más recientes",
		"Older entries":          "Entradas anteriores",
		"Verify the chain":       "Verificar la cadena",
		"The chain is broken at entry %d: that entry, or one before it, was changed or removed after it was written. Tell your Sello operator.": "La cadena está rota en la entrada %d: esa entrada, o una anterior, se cambió o se borró después de escribirse. Avise a su operador de Sello.",
		"The log has no entries yet.":                                                                            "La auditoría todavía no tiene entradas.",
		"The chain is whole: %d entries, each with the hash of the one before.":                                  "La cadena está íntegra: %d entradas, cada una con el hash de la anterior.",
		"Its last entry is number %d, with hash":                                                                 "Su última entrada es la número %d, con el hash",
		"Note it down somewhere else: a later check that finds it tells that no entry was removed from the end.": "Anótelo en otro lugar: una verificación posterior que lo encuentre indica que no se borró ninguna entrada del final.",
		"Checks every entry of the log against the hash of the one before it.":                                   "Comprueba cada entrada de la auditoría contra el hash de la anterior.",

		// auditActions.
		"Webhooks":         "Webhooks",
		"Company settings": "Configuración de la empresa",

		// auditActionKeys.
		"API key created":                         "Clave API creada",
		"API key rotated (a new key replaces it)": "Clave API rotada (una clave nueva la reemplaza)",
		"API key revoked":                         "Clave API revocada",
		"User invited":                            "Usuario invitado",
		"User joined":                             "Usuario se unió",
		"Role changed":                            "Rol cambiado",
		"User removed":                            "Usuario quitado",
		"Password changed":                        "Contraseña cambiada",
		"Password reset":                          "Contraseña restablecida",
		"Second factor turned on":                 "Segundo factor activado",
		"Second factor turned off":                "Segundo factor desactivado",
		"Signed out on every device":              "Sesión cerrada en todos los dispositivos",
		"Second factor for everyone changed":      "Cambio del segundo factor para todos",
	})
}
