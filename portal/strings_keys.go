package portal

import "github.com/sello-do/sello/internal/i18n"

// registerSpanish registers English texts, each its own key, with their
// Spanish: the catalogue entries of the API keys', users' and audit log's
// pages.
func registerSpanish(es map[string]string) {
	m := make(map[string]i18n.Entry, len(es))
	for en, s := range es {
		m[en] = i18n.Entry{EN: en, ES: s}
	}
	i18n.Register(m)
}

// The API keys' pages (keys.go, keys.templ).
func init() {
	// keyStateKeys: a key is feminine in Spanish (la clave), so its states
	// have keys of their own.
	i18n.Register(map[string]i18n.Entry{
		"a key's state: active":  {EN: "active", ES: "activa"},
		"a key's state: revoked": {EN: "revoked", ES: "revocada"},
		"a key's state: expired": {EN: "expired", ES: "vencida"},
	})
	registerSpanish(map[string]string{
		"API keys":                          "Claves API",
		"New API key":                       "Clave API nueva",
		"Key rotation":                      "Rotación de clave",
		"Revoke the key":                    "Revocar la clave",
		"This company has no such API key.": "Esta empresa no tiene esa clave API.",
		"Key without a name":                "Clave sin nombre",
		"A key lets one of your systems call Sello's API in one environment. Give each system its own key, and rotate a key rather than share it.": "Una clave permite que uno de sus sistemas llame a la API de Sello en un ambiente. Dé a cada sistema su propia clave, y rote una clave en vez de compartirla.",
		"Create a key": "Crear una clave",
		"Name":         "Nombre",
		"The system that will use it, to tell the keys apart (for example: billing, online store).": "El sistema que la usará, para distinguir las claves (por ejemplo: facturación, tienda en línea).",
		"Environment":                  "Ambiente",
		"Scopes: what the key may do":  "Permisos: lo que la clave puede hacer",
		"Last day it works (optional)": "Último día en que funciona (opcional)",
		"Leave it empty for a key that does not expire. The key works until the end of that day, Dominican time.": "Déjelo vacío para una clave que no vence. La clave funciona hasta el final de ese día, hora dominicana.",
		"Create the key":              "Crear la clave",
		"Keys of %s":                  "Claves de %s",
		"No key in this environment.": "Ninguna clave en este ambiente.",
		"Rotate":                      "Rotar",
		"Review a rotation":           "Revisar una rotación",
		"Revoke":                      "Revocar",
		"Scopes":                      "Permisos",
		"Created":                     "Creada",
		"Expires":                     "Vence",
		"Never":                       "Nunca",
		"Revoked":                     "Revocada",
		"First used":                  "Primer uso",
		"Not yet":                     "Todavía no",
		"Last used":                   "Último uso",
		"%s, from %s":                 "%s, desde %s",
		"Copy the key now: it is shown only this once. Sello keeps only its hash and cannot show it again.": "Copie la clave ahora: se muestra solo esta vez. Sello guarda solo su hash y no puede volver a mostrarla.",
		"Copied.": "Copiada.",
		"Could not copy: the key is selected, copy it by hand.": "No se pudo copiar: la clave está seleccionada, cópiela a mano.",
		"Copy the key": "Copiar la clave",
		"Keep it in a secret manager, never in source code or a log. Your system sends it in the X-API-KEY header.": "Guárdela en un gestor de secretos, nunca en el código fuente ni en un log. Su sistema la envía en la cabecera X-API-KEY.",
		"Back to the API keys": "Volver a las claves API",
		"To rotate a key: create the new key, put it in your systems in place of the old one, check here that the new key is in use and the old one no longer is, then revoke the old key.": "Para rotar una clave: cree la clave nueva, póngala en sus sistemas en lugar de la anterior, compruebe aquí que la nueva está en uso y la anterior ya no, y luego revoque la anterior.",
		"The new key":        "La clave nueva",
		"The key to replace": "La clave a reemplazar",
		"If you created the new key already, choose it:": "Si ya creó la clave nueva, elíjala:",
		"created %s": "creada el %s",
		"Or create it now, with the settings of the key to replace (environment, name, scopes, expiry).": "O créela ahora, con la configuración de la clave a reemplazar (ambiente, nombre, permisos, vencimiento).",
		"Create the new key": "Crear la clave nueva",
		"There is no other active key in this environment.": "No hay otra clave activa en este ambiente.",
		"Where the rotation stands":                         "Cómo va la rotación",
		"Old key":                                           "Clave anterior",
		"From":                                              "Desde",
		"State":                                             "Estado",
		"The old key was used after the new one was first used: a system has not switched yet.": "La clave anterior se usó después del primer uso de la nueva: algún sistema todavía no ha cambiado.",
		"New key": "Clave nueva",
		"Systems that still send the old key will be refused once it is revoked.": "Los sistemas que todavía envían la clave anterior serán rechazados en cuanto se revoque.",
		"Revoke the old key":           "Revocar la clave anterior",
		"This key is revoked already.": "Esta clave ya está revocada.",
		"A revoked key stops working at once and for good: the API refuses every request that sends it. This cannot be undone.": "Una clave revocada deja de funcionar de inmediato y para siempre: la API rechaza toda solicitud que la envíe. No se puede deshacer.",
		"This key was used in the last 24 hours: a system still sends it.":                                                      "Esta clave se usó en las últimas 24 horas: algún sistema todavía la envía.",
		"Cancel": "Cancelar",
		"The key is revoked: the API refuses it from now on.": "La clave está revocada: la API la rechaza a partir de ahora.",

		// scopeKeys (spec §5).
		"Check documents without issuing them (pre-flight, no fiscal effect)": "Validar comprobantes sin emitirlos (prevalidación, sin efecto fiscal)",
		"Issue e-CF documents":                       "Emitir comprobantes e-CF",
		"Read documents and their files":             "Consultar comprobantes y sus archivos",
		"Ask for the status of documents in batches": "Consultar el estado de comprobantes por lotes",
		"Administrative operations: sequences, voids, certification, commercial approvals": "Operaciones administrativas: secuencias, anulaciones, certificación, aprobaciones comerciales",

		// rotationStateKeys.
		"The new key has not been used yet. Put it in your systems in place of the old one; this page shows when it is first used.":               "La clave nueva todavía no se ha usado. Póngala en sus sistemas en lugar de la anterior; esta página muestra cuándo se usa por primera vez.",
		"The new key is in use, but some system still sends the old one: update it before revoking the old key.":                                  "La clave nueva está en uso, pero algún sistema todavía envía la anterior: actualícelo antes de revocar la anterior.",
		"The new key is in use and the old one has gone quiet. If no system that runs rarely (a monthly job) still holds it, revoke the old key.": "La clave nueva está en uso y la anterior dejó de usarse. Si ningún sistema que corre de vez en cuando (un proceso mensual) todavía la tiene, revoque la anterior.",
		"The old key is revoked or expired: the rotation is done.":                                                                                "La clave anterior está revocada o vencida: la rotación terminó.",
	})
}
