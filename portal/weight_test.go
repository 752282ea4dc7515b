package portal_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
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

// keyPages is how many API keys peopleSite issues: more than a company
// has (three or four systems per environment), and enough audit entries
// for a full page of the log.
const keyPages = 45

// peopleSite is a site whose owner manages a busy company: six members,
// keyPages API keys in the three environments, each used from its own
// address, one of them rotated; the log has more than a page of entries.
// It returns the owner's browser and the pages of Claves API, Usuarios
// and Auditoría at their heaviest.
func peopleSite(tb testing.TB) (*Site, *Browser, []struct{ name, path string }) {
	tb.Helper()
	site := MustSite(tb)
	site.MustUser(tb, "ana@caribe.do", sello.RoleOwner)
	var removable *sello.User
	for i, role := range []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper, sello.RoleDeveloper, sello.RoleAccountant} {
		removable = site.MustUser(tb, fmt.Sprintf("persona%d@caribe.do", i+1), role)
	}
	owner := site.NewBrowser(tb)
	owner.MustLogin("ana@caribe.do")
	api := site.NewAPI(tb)
	var keys []string
	for i := range keyPages {
		env := sello.Environments[i%len(sello.Environments)]
		page := owner.Form("/portal/claves", "/portal/claves", url.Values{
			"name": {fmt.Sprintf("sistema de facturación %d", i+1)}, "environment": {string(env)},
			"scopes": {string(sello.ScopeRead), string(sello.ScopeCreate), string(sello.ScopeStatusRead)},
		})
		wantStatus(tb, page, http.StatusOK)
		if env == sello.EnvTest {
			api.Call(plaintextOf(tb, page), fmt.Sprintf("203.0.113.%d", i+1))
		}
		keys = append(keys, site.newestKey(tb, site.Tenant.ID).ID)
	}
	rotated := owner.Form("/portal/claves", "/portal/claves/"+keys[0]+"/rotar", nil)
	wantStatus(tb, rotated, http.StatusOK)
	newKey := site.newestKey(tb, site.Tenant.ID)
	return site, owner, []struct{ name, path string }{
		{"keys", "/portal/claves"},
		{"key-rotation", "/portal/claves/" + keys[0] + "/rotacion?nueva=" + newKey.ID},
		{"key-revoke", "/portal/claves/" + keys[3] + "/revocar"},
		{"users", "/portal/usuarios"},
		{"user-remove", "/portal/usuarios/" + removable.ID + "/quitar"},
		{"audit", "/portal/auditoria"},
		{"audit-verify", "/portal/auditoria/verificar"},
	}
}

// TestPageWeight: each page with the stylesheet and htmx it loads weighs
// under 200 KB as sent to a browser that takes gzip (and is logged, with
// the uncompressed weight, for docs/benchmarks.md): the house's pages, and
// Claves API, Usuarios and Auditoría with a busy company's data (the
// Webhooks pages are TestWebhookPageWeight's).
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
		measurePage(t, b, p.name, p.path)
	}
	_, busy, pages := peopleSite(t)
	for _, p := range pages {
		measurePage(t, busy, p.name, p.path)
	}
}

// measurePage gets the page at path with b and each asset it loads,
// logs its weight and fails the test over maxPageWeight.
func measurePage(t *testing.T, b *Browser, name, path string) {
	t.Helper()
	page := b.Get(path)
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
	t.Logf("%-20s %6d bytes HTML, %7d bytes with assets, %6d sent (assets gzipped)", name, len(page.Body), raw, sent)
	if sent > maxPageWeight {
		t.Errorf("%s weighs %d bytes with its assets, over %d", name, sent, maxPageWeight)
	}
}

// BenchmarkPages measures each page's server time: the handler alone, in
// process, on SQLite (the session's lookup, the layout's reads of DGII's
// state, the page's reads, the render).
func BenchmarkPages(b *testing.B) {
	site := MustSite(b)
	site.MustUser(b, "ana@caribe.do", sello.RoleOwner)
	owner := site.NewBrowser(b)
	owner.MustLogin("ana@caribe.do")
	for _, p := range portalPages {
		benchPage(b, site, owner, p.name, p.path, p.loggedIn)
	}
	busySite, busy, pages := peopleSite(b)
	for _, p := range pages {
		benchPage(b, busySite, busy, p.name, p.path, true)
	}
}

// benchPage measures the handler's time for path, with browser's session
// when loggedIn.
func benchPage(b *testing.B, site *Site, browser *Browser, name, path string, loggedIn bool) {
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: browser.Cookie()}
	h := site.HTTP.Config.Handler
	b.Run(name, func(b *testing.B) {
		for b.Loop() {
			req := httptest.NewRequest("GET", path, nil)
			if loggedIn {
				req.AddCookie(cookie)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("%s: %d", path, rec.Code)
			}
		}
	})
}
