package portal_test

import (
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/ecf/ecftest"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/xmldsig"
)

// The Recibidos and Receptor pages' tests: suppliers' e-CFs stored as the
// receiver stores them (a real signed e-CF, its signer recorded), DGII's
// answer recorded as the confirmation job records it; people who list,
// open, download, approve and reject them as their role allows.

const recvPath = "/portal/TesteCF/recibidos"

// The DGII answers mustReceived records: none (pending), codigo 0 (not
// found) or 1 (accepted).
const (
	dgiiNone     = -1
	dgiiNotFound = 0
	dgiiAccepted = 1
)

// mustReceived stores the e-CF numbered n a supplier sent to tenant in env
// (ecftest.Received, signed by ecftest.SupplierSigner) and records DGII's
// answer codigo about it (dgiiNone for none yet).
func mustReceived(tb testing.TB, db sello.Store, tenant *sello.Tenant, env sello.Environment, n int64, codigo int) *sello.InboundDocument {
	tb.Helper()
	x := ecftest.Received(tb, tenant.RNC, n, time.Now())
	h, err := ecf.ParseECFHeader(x)
	if err != nil {
		tb.Fatal(err)
	}
	signer := sello.NewSigner(ecftest.SupplierSigner(tb).Cert)
	d := storetest.MustCreateInbound(tb, db, &sello.InboundDocument{
		TenantID: tenant.ID, Environment: env, Type: h.TipoeCF, ENCF: h.ENCF,
		IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor, BuyerRNC: h.RNCComprador,
		IssueDate: h.FechaEmision, Total: h.MontoTotal, XML: x, Acuse: []byte("<ARECF/>"),
		SecurityCode: h.SecurityCode, Signer: signer,
	})
	switch codigo {
	case dgiiNone:
		return d
	case dgiiAccepted:
		return storetest.MustRecordDGII(tb, db, tenant.ID, env, d.ID, 1, "Aceptado")
	default:
		return storetest.MustRecordDGII(tb, db, tenant.ID, env, d.ID, codigo, "No encontrado")
	}
}

// lastAudit is the tenant's newest audit entry of action, nil when none.
func lastAudit(tb testing.TB, db sello.Store, tenantID, action string) *sello.AuditEntry {
	tb.Helper()
	es, err := db.FindAudit(tb.Context(), tenantID, sello.AuditFilter{Action: action, Limit: 1})
	if err != nil {
		tb.Fatal(err)
	}
	if len(es) == 0 {
		return nil
	}
	return es[0]
}

