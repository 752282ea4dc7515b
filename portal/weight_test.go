package portal_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/sello-do/sello"
)

// maxPageWeight bounds a page with its assets, as a browser first loads
// it (issue: no page over 200 KB).
const maxPageWeight = 200 << 10

// portalPages are the pages of this part, as a logged-in owner sees them
// (the login and reset pages are seen logged out).
var portalPages = []struct {
	name, path string
	loggedIn   bool
}{
	{"login", "/portal/entrar", false},
	{"reset", "/portal/recuperar", false},
	{"home", "/", true},
	{"home-CerteCF", "/portal/CerteCF", true},
	{"account", "/portal/cuenta", true},
	{"second-factor-enrol", "/portal/cuenta/segundo-factor", true},
}

var assetRef = regexp.MustCompile(`(?:href|src)="(/portal/static/[^"]+)"`)

// TestPageWeight: each page with the stylesheet and htmx it loads weighs
// under 200 KB as sent to a browser that takes gzip (and is logged, with
// the uncompressed weight, for docs/benchmarks.md).
func TestPageWeight(t *testing.T) {
	site := MustSite(t)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	guest, owner := site.NewBrowser(t), site.NewBrowser(t)
	owner.MustLogin("ana@caribe.do")
	for _, p := range portalPages {
		b := guest
		if p.loggedIn {
			b = owner
		}
		page := b.Get(p.path)
		wantStatus(t, page, http.StatusOK)
		raw, sent := len(page.Body), len(page.Body)
		for _, m := range assetRef.FindAllStringSubmatch(page.Body, -1) {
			plain := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"identity"}})
			wantStatus(t, plain, http.StatusOK)
			// The transport asked for gzip itself would decompress; ask
			// explicitly and count the bytes on the wire.
			gz := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"gzip"}})
			if gz.Header.Get("Content-Encoding") != "gzip" {
				t.Errorf("%s: not gzipped", m[1])
			}
			raw += len(plain.Body)
			sent += len(gz.Body)
		}
		t.Logf("%-20s %6d bytes HTML, %7d bytes with assets, %6d sent (assets gzipped)", p.name, len(page.Body), raw, sent)
		if sent > maxPageWeight {
			t.Errorf("%s weighs %d bytes with its assets, over %d", p.name, sent, maxPageWeight)
		}
	}
}

// BenchmarkPages measures each page's server time: the handler alone, in
// process, on SQLite (the session's lookup, the layout's reads of DGII's
// state, the render).
func BenchmarkPages(b *testing.B) {
	site := MustSite(b)
	site.MustUser(b, "ana@caribe.do", sello.RoleOwner)
	owner := site.NewBrowser(b)
	owner.MustLogin("ana@caribe.do")
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: owner.Cookie()}
	h := site.HTTP.Config.Handler
	for _, p := range portalPages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", p.path, nil)
				if p.loggedIn {
					req.AddCookie(cookie)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.path, rec.Code)
				}
			}
		})
	}
}
