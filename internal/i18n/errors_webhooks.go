package i18n

// The errors of managing webhooks that the CLI and the portal share
// (webhook_manage.go), keyed by their English.
func init() {
	registerErrors(map[string]string{
		"Webhook delivery %s ended without an attempt: %s":                                                        "La entrega de webhook %s terminó sin ningún intento: %s",
		"Webhook delivery %s is held while its endpoint is paused: it is attempted once the endpoint is resumed.": "La entrega de webhook %s queda retenida mientras su endpoint está pausado: se intenta cuando el endpoint se reanude.",
	})
}