// testReceivedList: the list shows each document with DGII's state, the
// signer and the approval; the filter keeps what it names and says what
// is wrong with what it cannot read; the pages follow a cursor.
func testReceivedList(t *testing.T, site *Site) {
	accepted := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 1, dgiiAccepted)
	pending := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 2, dgiiNone)
	notFound := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 3, dgiiNotFound)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "luis@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("luis@caribe.do")

	list := b.Get(recvPath)
	wantStatus(t, list, http.StatusOK)
	wantText(t, list, "Documentos recibidos en TesteCF", accepted.ENCF, pending.ENCF, notFound.ENCF,
		"Proveedor Ejemplo SRL", "RNC 131880681", "aceptado", "pendiente", "no encontrado",
		"certificado sin confianza", "RD$ 1,180.00")
	for _, d := range []*sello.InboundDocument{accepted, pending, notFound} {
		row := fmt.Sprintf(`id="received-%s" data-dgii="%s" data-approval="pending"`, d.ID, d.DGII.Status)
		if !strings.Contains(list.Body, row) {
			t.Errorf("the list has no row %s", row)
		}
	}
	if !strings.Contains(list.Body, `href="/portal/TesteCF/recibidos"`) || !strings.Contains(list.Body, `aria-current="page">Recibidos`) {
		t.Error("the menu does not show Recibidos as the current page")
	}

	// Filtered by DGII's state, by e-NCF, by supplier and by day.
	only := func(p *Page, want ...*sello.InboundDocument) {
		t.Helper()
		wantStatus(t, p, http.StatusOK)
		for _, d := range []*sello.InboundDocument{accepted, pending, notFound} {
			shown := strings.Contains(p.Body, `id="received-`+d.ID+`"`)
			if wanted := containsDoc(want, d); shown != wanted {
				t.Errorf("%s: %s shown %v, want %v", p.Request.URL, d.ENCF, shown, wanted)
			}
		}
	}
	only(b.Get(recvPath+"?dgii=accepted"), accepted)
	only(b.Get(recvPath+"?dgii=not_found"), notFound)
	only(b.Get(recvPath+"?encf="+strings.ToLower(pending.ENCF)), pending)
	only(b.Get(recvPath+"?emisor=131880681&aprobacion=pending"), accepted, pending, notFound)
	only(b.Get(recvPath + "?emisor=101010101"))
	today := sello.TodayInDR(site.Clock.Now()).String()
	only(b.Get(recvPath+"?desde="+today+"&hasta="+today), accepted, pending, notFound)
	only(b.Get(recvPath + "?hasta=2020-01-01"))

	// What the filter cannot read is said, in the reader's language.
	bad := b.Get(recvPath + "?emisor=12&encf=X1&dgii=nada")
	wantStatus(t, bad, http.StatusBadRequest)
	wantText(t, bad, `id="received-filter-error"`)
	if n := strings.Count(bad.Body, "<p>"); n < 3 {
		t.Errorf("the filter's errors: %d, want one per field: %s", n, bad.Body)
	}
	if strings.Contains(bad.Body, `id="received-`+accepted.ID+`"`) {
		t.Error("a filter that does not read still lists documents")
	}
	wantStatus(t, b.Get(recvPath+"?cursor=nada"), http.StatusBadRequest)

	// Paging: 52 documents, 50 a page, the filter kept.
	for n := int64(4); n <= 52; n++ {
		mustReceived(t, site.Store, site.Tenant, sello.EnvTest, n, dgiiNone)
	}
	first := b.Get(recvPath + "?emisor=131880681")
	if got := strings.Count(first.Body, `<tr id="received-`); got != 50 {
		t.Fatalf("the first page lists %d, want 50", got)
	}
	next := regexpFind(t, first.Body, `id="received-next" href="([^"]+)"`)
	if !strings.Contains(next, "emisor=131880681") || !strings.Contains(next, "cursor=") {
		t.Errorf("the next page's link %s drops the filter or the cursor", next)
	}
	second := b.Get(next)
	if got := strings.Count(second.Body, `<tr id="received-`); got != 2 || !strings.Contains(second.Body, `id="received-`+accepted.ID+`"`) {
		t.Errorf("the second page lists %d, want the 2 oldest", got)
	}
	if strings.Contains(second.Body, `id="received-next"`) || !strings.Contains(second.Body, `id="received-first"`) {
		t.Error("the last page links onwards, or not back to the first")
	}
}

func containsDoc(ds []*sello.InboundDocument, d *sello.InboundDocument) bool {
	for _, x := range ds {
		if x.ID == d.ID {
			return true
		}
	}
	return false
}

