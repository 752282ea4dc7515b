package i18n

// The CLI's own messages (cmd/sello), written to the operator's terminal
// in English today; catalogued so that every message Sello writes has its
// Spanish.

func init() {
	registerErrors(map[string]string{
		"No tenant has RNC %s (create it with sello tenants create).": "Ninguna empresa tiene el RNC %s (créela con sello tenants create).",
		"Expiry %s is in the past.":                                   "El vencimiento %s ya pasó.",
		"%s If it is the right certificate for %s, add --force.":      "%s Si es el certificado correcto para %s, agregue --force.",
		"The endpoint is paused: the test event is held until sello webhooks resume, so there is no attempt to wait for.":                      "El endpoint está pausado: el evento de prueba queda retenido hasta sello webhooks resume, así que no hay intento que esperar.",
		"--allow-loopback does not apply to eCF: production webhooks go only to public https:// URLs.":                                         "--allow-loopback no aplica a eCF: los webhooks de producción solo van a URL públicas https://.",
		"%s For a receiver on this machine (tests, demos) add --allow-loopback, and run sello serve with --allow-loopback-webhooks or --demo.": "%s Para un receptor en esta máquina (pruebas, demos) agregue --allow-loopback, y ejecute sello serve con --allow-loopback-webhooks o --demo.",
		"Unknown event type %q: use %s.":                                 "Tipo de evento desconocido %q: use %s.",
		"No webhook endpoint has id %s (see sello webhooks list).":       "Ningún endpoint de webhook tiene el id %s (vea sello webhooks list).",
		"No webhook delivery has id %s (see sello webhooks deliveries).": "Ninguna entrega de webhook tiene el id %s (vea sello webhooks deliveries).",
	})
}
