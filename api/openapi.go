package api

import _ "embed"

//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the OpenAPI 3.1 document of Sello's public API, as
// served at GET /openapi.json. The caller must not modify the returned slice.
func OpenAPIDocument() []byte { return openAPIDocument }