// regexpFind is the first group of pattern in s, HTML-unescaped.
func regexpFind(tb testing.TB, s, pattern string) string {
	tb.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		tb.Fatalf("no %s in %s", pattern, s)
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// testReceivedApprove: an accountant opens a document DGII accepted, sees
// who signed it and DGII's answer, downloads its XML and PDF, and
// approves it; the page then shows the verdict and its sending leg by leg
// as the job records it; the audit log has the approval.
func testReceivedApprove(t *testing.T, site *Site) {
	d := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 7, dgiiAccepted)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "marta@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("marta@caribe.do")
	page := b.Get(recvPath + "/" + d.ID)
	wantStatus(t, page, http.StatusOK)
	wantText(t, page, "Documento recibido "+d.ENCF, "Proveedor Ejemplo SRL", "31 · Factura de Crédito Fiscal Electrónica",
		"RD$ 1,180.00", d.SecurityCode, `id="received-dgii-state" data-state="accepted"`,
		"La DGII aceptó este mismo documento", "SERIALNUMBER=131880681", "Proveedor Ejemplo SRL",
		`id="approve-form"`, `id="reject-form"`)
	if strings.Contains(page.Body, `id="approval-unconfirmed"`) {
		t.Error("a document DGII accepted is said to be unconfirmed")
	}

	// Its files, as the supplier sent them.
	x := b.Get(recvPath + "/" + d.ID + "/xml")
	wantStatus(t, x, http.StatusOK)
	if x.Body != string(d.XML) || x.Header.Get("Content-Type") != "application/xml" ||
		x.Header.Get("Content-Disposition") != `attachment; filename="131880681`+d.ENCF+`.xml"` {
		t.Errorf("the XML: %s %s, %d bytes", x.Header.Get("Content-Type"), x.Header.Get("Content-Disposition"), len(x.Body))
	}
	p := b.Get(recvPath + "/" + d.ID + "/pdf")
	wantStatus(t, p, http.StatusOK)
	if !strings.HasPrefix(p.Body, "%PDF-") || p.Header.Get("Content-Type") != "application/pdf" ||
		p.Header.Get("Content-Disposition") != `attachment; filename="131880681`+d.ENCF+`.pdf"` {
		t.Errorf("the PDF: %s %s, starts %q", p.Header.Get("Content-Type"), p.Header.Get("Content-Disposition"), p.Body[:min(8, len(p.Body))])
	}

	// Approved: the store holds the approval, its job queued; the page
	// shows it sending.
	done := b.Form(recvPath+"/"+d.ID, recvPath+"/"+d.ID+"/aprobar", nil)
	wantRedirect(t, done, recvPath+"/"+d.ID+"?done=inbound-approved")
	a, err := site.Store.FindInboundApproval(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID)
	if err != nil || a.State != sello.ApprovalApproved || a.Status != sello.ApprovalSendPending || a.Reason != "" {
		t.Fatalf("the approval stored: %+v, %v", a, err)
	}
	page = b.Get(done.Location())
	wantText(t, page, "Aprobado. Sello está enviando la aprobación", `id="approval-state" data-state="approved"`,
		`id="approval-progress" data-status="pending"`, `hx-trigger="every 10s"`,
		`id="approval-leg-issuer" data-status="pending"`, `id="approval-leg-dgii" data-status="pending"`)
	if strings.Contains(page.Body, `id="approve-form"`) {
		t.Error("the approve form is still offered after the approval")
	}

	// The job's outcomes, leg by leg.
	codigo := 2
	if _, err := site.Store.RecordApprovalOutcome(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID, sello.ApprovalOutcome{
		ACECF:  []byte("<ACECF/>"),
		Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendSent},
		DGII: &sello.ApprovalLeg{Status: sello.ApprovalSendFailed, Error: "DGII refused it: codigo 2",
			Answer: &sello.DGIIResult{Codigo: &codigo, Estado: "Rechazado", Mensajes: []sello.DGIIMessage{{Valor: "La fecha no es válida"}}}},
	}); err != nil {
		t.Fatal(err)
	}
	page = b.Get(recvPath + "/" + d.ID)
	wantText(t, page, `id="approval-progress" data-status="failed"`, `id="approval-leg-issuer" data-status="sent"`,
		`id="approval-leg-dgii" data-status="failed"`, "DGII refused it: codigo 2", "2 · Rechazado", "La fecha no es válida", "fallida", "enviada")
	if strings.Contains(page.Body, `hx-trigger="every 10s"`) {
		t.Error("a finished approval still refreshes itself")
	}

	// Audited: who, from where, on what, before and after.
	e := lastAudit(t, site.Store, site.Tenant.ID, "inbound.approved")
	if e == nil || e.ActorEmail != "marta@caribe.do" || e.Target != d.ID || e.Address != "127.0.0.1" {
		t.Fatalf("audit entry: %+v", e)
	}
	var before, after map[string]any
	if json.Unmarshal(e.Before, &before) != nil || json.Unmarshal(e.After, &after) != nil ||
		before["approval"] != "pending" || after["approval"] != "approved" || after["approvalId"] != a.ID ||
		after["encf"] != d.ENCF || after["issuerRnc"] != "131880681" || after["motivo"] != nil {
		t.Errorf("audit before %s after %s", e.Before, e.After)
	}
	// Approving again is refused, 409, with why.
	again := b.Form(recvPath+"/"+d.ID, recvPath+"/"+d.ID+"/aprobar", nil)
	wantStatus(t, again, http.StatusConflict)
	wantText(t, again, `id="decision-error"`)
}

