package portal_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/internal/i18n"
)

// The tests of the API keys' page. Each key the page issues is used
// against the real API (api.Server on the site's store and clock), which
// records its use as it does in service.

// API is the API served on the site's store, with the site's clock.
type API struct {
	tb      testing.TB
	handler http.Handler
}

// NewAPI returns the API on the site's store.
func (s *Site) NewAPI(tb testing.TB) *API {
	return &API{tb: tb, handler: (&api.Server{Store: s.Store, Now: s.Clock.Now}).Handler()}
}

// Call sends GET /{env}/documentos-ecf with key from the client address
// addr and returns the status.
func (a *API) Call(key, addr string) int {
	a.tb.Helper()
	req := httptest.NewRequest("GET", "/TesteCF/documentos-ecf?limit=1", nil)
	req.RemoteAddr = addr + ":40000"
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	a.handler.ServeHTTP(rec, req)
	return rec.Code
}

var newKeyRE = regexp.MustCompile(`id="new-key"[^>]*>(sk_[a-z]+_[0-9A-Za-z]{32})<`)

// plaintextOf is the key shown once on a page.
func plaintextOf(tb testing.TB, p *Page) string {
	tb.Helper()
	m := newKeyRE.FindStringSubmatch(p.Body)
	if m == nil {
		tb.Fatalf("no key on the page: %s", p.Body)
	}
	return m[1]
}

// newestKey is the tenant's newest key.
func (s *Site) newestKey(tb testing.TB, tenantID string) *sello.APIKey {
	tb.Helper()
	keys, err := s.Store.FindAPIKeys(context.Background(), tenantID)
	if err != nil || len(keys) == 0 {
		tb.Fatalf("keys: %v, %v", keys, err)
	}
	return keys[0]
}

