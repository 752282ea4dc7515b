package i18n

// The API's answers about the portal (spec §4.5), keyed by their English.
func init() {
	Register(map[string]Entry{
		"Missing X-API-KEY header: the API takes an API key, sent as X-API-KEY: <key>, never the portal's session cookie. Create a key in the portal (Claves API) or with sello keys create.": {
			EN: "Missing X-API-KEY header: the API takes an API key, sent as X-API-KEY: <key>, never the portal's session cookie. Create a key in the portal (Claves API) or with sello keys create.",
			ES: "Falta la cabecera X-API-KEY: la API recibe una clave API, enviada como X-API-KEY: <clave>, nunca la cookie de sesión del portal. Cree una clave en el portal (Claves API) o con sello keys create.",
		},
	})
}