// testReceivedReject: a rejection without a motivo is refused with the
// domain's reason in the reader's language and nothing recorded; with
// one, it is recorded and audited with its motivo.
func testReceivedReject(t *testing.T, site *Site) {
	d := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 8, dgiiAccepted)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	path := recvPath + "/" + d.ID
	empty := b.Form(path, path+"/rechazar", url.Values{"motivo": {"   "}})
	wantStatus(t, empty, http.StatusBadRequest)
	wantText(t, empty, `id="decision-error"`, "La solicitud de aprobación no es válida.", `id="reject-form"`)
	if _, err := site.Store.FindInboundApproval(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("a refused rejection was recorded: %v", err)
	}
	if e := lastAudit(t, site.Store, site.Tenant.ID, "inbound."); e != nil {
		t.Fatalf("a refused rejection was audited: %+v", e)
	}
	long := b.Form(path, path+"/rechazar", url.Values{"motivo": {strings.Repeat("x", sello.MaxApprovalReason+1)}})
	wantStatus(t, long, http.StatusBadRequest)
	wantText(t, long, "251")

	done := b.Form(path, path+"/rechazar", url.Values{"motivo": {"Mercancía dañada al llegar"}})
	wantRedirect(t, done, path+"?done=inbound-rejected")
	a, err := site.Store.FindInboundApproval(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID)
	if err != nil || a.State != sello.ApprovalRejected || a.Reason != "Mercancía dañada al llegar" {
		t.Fatalf("the rejection stored: %+v, %v", a, err)
	}
	page := b.Get(done.Location())
	wantText(t, page, "Rechazado. Sello está enviando el rechazo", `id="approval-state" data-state="rejected"`, "Mercancía dañada al llegar")
	e := lastAudit(t, site.Store, site.Tenant.ID, "inbound.rejected")
	var after map[string]any
	if e == nil || e.ActorEmail != "ana@caribe.do" || e.Target != d.ID || json.Unmarshal(e.After, &after) != nil ||
		after["approval"] != "rejected" || after["motivo"] != "Mercancía dañada al llegar" {
		t.Fatalf("audit entry: %+v", e)
	}
	list := b.Get(recvPath + "?aprobacion=rejected")
	wantText(t, list, `id="received-`+d.ID+`" data-dgii="accepted" data-approval="rejected"`)
	// The audit log's filter names the received documents' changes.
	audit := b.Get("/portal/auditoria?action=inbound.")
	wantText(t, audit, "Documento recibido rechazado", "inbound.rejected")
}