// findKey is the tenant's key id as stored.
func (s *Site) findKey(tb testing.TB, id string) *sello.APIKey {
	tb.Helper()
	k, err := s.Store.FindAPIKey(context.Background(), s.Tenant.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// wantAudit fails unless the tenant's log has, newest first, entries of
// actions by actor ("" for anyone) from the test's address, and its chain
// verifies.
func (s *Site) wantAudit(tb testing.TB, tenantID, prefix, actor string, actions ...string) []*sello.AuditEntry {
	tb.Helper()
	ctx := context.Background()
	entries, err := s.Store.FindAudit(ctx, tenantID, sello.AuditFilter{Action: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Action)
		if actor != "" && e.ActorEmail != actor || e.Address != "127.0.0.1" {
			tb.Errorf("entry %d %s by %q from %q, want %s from 127.0.0.1", e.Seq, e.Action, e.ActorEmail, e.Address, actor)
		}
	}
	if strings.Join(got, " ") != strings.Join(actions, " ") {
		tb.Errorf("audit %s…: %v, want %v", prefix, got, actions)
	}
	chain, err := s.Store.AuditChain(ctx, tenantID)
	if err != nil {
		tb.Fatal(err)
	}
	if err := sello.VerifyAuditChain(chain); err != nil {
		tb.Errorf("the audit chain does not verify: %v", err)
	}
	return entries
}

// TestKeys: a developer issues a key on the page and sees it once; the
// key works against the API, and the list then shows its first and last
// use and address; the plaintext appears nowhere after the answer that
// showed it (not in the list, the audit log or the log). A key is revoked
// after a confirmation, and the API refuses it from then on.
func TestKeys(t *testing.T) { testKeys(t, MustSite(t)) }

func testKeys(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("dev@caribe.do")
	a := site.NewAPI(t)

	list := b.Get("/portal/claves")
	wantStatus(t, list, http.StatusOK)
	wantText(t, list, "Claves API", "Crear una clave", "Ninguna clave en este ambiente.")
	for _, id := range []string{`id="key-create"`, `id="key-name"`, `id="key-environment"`, `id="key-scope-ecf-create"`, `id="key-expires"`, `id="key-create-submit"`} {
		if !strings.Contains(list.Body, id) {
			t.Errorf("the list has no %s", id)
		}
	}

	// Refused: no scope, an expiry in the past, an unknown environment.
	csrf := list.CSRF(t)
	p := b.Post("/portal/claves", url.Values{"csrf": {csrf}, "name": {"Facturación"}, "environment": {"TesteCF"}})
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "Una clave necesita al menos un permiso", `value="Facturación"`)
	p = b.Post("/portal/claves", url.Values{"csrf": {csrf}, "environment": {"TesteCF"}, "scopes": {"ecf:create"}, "expires": {"2020-01-01"}})
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "El vencimiento 2020-01-01 ya pasó.")
	wantStatus(t, b.Post("/portal/claves", url.Values{"csrf": {csrf}, "environment": {"Prod"}, "scopes": {"ecf:create"}}), http.StatusBadRequest)
	if keys, _ := site.Store.FindAPIKeys(t.Context(), site.Tenant.ID); len(keys) != 0 {
		t.Fatalf("refused forms stored %d keys", len(keys))
	}

	// Issued: the plaintext once, with its copy button (hidden until
	// copy.js shows it) and the script.
	expires := sello.TodayInDR(site.Clock.Now().AddDate(0, 1, 0)).String()
	p = b.Post("/portal/claves", url.Values{"csrf": {csrf}, "name": {"Facturación"}, "environment": {"TesteCF"},
		"scopes": {"ecf:create", "ecf:read"}, "expires": {expires}})
	wantStatus(t, p, http.StatusOK)
	plaintext := plaintextOf(t, p)
	if !strings.HasPrefix(plaintext, "sk_testecf_") {
		t.Errorf("key %s is not a TesteCF key", plaintext)
	}
	wantText(t, p, "Copie la clave ahora: se muestra solo esta vez.", "ecf:create,ecf:read")
	if !regexp.MustCompile(`<button[^>]*id="copy-key"[^>]*data-copy="new-key"[^>]*hidden`).MatchString(p.Body) ||
		!strings.Contains(p.Body, `src="/portal/static/copy.js?v=`) {
		t.Errorf("no copy button or no copy.js: %s", p.Body)
	}
	if cc := p.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the page with the key has Cache-Control %q, want no-store", cc)
	}
	k := site.newestKey(t, site.Tenant.ID)
	if k.Name != "Facturación" || k.Environment != sello.EnvTest || sello.JoinScopes(k.Scopes) != "ecf:create,ecf:read" ||
		k.ExpiresAt == nil || !k.ExpiresAt.Equal(sello.APIKeyExpiry(mustDate(t, expires))) {
		t.Errorf("stored key %+v", k)
	}
	if !bytes.Equal(k.Hash, sello.HashAPIKey(plaintext)) {
		t.Error("the stored hash is not the shown key's")
	}

	// The key works against the API; the list shows its use.
	list = b.Get("/portal/claves")
	wantText(t, list, "Primer uso</dt><dd>Todavía no")
	if code := a.Call(plaintext, "192.0.2.7"); code != http.StatusOK {
		t.Fatalf("the new key against the API: %d", code)
	}
	list = b.Get("/portal/claves")
	used := i18n.FormatTime(i18n.ES, site.Clock.Now())
	wantText(t, list, "Primer uso</dt><dd>"+used+"</dd>", "Último uso</dt><dd>"+used+", desde 192.0.2.7</dd>")

	// The plaintext is nowhere after its answer.
	for name, body := range map[string]string{"the list": list.Body, "the rotation page": b.Get("/portal/claves/" + k.ID + "/rotacion").Body,
		"the revocation page": b.Get("/portal/claves/" + k.ID + "/revocar").Body, "the log": site.Logs.String()} {
		if strings.Contains(body, plaintext) || strings.Contains(body, plaintext[len(plaintext)-12:]) {
			t.Errorf("%s shows the key's plaintext", name)
		}
	}
	for _, e := range site.wantAudit(t, site.Tenant.ID, "api_key.", "dev@caribe.do", "api_key.created") {
		if bytes.Contains(e.After, []byte(plaintext)) || bytes.Contains(e.After, []byte(plaintext[len(plaintext)-12:])) || e.Target != k.ID {
			t.Errorf("audit entry %s: target %s, after %s", e.Action, e.Target, e.After)
		}
	}

	// Revoking asks first: a post without confirm goes to the question,
	// which says the key was used in the last 24 hours.
	list = b.Get("/portal/claves")
	wantRedirect(t, b.Post("/portal/claves/"+k.ID+"/revocar", url.Values{"csrf": {list.CSRF(t)}}), "/portal/claves/"+k.ID+"/revocar")
	if site.findKey(t, k.ID).RevokedAt != nil {
		t.Fatal("revoked without a confirmation")
	}
	confirm := b.Get("/portal/claves/" + k.ID + "/revocar")
	wantStatus(t, confirm, http.StatusOK)
	wantText(t, confirm, "Esta clave se usó en las últimas 24 horas", "No se puede deshacer.")
	p = b.Post("/portal/claves/"+k.ID+"/revocar", url.Values{"csrf": {confirm.CSRF(t)}, "confirm": {"yes"}})
	wantRedirect(t, p, "/portal/claves?done=key-revoked")
	if site.findKey(t, k.ID).RevokedAt == nil {
		t.Fatal("the key is not revoked")
	}
	if code := a.Call(plaintext, "192.0.2.7"); code != http.StatusUnauthorized {
		t.Errorf("a revoked key against the API: %d, want 401", code)
	}
	list = b.Get("/portal/claves?done=key-revoked")
	wantText(t, list, "La clave está revocada: la API la rechaza a partir de ahora.", "revocada")
	if strings.Contains(list.Body, `id="revoke-`+k.ID+`"`) || strings.Contains(list.Body, `id="rotate-`+k.ID+`"`) {
		t.Error("a revoked key still offers revoke or rotate")
	}
	// Revoking again changes nothing, and writes no entry.
	wantRedirect(t, b.Post("/portal/claves/"+k.ID+"/revocar", url.Values{"csrf": {confirm.CSRF(t)}, "confirm": {"yes"}}), "/portal/claves")
	entries := site.wantAudit(t, site.Tenant.ID, "api_key.", "dev@caribe.do", "api_key.revoked", "api_key.created")
	if !bytes.Contains(entries[0].Before, []byte(`"revokedAt":null`)) || bytes.Contains(entries[0].After, []byte(`"revokedAt":null`)) {
		t.Errorf("revocation's before %s, after %s", entries[0].Before, entries[0].After)
	}
}

