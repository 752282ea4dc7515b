package portal_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
)

var auditRowRE = regexp.MustCompile(`<tr id="audit-(\d+)" data-action="([^"]+)">`)

// auditRows are the seqs and actions of the entries a page lists.
func auditRows(p *Page) (seqs, actions []string) {
	for _, m := range auditRowRE.FindAllStringSubmatch(p.Body, -1) {
		seqs, actions = append(seqs, m[1]), append(actions, m[2])
	}
	return seqs, actions
}

// TestAudit: the owner reads the changes made through the portal, newest
// first, with their before and after; filters by who, what and since
// when; pages through the log; and verifies the chain.
func TestAudit(t *testing.T) { testAudit(t, MustSite(t)) }

func testAudit(t *testing.T, site *Site) {
	ana := site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	dev := site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	d := site.NewBrowser(t)
	d.MustLogin("dev@caribe.do")

	// Changes through the portal: a key, a role, the password, signing
	// out everywhere.
	list := d.Get("/portal/claves")
	plain := plaintextOf(t, d.Post("/portal/claves", url.Values{"csrf": {list.CSRF(t)}, "name": {"ERP"}, "environment": {"TesteCF"}, "scopes": {"ecf:read"}}))
	page := b.Get("/portal/usuarios")
	wantRedirect(t, b.Post("/portal/usuarios/"+dev.ID+"/rol", url.Values{"csrf": {page.CSRF(t)}, "role": {"accountant"}}), "/portal/usuarios")
	wantRedirect(t, b.Form("/portal/cuenta", "/portal/cuenta/clave", url.Values{"current": {testPassword}, "password": {"un loro verde en la mata"}, "confirm": {"un loro verde en la mata"}}), "/portal/cuenta")
	wantRedirect(t, b.Form("/portal/cuenta", "/portal/salir-de-todo", nil), "/portal/entrar")
	e := site.wantAudit(t, site.Tenant.ID, "", "", "user.signed_out_everywhere", "user.password_changed", "user.role_changed", "api_key.created")
	if e[0].ActorID != ana.ID || e[0].Target != ana.ID {
		t.Errorf("sign-out entry %+v", e[0])
	}
	b.Post("/portal/entrar", url.Values{"email": {"ana@caribe.do"}, "password": {"un loro verde en la mata"}})

	p := b.Get("/portal/auditoria")
	wantStatus(t, p, http.StatusOK)
	seqs, actions := auditRows(p)
	if strings.Join(seqs, ",") != "4,3,2,1" || strings.Join(actions, ",") != "user.signed_out_everywhere,user.password_changed,user.role_changed,api_key.created" {
		t.Fatalf("rows %v %v", seqs, actions)
	}
	wantText(t, p, "Clave API creada", "Rol cambiado", "dev@caribe.do", "ana@caribe.do", "127.0.0.1",
		`"role": "developer"`, `"role": "accountant"`)
	if strings.Contains(p.Body, plain) {
		t.Error("the audit log shows a key's plaintext")
	}
	for _, id := range []string{`id="audit-filter"`, `id="audit-actor"`, `id="audit-action"`, `id="audit-since"`, `id="audit-filter-submit"`, `id="audit-verify-submit"`} {
		if !strings.Contains(p.Body, id) {
			t.Errorf("the audit page has no %s", id)
		}
	}

	// Filters.
	for _, tt := range []struct {
		query, want string
	}{
		{"action=api_key.", "1"},
		{"action=user.", "4,3,2"},
		{"actor=" + dev.ID, "1"},
		{"actor=" + ana.ID + "&action=user.role", "2"},
		{"since=" + sello.TodayInDR(site.Clock.Now()).String(), "4,3,2,1"},
		{"since=" + sello.TodayInDR(site.Clock.Now().AddDate(0, 0, 1)).String(), ""},
	} {
		p := b.Get("/portal/auditoria?" + tt.query)
		wantStatus(t, p, http.StatusOK)
		if seqs, _ := auditRows(p); strings.Join(seqs, ",") != tt.want {
			t.Errorf("?%s: rows %v, want %s", tt.query, seqs, tt.want)
		}
	}
	wantText(t, b.Get("/portal/auditoria?since=ayer"), "La fecha \"ayer\" debe ser dd-MM-yyyy o yyyy-MM-dd.")
	wantStatus(t, b.Get("/portal/auditoria?before=x"), http.StatusBadRequest)

	// Pages of 50: 60 more entries, then the older ones, keeping the
	// filter.
	for i := range 60 {
		if err := site.Store.AppendAudit(t.Context(), &sello.AuditEntry{TenantID: site.Tenant.ID, ActorID: dev.ID, ActorEmail: dev.Email,
			Action: "webhook_endpoint.paused", Target: fmt.Sprintf("ep_%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	p = b.Get("/portal/auditoria?action=webhook_")
	seqs, _ = auditRows(p)
	if len(seqs) != 50 || seqs[0] != "64" || seqs[49] != "15" {
		t.Fatalf("first page: %d rows %v", len(seqs), seqs)
	}
	older := regexp.MustCompile(`id="audit-older" href="([^"]+)"|href="([^"]+)" id="audit-older"`).FindStringSubmatch(p.Body)
	if older == nil {
		t.Fatalf("no link to the older entries: %s", p.Body)
	}
	next := strings.ReplaceAll(older[1]+older[2], "&amp;", "&")
	if next != "/portal/auditoria?action=webhook_&before=15" {
		t.Errorf("older link %q", next)
	}
	p = b.Get(next)
	seqs, _ = auditRows(p)
	if len(seqs) != 10 || seqs[0] != "14" || seqs[9] != "5" || strings.Contains(p.Body, `id="audit-older"`) || !strings.Contains(p.Body, `id="audit-newest"`) {
		t.Errorf("second page: %v", seqs)
	}

	// The chain verifies.
	p = b.Get("/portal/auditoria/verificar")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "La cadena está íntegra: 64 entradas")
	if !strings.Contains(p.Body, `data-state="ok"`) {
		t.Errorf("verification: %s", p.Body)
	}
	chain, err := site.Store.AuditChain(t.Context(), site.Tenant.ID)
	if err != nil {
		t.Fatal(err)
	}
	if head := fmt.Sprintf("%x", chain[63].Hash); !strings.Contains(p.Body, `id="audit-chain-head">`+head+`<`) {
		t.Errorf("the page does not show the head %s", head)
	}
}

// TestAuditTampered: an entry edited in the database (past its trigger)
// breaks the chain at that entry, which the verification names.
func TestAuditTampered(t *testing.T) {
	site := MustSite(t)
	testAuditTampered(t, site, func(q string) error {
		_, err := site.Store.(*sqlite.DB).SQL().ExecContext(t.Context(), q)
		return err
	}, "DROP TRIGGER audit_log_no_update")
}

func testAuditTampered(t *testing.T, site *Site, exec func(string) error, dropTrigger string) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	for range 3 {
		list := b.Get("/portal/claves")
		wantStatus(t, b.Post("/portal/claves", url.Values{"csrf": {list.CSRF(t)}, "environment": {"TesteCF"}, "scopes": {"ecf:read"}}), http.StatusOK)
	}
	wantText(t, b.Get("/portal/auditoria/verificar"), "La cadena está íntegra: 3 entradas")
	const edit = `UPDATE audit_log SET address = '203.0.113.66' WHERE seq = 2`
	if err := exec(edit); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("UPDATE of an entry: %v; want the trigger's refusal", err)
	}
	for _, q := range []string{dropTrigger, edit} {
		if err := exec(q); err != nil {
			t.Fatal(err)
		}
	}
	p := b.Get("/portal/auditoria/verificar")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "La cadena está rota en la entrada 2")
	if !strings.Contains(p.Body, `data-state="broken"`) {
		t.Errorf("verification: %s", p.Body)
	}
}