// testReceivedUnconfirmed: a document DGII has not accepted is refused
// with 422 and the domain's reason, in Spanish and in English, and
// nothing is recorded.
func testReceivedUnconfirmed(t *testing.T, site *Site) {
	pending := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 9, dgiiNone)
	notFound := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 10, dgiiNotFound)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "marta@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("marta@caribe.do")
	path := recvPath + "/" + pending.ID
	page := b.Get(path)
	wantText(t, page, `id="approval-unconfirmed"`, "La DGII no ha aceptado este documento", `id="approve-form"`)
	refused := b.Form(path, path+"/aprobar", nil)
	wantStatus(t, refused, http.StatusUnprocessableEntity)
	wantText(t, refused, `id="decision-error"`, "no se puede aprobar ni rechazar", "La DGII todavía no lo ha confirmado")
	refused = b.Form(recvPath+"/"+notFound.ID, recvPath+"/"+notFound.ID+"/rechazar", url.Values{"motivo": {"No lo pedimos"}})
	wantStatus(t, refused, http.StatusUnprocessableEntity)
	wantText(t, refused, "no se puede aprobar ni rechazar", "not_found", "No lo pedimos")

	// In English.
	b.Form(path, "/portal/idioma", url.Values{"lang": {"en"}, "next": {path}})
	refused = b.Form(path, path+"/aprobar", nil)
	wantStatus(t, refused, http.StatusUnprocessableEntity)
	wantText(t, refused, "cannot be approved or rejected", "DGII has not confirmed it yet")

	for _, d := range []*sello.InboundDocument{pending, notFound} {
		if _, err := site.Store.FindInboundApproval(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Errorf("the approval of an unconfirmed document was recorded: %v", err)
		}
	}
	if e := lastAudit(t, site.Store, site.Tenant.ID, "inbound."); e != nil {
		t.Errorf("a refused approval was audited: %+v", e)
	}
}

// testReceivedRoles: a developer reads the list, a document and its
// files, is offered no form, and is refused (403) an approval or a
// rejection, whatever is posted; owners, admins and accountants see the
// forms.
func testReceivedRoles(t *testing.T, site *Site) {
	d := mustReceived(t, site.Store, site.Tenant, sello.EnvTest, 11, dgiiAccepted)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "luis@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("luis@caribe.do")
	path := recvPath + "/" + d.ID
	page := b.Get(path)
	wantStatus(t, page, http.StatusOK)
	wantText(t, page, `id="approval-read-only"`)
	if strings.Contains(page.Body, `id="approve-form"`) || strings.Contains(page.Body, `id="reject-form"`) {
		t.Error("a developer is offered the approval's forms")
	}
	wantStatus(t, b.Get(path+"/xml"), http.StatusOK)
	csrf := page.CSRF(t)
	for _, p := range []*Page{
		b.Post(path+"/aprobar", url.Values{"csrf": {csrf}}),
		b.Post(path+"/rechazar", url.Values{"csrf": {csrf}, "motivo": {"No"}}),
	} {
		wantStatus(t, p, http.StatusForbidden)
		wantText(t, p, "Su rol en esta empresa no le permite hacer esto.")
	}
	if _, err := site.Store.FindInboundApproval(t.Context(), site.Tenant.ID, sello.EnvTest, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("a developer's approval was recorded: %v", err)
	}
	for _, role := range []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleAccountant} {
		email := string(role) + "@caribe.do"
		if role == sello.RoleOwner {
			email = "ana@caribe.do"
		} else {
			site.MustUser(t, email, role)
		}
		ob := site.NewBrowser(t)
		ob.MustLogin(email)
		wantText(t, ob.Get(path), `id="approve-form"`, `id="reject-form"`)
	}
}

