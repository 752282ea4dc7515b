package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDeprecation: every answer of a deprecated route, an error included,
// carries Deprecation (RFC 9745, @unix seconds), Sunset (RFC 8594, an
// HTTP-date) and the Link to the change; other routes carry none.
func TestDeprecation(t *testing.T) {
	at := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	sunset := time.Date(2027, 1, 1, 0, 0, 0, 0, time.FixedZone("GMT-4", -4*3600))
	s := &Server{deprecations: map[string]deprecation{
		"GET /{env}/documentos-ecf": {At: at, Sunset: sunset, Link: "https://sello.example/docs/api#changes"},
		"GET /healthz":              {At: at, Sunset: sunset},
	}}
	h := s.Handler()
	for _, tc := range []struct {
		name, method, path string
		status             int
		deprecated         bool
		link               string
	}{
		{"DeprecatedError", "GET", "/TesteCF/documentos-ecf", http.StatusUnauthorized, true, `<https://sello.example/docs/api#changes>; rel="deprecation"`},
		{"DeprecatedOK", "GET", "/healthz", http.StatusOK, true, ""},
		{"SamePathOtherMethod", "POST", "/TesteCF/documentos-ecf", http.StatusUnauthorized, false, ""},
		{"Other", "GET", "/TesteCF/secuencias", http.StatusUnauthorized, false, ""},
		{"Unmatched", "GET", "/no-such-path", http.StatusNotFound, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.status {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, w.Code, w.Body, tc.status)
			}
			dep, sun, link := w.Header().Get("Deprecation"), w.Header().Get("Sunset"), w.Header().Get("Link")
			if !tc.deprecated {
				if dep != "" || sun != "" || link != "" {
					t.Fatalf("Deprecation %q, Sunset %q, Link %q on a route not deprecated", dep, sun, link)
				}
				return
			}
			if want := "@1782864000"; dep != want {
				t.Errorf("Deprecation %q, want %q", dep, want)
			}
			if want := "Fri, 01 Jan 2027 04:00:00 GMT"; sun != want {
				t.Errorf("Sunset %q, want %q", sun, want)
			}
			if link != tc.link {
				t.Errorf("Link %q, want %q", link, tc.link)
			}
		})
	}
}

// TestDeprecatedRoutesInOpenAPI: the routes deprecatedRoutes names are the
// operations openapi.json marks deprecated, no more and no fewer.
func TestDeprecatedRoutesInOpenAPI(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	var marked, operations []string
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op struct {
				Deprecated bool `json:"deprecated"`
			}
			if json.Unmarshal(raw, &op) != nil { // parameters, summary …
				continue
			}
			operations = append(operations, strings.ToUpper(method)+" "+path)
			if op.Deprecated {
				marked = append(marked, strings.ToUpper(method)+" "+path)
			}
		}
	}
	if len(operations) < 20 {
		t.Fatalf("found %d operations in openapi.json: %v", len(operations), operations)
	}
	var table []string
	for pattern := range deprecatedRoutes {
		table = append(table, pattern)
	}
	slices.Sort(marked)
	slices.Sort(table)
	if !slices.Equal(marked, table) {
		t.Fatalf("openapi.json marks deprecated %q; deprecatedRoutes names %q", marked, table)
	}
}
