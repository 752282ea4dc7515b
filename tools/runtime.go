// Package tools pins the programs Sello's tests run, apart from the
// server's own module: go.mod's tool directive pins oapi-codegen, which
// TestOpenAPIGoClient (../api) runs on /openapi.json, and the import below
// pins the runtime package the generated client needs.
package tools

import _ "github.com/oapi-codegen/runtime" // used by the client oapi-codegen generates
