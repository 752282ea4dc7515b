//go:build deps

// This file only keeps go.mod's pins for modules the next pieces of work
// import (River for jobs, goxmldsig/etree/pkcs12 for signatures, maroto for
// the printed representation), so that parallel work never edits go.mod. It
// goes away once real code imports them all.
package sello

import (
	_ "github.com/beevik/etree"
	_ "github.com/johnfercher/maroto/v2"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "github.com/riverqueue/river/riverdriver/riversqlite"
	_ "github.com/riverqueue/river/rivermigrate"
	_ "github.com/russellhaering/goxmldsig"
	_ "software.sslmate.com/src/go-pkcs12"
)