func mustDate(tb testing.TB, s string) sello.Date {
	tb.Helper()
	d, err := sello.ParseDate(s)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestKeyRotation: rotating a key issues a new one with the old one's
// settings (its plaintext shown once); the rotation page then follows the
// clients: the new key unused, then in use while the old one still is,
// then the old one quiet, when revoking it needs no further question; then
// done. The API refuses the old key and takes the new one.
func TestKeyRotation(t *testing.T) { testKeyRotation(t, MustSite(t)) }

func testKeyRotation(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	a := site.NewAPI(t)
	list := b.Get("/portal/claves")
	p := b.Post("/portal/claves", url.Values{"csrf": {list.CSRF(t)}, "name": {"Tienda"}, "environment": {"TesteCF"}, "scopes": {"ecf:read", "status:read"}})
	oldPlain := plaintextOf(t, p)
	old := site.newestKey(t, site.Tenant.ID)
	if code := a.Call(oldPlain, "192.0.2.10"); code != http.StatusOK {
		t.Fatalf("old key: %d", code)
	}

	// Without a new key yet, the rotation page offers to create it.
	choose := b.Get("/portal/claves/" + old.ID + "/rotacion")
	wantStatus(t, choose, http.StatusOK)
	wantText(t, choose, "La clave a reemplazar", "O créela ahora")
	if !strings.Contains(choose.Body, `id="rotation-create"`) {
		t.Error("no form to create the new key")
	}

	site.Clock.Advance(time.Minute)
	p = b.Post("/portal/claves/"+old.ID+"/rotar", url.Values{"csrf": {choose.CSRF(t)}})
	wantStatus(t, p, http.StatusOK)
	newPlain := plaintextOf(t, p)
	nw := site.newestKey(t, site.Tenant.ID)
	if nw.ID == old.ID || nw.Name != "Tienda" || nw.Environment != old.Environment || sello.JoinScopes(nw.Scopes) != "ecf:read,status:read" || nw.ExpiresAt != nil {
		t.Errorf("the new key %+v is not made from the old one's settings %+v", nw, old)
	}
	wantText(t, p, "La clave nueva todavía no se ha usado.")
	if !strings.Contains(p.Body, `data-state="new_unused"`) || !strings.Contains(p.Body, `hx-get="/portal/claves/`+old.ID+`/rotacion?nueva=`+nw.ID+`"`) {
		t.Errorf("rotation state or its refresh missing: %s", p.Body)
	}
	rotation := "/portal/claves/" + old.ID + "/rotacion?nueva=" + nw.ID
	if body := b.Get(rotation).Body; strings.Contains(body, newPlain) {
		t.Error("the rotation page shows the new key's plaintext again")
	}

	// The new key in use, the old one too: old_in_use, and revoking asks.
	if code := a.Call(newPlain, "192.0.2.11"); code != http.StatusOK {
		t.Fatalf("new key: %d", code)
	}
	site.Clock.Advance(time.Minute)
	a.Call(oldPlain, "192.0.2.12")
	page := b.Get(rotation)
	if !strings.Contains(page.Body, `data-state="old_in_use"`) {
		t.Fatalf("rotation page: %s", page.Body)
	}
	wantText(t, page, "algún sistema todavía no ha cambiado", "192.0.2.12", "serán rechazados")
	wantRedirect(t, b.Post("/portal/claves/"+old.ID+"/revocar", url.Values{"csrf": {page.CSRF(t)}, "rotation": {nw.ID}}),
		"/portal/claves/"+old.ID+"/revocar?rotacion="+nw.ID)

	// The old key quiet for APIKeyRotationQuiet: ready, and the page's
	// form revokes it at once, back to the rotation, done.
	site.Clock.Advance(sello.APIKeyRotationQuiet)
	page = b.Get(rotation)
	if !strings.Contains(page.Body, `data-state="ready"`) || !strings.Contains(page.Body, `name="confirm" value="yes"`) {
		t.Fatalf("rotation page when ready: %s", page.Body)
	}
	p = b.Post("/portal/claves/"+old.ID+"/revocar", url.Values{"csrf": {page.CSRF(t)}, "rotation": {nw.ID}, "confirm": {"yes"}})
	wantRedirect(t, p, rotation+"&done=key-revoked")
	page = b.Get(p.Location())
	if !strings.Contains(page.Body, `data-state="done"`) || strings.Contains(page.Body, `hx-get=`+`"/portal/claves/`) || strings.Contains(page.Body, `id="rotation-revoke"`) {
		t.Errorf("rotation page when done: %s", page.Body)
	}
	if code := a.Call(oldPlain, "192.0.2.12"); code != http.StatusUnauthorized {
		t.Errorf("old key after the rotation: %d, want 401", code)
	}
	if code := a.Call(newPlain, "192.0.2.11"); code != http.StatusOK {
		t.Errorf("new key after the rotation: %d, want 200", code)
	}
	// A revoked key has nothing to rotate.
	wantStatus(t, b.Post("/portal/claves/"+old.ID+"/rotar", url.Values{"csrf": {page.CSRF(t)}}), http.StatusConflict)

	entries := site.wantAudit(t, site.Tenant.ID, "api_key.", "ana@caribe.do", "api_key.revoked", "api_key.rotated", "api_key.created")
	if r := entries[1]; r.Target != nw.ID || !bytes.Contains(r.Before, []byte(old.ID)) || !bytes.Contains(r.After, []byte(nw.ID)) {
		t.Errorf("rotation entry: target %s, before %s, after %s", r.Target, r.Before, r.After)
	}
}

// TestKeysRoles: every member reads the keys, but an accountant sees no
// form and is refused (403) every change, whatever the page shows;
// owners, admins and developers may change them.
func TestKeysRoles(t *testing.T) { testKeysRoles(t, MustSite(t)) }

func testKeysRoles(t *testing.T, site *Site) {
	k, plaintext := sello.NewAPIKey(site.Tenant.ID, sello.EnvTest, "ERP", []sello.Scope{sello.ScopeCreate}, nil)
	if err := site.Store.CreateAPIKey(t.Context(), k); err != nil {
		t.Fatal(err)
	}
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(t, "conta@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("conta@caribe.do")
	list := b.Get("/portal/claves")
	wantStatus(t, list, http.StatusOK)
	wantText(t, list, "ERP", "…"+k.Last4)
	for _, id := range []string{`id="key-create"`, `id="rotate-`, `id="revoke-`} {
		if strings.Contains(list.Body, id) {
			t.Errorf("an accountant's list has %s", id)
		}
	}
	csrf := list.CSRF(t)
	for _, req := range []struct{ method, path string }{
		{"POST", "/portal/claves"},
		{"POST", "/portal/claves/" + k.ID + "/rotar"},
		{"GET", "/portal/claves/" + k.ID + "/revocar"},
		{"POST", "/portal/claves/" + k.ID + "/revocar"},
	} {
		var p *Page
		if req.method == "GET" {
			p = b.Get(req.path)
		} else {
			p = b.Post(req.path, url.Values{"csrf": {csrf}, "confirm": {"yes"}, "environment": {"TesteCF"}, "scopes": {"tenant:admin"}})
		}
		wantStatus(t, p, http.StatusForbidden)
		wantText(t, p, "Su rol en esta empresa no le permite hacer esto.")
	}
	if got := site.findKey(t, k.ID); got.RevokedAt != nil {
		t.Error("an accountant revoked a key")
	}
	if keys, _ := site.Store.FindAPIKeys(t.Context(), site.Tenant.ID); len(keys) != 1 {
		t.Errorf("%d keys after an accountant's attempts, want 1", len(keys))
	}
	if strings.Contains(list.Body, plaintext) {
		t.Error("the list shows a plaintext")
	}

	for i, role := range []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper} {
		email := string(role) + "@caribe.do"
		site.MustUser(t, email, role)
		c := site.NewBrowser(t)
		c.MustLogin(email)
		list := c.Get("/portal/claves")
		if !strings.Contains(list.Body, `id="key-create"`) {
			t.Errorf("%s sees no create form", role)
		}
		p := c.Post("/portal/claves", url.Values{"csrf": {list.CSRF(t)}, "environment": {"CerteCF"}, "scopes": {"ecf:validate"}})
		wantStatus(t, p, http.StatusOK)
		if !strings.HasPrefix(plaintextOf(t, p), "sk_certecf_") {
			t.Errorf("%s: not a CerteCF key", role)
		}
		if keys, _ := site.Store.FindAPIKeys(t.Context(), site.Tenant.ID); len(keys) != 2+i {
			t.Errorf("%s: %d keys", role, len(keys))
		}
	}
}

// TestKeysOtherTenant: another company's key is not found (404) on every
// page and form of a key, and stays as it was.
func TestKeysOtherTenant(t *testing.T) { testKeysOtherTenant(t, MustSite(t)) }

func testKeysOtherTenant(t *testing.T, site *Site) {
	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	theirs, _ := sello.NewAPIKey(other.ID, sello.EnvTest, "de otra", []sello.Scope{sello.ScopeCreate}, nil)
	if err := site.Store.CreateAPIKey(t.Context(), theirs); err != nil {
		t.Fatal(err)
	}
	ours, _ := sello.NewAPIKey(site.Tenant.ID, sello.EnvTest, "nuestra", []sello.Scope{sello.ScopeCreate}, nil)
	if err := site.Store.CreateAPIKey(t.Context(), ours); err != nil {
		t.Fatal(err)
	}
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	list := b.Get("/portal/claves")
	if strings.Contains(list.Body, "de otra") {
		t.Error("the list shows another company's key")
	}
	csrf := list.CSRF(t)
	for _, p := range []*Page{
		b.Get("/portal/claves/" + theirs.ID + "/revocar"),
		b.Post("/portal/claves/"+theirs.ID+"/revocar", url.Values{"csrf": {csrf}, "confirm": {"yes"}}),
		b.Post("/portal/claves/"+theirs.ID+"/rotar", url.Values{"csrf": {csrf}}),
		b.Get("/portal/claves/" + theirs.ID + "/rotacion"),
		b.Get("/portal/claves/" + ours.ID + "/rotacion?nueva=" + theirs.ID),
		b.Get("/portal/claves/nada/revocar"),
	} {
		wantStatus(t, p, http.StatusNotFound)
		wantText(t, p, "Esta empresa no tiene esa clave API.")
	}
	got, err := site.Store.FindAPIKey(t.Context(), other.ID, theirs.ID)
	if err != nil || got.RevokedAt != nil {
		t.Errorf("the other company's key: %+v, %v", got, err)
	}
	if keys, _ := site.Store.FindAPIKeys(t.Context(), other.ID); len(keys) != 1 {
		t.Errorf("the other company has %d keys, want 1", len(keys))
	}
	if keys, _ := site.Store.FindAPIKeys(t.Context(), site.Tenant.ID); len(keys) != 1 {
		t.Errorf("this company has %d keys, want 1", len(keys))
	}
}