// testReceivedOtherTenant: another company's document, or one of another
// environment, is not found on every page and form; the list shows
// neither.
func testReceivedOtherTenant(t *testing.T, site *Site) {
	other := &sello.Tenant{RNC: "130000002", Name: "Colmado Oriental SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	theirs := mustReceived(t, site.Store, other, sello.EnvTest, 12, dgiiAccepted)
	otherEnv := mustReceived(t, site.Store, site.Tenant, sello.EnvCert, 13, dgiiAccepted)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("ana@caribe.do")
	list := b.Get(recvPath)
	if strings.Contains(list.Body, theirs.ID) || strings.Contains(list.Body, otherEnv.ID) {
		t.Error("the TesteCF list shows another company's document or one of CerteCF")
	}
	csrf := list.CSRF(t)
	for _, id := range []string{theirs.ID, otherEnv.ID, "nada"} {
		path := recvPath + "/" + id
		for _, p := range []*Page{
			b.Get(path), b.Get(path + "/pdf"), b.Get(path + "/xml"),
			b.Post(path+"/aprobar", url.Values{"csrf": {csrf}}),
			b.Post(path+"/rechazar", url.Values{"csrf": {csrf}, "motivo": {"No"}}),
		} {
			wantStatus(t, p, http.StatusNotFound)
			wantText(t, p, "Esta empresa no tiene ese documento recibido en TesteCF.")
		}
	}
	for _, d := range []*sello.InboundDocument{theirs, otherEnv} {
		if _, err := site.Store.FindInboundApproval(t.Context(), d.TenantID, d.Environment, d.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
			t.Errorf("%s: an approval was recorded through another company or environment: %v", d.ENCF, err)
		}
	}
	// In its own environment the document opens.
	wantStatus(t, b.Get("/portal/CerteCF/recibidos/"+otherEnv.ID), http.StatusOK)
}

// testDisputes: a document of the company's own whose buyer's approval
// is disputed shows with both verdicts and both signers, linking to the
// document's page; another company's dispute does not show.
func testDisputes(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "luis@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("luis@caribe.do")
	none := b.Get(recvPath + "/disputas")
	wantStatus(t, none, http.StatusOK)
	wantText(t, none, `id="disputes-none"`, "Aprobaciones en disputa en TesteCF")

	doc := storetest.MustDisputedDocument(t, site.Store, site.Tenant, sello.EnvTest)
	other := &sello.Tenant{RNC: "130000002", Name: "Colmado Oriental SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	theirs := storetest.MustDisputedDocument(t, site.Store, other, sello.EnvTest)
	// Events are listed once their transactions are older than every
	// running one (PostgreSQL): wait for them.
	storetest.WaitEvents(t, site.Store, site.Tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApprovalDisputed, Limit: 10}, storetest.AtLeast(1))
	page := b.Get(recvPath + "/disputas")
	wantStatus(t, page, http.StatusOK)
	wantText(t, page, `id="dispute-`+doc.ENCF+`"`, `href="/portal/TesteCF/documentos/`+doc.ENCF+`"`,
		`id="dispute-`+doc.ENCF+`-verdict-1" data-status="rejected"`, `id="dispute-`+doc.ENCF+`-verdict-2" data-status="approved"`,
		"Falsa", "IDCDO-40200000009", "IDCDO-00100000001", "No: no se encadena", "Sí: se encadena")
	// Both companies number from 1: the other's dispute, under the same
	// e-NCF, must not add a second entry.
	if n := strings.Count(page.Body, `<li class="card" id="dispute-`); n != 1 || theirs.TenantID == doc.TenantID {
		t.Errorf("%d disputes shown, want this company's one", n)
	}
	if strings.Contains(page.Body, "disputes-none") {
		t.Error("a dispute and 'no dispute' on one page")
	}
	// Not in CerteCF.
	wantText(t, b.Get("/portal/CerteCF/recibidos/disputas"), `id="disputes-none"`)
}

// testReceptor: the company's receiver URLs under the portal's address,
// each with its copy button, whether authentication is required, and the
// trust roots (none, a warning).
func testReceptor(t *testing.T, site *Site) {
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "marta@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("marta@caribe.do")
	page := b.Get("/portal/TesteCF/receptor")
	wantStatus(t, page, http.StatusOK)
	base := site.HTTP.URL + "/TesteCF/receptor/130000001"
	for _, id := range []string{"recepcion", "aprobacion", "autenticacion"} {
		wantText(t, page, `id="receptor-url-`+id+`" aria-labelledby="receptor-label-`+id+`">`+base+`</code>`,
			`id="copy-`+id+`" data-copy="receptor-url-`+id+`"`)
	}
	wantText(t, page, "URL de recepción", "URL de aceptación (aprobación comercial)", "URL de autenticación (opcional)",
		base+"/fe/recepcion/api/ecf", base+"/fe/aprobacioncomercial/api/ecf", base+"/fe/autenticacion/api/semilla",
		`id="receptor-auth" data-required="true"`, `id="receptor-roots-none"`, "copy.js")
	eCF := b.Get("/portal/eCF/receptor")
	wantText(t, eCF, site.HTTP.URL+"/eCF/receptor/130000001")

	if err := site.Store.SetReceiverAuth(t.Context(), site.Tenant.ID, false); err != nil {
		t.Fatal(err)
	}
	wantText(t, b.Get("/portal/TesteCF/receptor"), `id="receptor-auth" data-required="false"`, "No obligatoria", "set-receiver-auth --required on")
}

// TestReceptorTrustRoots: the page lists the roots the server was given,
// each with its subject, expiry and fingerprint.
func TestReceptorTrustRoots(t *testing.T) {
	_, root, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Raíz Prueba CA", Organization: []string{"Cámara de Prueba"}}, time.Now().AddDate(3, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, old, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Vieja CA"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	site := MustSite(t, func(s *portal.Server) { s.ReceiverTrust = sello.NewTrustRoots(root, old) })
	site.Clock.Advance(2 * time.Hour)
	site.MustUser(t, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(t, "luis@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("luis@caribe.do")
	page := b.Get("/portal/TesteCF/receptor")
	wantStatus(t, page, http.StatusOK)
	fp := strings.ToUpper(sello.NewSigner(root).Fingerprint)
	wantText(t, page, `id="receptor-roots"`, "CN=Raíz Prueba CA,O=Cámara de Prueba", "CN=Vieja CA", fp[:4]+" "+fp[4:8], "vencido")
	if strings.Contains(page.Body, "receptor-roots-none") {
		t.Error("roots configured, and the page says none are")
	}
	if n := strings.Count(page.Body, "vencido"); n != 1 {
		t.Errorf("%d roots shown expired, want the one", n)
	}
}

func TestReceivedList(t *testing.T)        { testReceivedList(t, MustSite(t)) }
func TestReceivedApprove(t *testing.T)     { testReceivedApprove(t, MustSite(t)) }
func TestReceivedReject(t *testing.T)      { testReceivedReject(t, MustSite(t)) }
func TestReceivedUnconfirmed(t *testing.T) { testReceivedUnconfirmed(t, MustSite(t)) }
func TestReceivedRoles(t *testing.T)       { testReceivedRoles(t, MustSite(t)) }
func TestReceivedOtherTenant(t *testing.T) { testReceivedOtherTenant(t, MustSite(t)) }
func TestDisputes(t *testing.T)            { testDisputes(t, MustSite(t)) }
func TestReceptor(t *testing.T)            { testReceptor(t, MustSite(t)) }

// TestReceivedPostgres runs the Recibidos and Receptor pages' tests on
// PostgreSQL (SELLO_TEST_DATABASE_URL), each on a fresh schema.
func TestReceivedPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, *Site)
	}{
		{"List", testReceivedList},
		{"Approve", testReceivedApprove},
		{"Reject", testReceivedReject},
		{"Unconfirmed", testReceivedUnconfirmed},
		{"Roles", testReceivedRoles},
		{"OtherTenant", testReceivedOtherTenant},
		{"Disputes", testDisputes},
		{"Receptor", testReceptor},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			tt.test(t, MustSiteOn(t, db))
		})
	}
}
