package portal_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sello-do/sello"
)

// fullSite is a company with what the API keys', users' and audit log's
// pages show at their fullest in ordinary use: 12 keys (4 per
// environment, used), 6 members, and 200 audit entries with a before and
// an after (the log's page shows 50).
func fullSite(tb testing.TB) (site *Site, owner *Browser, pages []struct{ name, path string }) {
	tb.Helper()
	site = MustSite(tb)
	site.MustUser(tb, "ana@caribe.do", sello.RoleOwner)
	for i, role := range []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper, sello.RoleDeveloper, sello.RoleAccountant} {
		site.MustUser(tb, fmt.Sprintf("persona%d@caribe.do", i), role)
	}
	var keys []*sello.APIKey
	for _, env := range sello.Environments {
		for i := range 4 {
			k, _ := sello.NewAPIKey(site.Tenant.ID, env, fmt.Sprintf("Integración %d", i), []sello.Scope{sello.ScopeCreate, sello.ScopeRead, sello.ScopeStatusRead}, nil)
			if err := site.Store.CreateAPIKey(tb.Context(), k); err != nil {
				tb.Fatal(err)
			}
			if _, err := site.Store.RecordAPIKeyUse(tb.Context(), site.Tenant.ID, k.ID, site.Clock.Now(), "192.0.2.44", 0); err != nil {
				tb.Fatal(err)
			}
			keys = append(keys, k)
		}
	}
	for i := range 200 {
		if err := site.Store.AppendAudit(tb.Context(), &sello.AuditEntry{TenantID: site.Tenant.ID, ActorID: "u", ActorEmail: "persona2@caribe.do",
			Action: "api_key.revoked", Target: keys[i%len(keys)].ID, Address: "192.0.2.44",
			Before: []byte(`{"environment":"TesteCF","expiresAt":null,"id":"` + keys[i%len(keys)].ID + `","last4":"AbCd","name":"Integración 1","revokedAt":null,"scopes":["ecf:create","ecf:read"]}`),
			After:  []byte(`{"environment":"TesteCF","expiresAt":null,"id":"` + keys[i%len(keys)].ID + `","last4":"AbCd","name":"Integración 1","revokedAt":"2026-11-27T14:05:00Z","scopes":["ecf:create","ecf:read"]}`),
		}); err != nil {
			tb.Fatal(err)
		}
	}
	owner = site.NewBrowser(tb)
	owner.MustLogin("ana@caribe.do")
	return site, owner, []struct{ name, path string }{
		{"keys", "/portal/claves"},
		{"key-rotation", "/portal/claves/" + keys[0].ID + "/rotacion?nueva=" + keys[1].ID},
		{"key-revoke", "/portal/claves/" + keys[0].ID + "/revocar"},
		{"users", "/portal/usuarios"},
		{"audit", "/portal/auditoria"},
		{"audit-verify", "/portal/auditoria/verificar"},
	}
}

// TestKeysPagesWeight: the API keys', users' and audit log's pages, full,
// with what they load, weigh under 200 KB as sent (logged for
// docs/benchmarks.md); the page that shows a new key loads copy.js too.
func TestKeysPagesWeight(t *testing.T) {
	_, owner, pages := fullSite(t)
	weigh := func(name string, page *Page) {
		t.Helper()
		wantStatus(t, page, http.StatusOK)
		raw, sent := len(page.Body), len(page.Body)
		for _, m := range assetRef.FindAllStringSubmatch(page.Body, -1) {
			plain := owner.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"identity"}})
			gz := owner.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"gzip"}})
			raw += len(plain.Body)
			sent += len(gz.Body)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(page.Body))
		zw.Close()
		t.Logf("%-14s %6d bytes HTML (%5d gzipped), %7d bytes with assets, %6d sent (assets gzipped)", name, len(page.Body), gz.Len(), raw, sent)
		if sent > maxPageWeight {
			t.Errorf("%s weighs %d bytes with its assets, over %d", name, sent, maxPageWeight)
		}
	}
	for _, p := range pages {
		weigh(p.name, owner.Get(p.path))
	}
	list := owner.Get("/portal/claves")
	weigh("key-created", owner.Post("/portal/claves", map[string][]string{"csrf": {list.CSRF(t)}, "environment": {"TesteCF"}, "scopes": {"ecf:read"}}))
}

// BenchmarkKeysPages measures the server time of the API keys', users'
// and audit log's pages, full: the handler alone, in process, on SQLite.
func BenchmarkKeysPages(b *testing.B) {
	site, owner, pages := fullSite(b)
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: owner.Cookie()}
	h := site.HTTP.Config.Handler
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", p.path, nil)
				req.AddCookie(cookie)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.path, rec.Code)
				}
			}
		})
	}
}
