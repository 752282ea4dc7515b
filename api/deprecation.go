package api

import (
	"net/http"
	"strconv"
	"time"
)

// deprecation is the retirement of a route (docs/api.md, "Versioning"):
// every answer of the route, errors included, carries RFC 9745's
// Deprecation header from the day it is deprecated, RFC 8594's Sunset
// header with the day it stops answering, and a Link to what replaces it.
type deprecation struct {
	// At is when the route was deprecated.
	At time.Time
	// Sunset is when the route stops answering: at least 6 months after
	// At for eCF's integrators (docs/api.md).
	Sunset time.Time
	// Link is the documentation of the change: Link: <Link>;
	// rel="deprecation". Optional.
	Link string
}

// deprecatedRoutes are the API's deprecated routes, by their pattern in
// routes.go ("GET /{env}/documentos-ecf"). Each one is also marked
// "deprecated": true in openapi.json (TestDeprecatedRoutesInOpenAPI), and
// announced in CHANGELOG.md. None is deprecated today.
var deprecatedRoutes = map[string]deprecation{}

// header sets the deprecation's headers on h.
func (d deprecation) header(h http.Header) {
	h.Set("Deprecation", "@"+strconv.FormatInt(d.At.Unix(), 10))
	h.Set("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
	if d.Link != "" {
		link := "<" + d.Link + `>; rel="deprecation"` // RFC 8288's link-value
		h.Add("Link", link)
	}
}

// withDeprecation sets the deprecation headers on the answers of the
// routes of mux that table names, then serves next. With none, it is next
// itself: no request is matched twice.
func withDeprecation(next http.Handler, mux *http.ServeMux, table map[string]deprecation) http.Handler {
	if len(table) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern != "" {
			if d, ok := table[pattern]; ok {
				d.header(w.Header())
			}
		}
		next.ServeHTTP(w, r)
	})
}
