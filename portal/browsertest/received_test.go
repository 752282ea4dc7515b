package browsertest_test

import (
	"context"
	"crypto/x509/pkix"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/portal/browsertest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/xmldsig"
)

// TestReceivedDocuments: an accountant opens Recibidos from the menu,
// filters the suppliers' e-CFs by DGII's confirmation, opens one DGII
// accepted and approves it (the page then follows the approval's sending
// by itself, with htmx, as the legs' outcomes come), rejects another with
// a motivo, and is refused, on the page and in Spanish, the approval of a
// document DGII has not confirmed (422). A developer reads a document
// with no form, and the server refuses their approval posted anyway
// (403); another company's document is not found (404). The disputed
// approvals of the company's own documents show both signers. The owner
// finds both decisions in the audit log.
func TestReceivedDocuments(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "marta@caribe.do", sello.RoleAccountant)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)
	approve := s.Received(t, s.Tenant, sello.EnvTest, 1, browsertest.DGIIAccepted)
	reject := s.Received(t, s.Tenant, sello.EnvTest, 2, browsertest.DGIIAccepted)
	unconfirmed := s.Received(t, s.Tenant, sello.EnvTest, 3, browsertest.DGIINone)
	notFound := s.Received(t, s.Tenant, sello.EnvTest, 4, browsertest.DGIINotFound)
	other := s.OtherTenant(t)
	theirs := s.Received(t, other, sello.EnvTest, 5, browsertest.DGIIAccepted)

	p := s.NewPage(t)
	p.Login("marta@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/recibidos"]`)
	if got := p.Path(); got != "/portal/TesteCF/recibidos" {
		t.Fatalf("the menu's Recibidos leads to %s", got)
	}
	if rows := p.Texts("#received tbody tr"); len(rows) != 4 {
		t.Fatalf("the list has %d rows, want the company's 4: %v", len(rows), rows)
	}
	p.WantText(approve.ENCF, notFound.ENCF, "Proveedor Ejemplo SRL", "RD$ 1,180.00", "aceptado", "pendiente", "no encontrado")
	p.Look("received")

	// Filtered: only what DGII accepted (the filter folds away until
	// used, so that a phone shows the list first).
	p.Click("#received-filter-title")
	p.Select("#received-dgii", sello.DGIIAccepted)
	p.Submit("#received-filter-submit")
	if got := p.Path(); !strings.Contains(got, "dgii=accepted") {
		t.Errorf("the filter's page is %s", got)
	}
	rows := p.Texts("#received tbody tr")
	if len(rows) != 2 || strings.Contains(strings.Join(rows, " "), unconfirmed.ENCF) {
		t.Errorf("filtered by DGII accepted, the list: %v", rows)
	}

	// A document DGII accepted: approved.
	p.Submit(fmt.Sprintf(`#received-%s a`, approve.ID))
	p.WantText("Documento recibido "+approve.ENCF, "La DGII aceptó este mismo documento", "Descargar el PDF", "SERIALNUMBER=131880681")
	if got := p.Attr("#received-pdf", "href"); got != "/portal/TesteCF/recibidos/"+approve.ID+"/pdf" {
		t.Errorf("the PDF's link is %q", got)
	}
	if p.Attr("#reject-motivo", "required") == "" && !browsertest.Eval[bool](p, `document.querySelector('#reject-motivo').required`) {
		t.Error("the rejection's motivo is not required")
	}
	p.Look("received-document")
	p.Submit("#approve-submit")
	p.WaitFor(`.flash[role="status"]`)
	if state := p.Attr("#approval-progress", "data-status"); state != sello.ApprovalSendPending {
		t.Fatalf("the approval's sending is %q, want pending", state)
	}
	// The job reaches the supplier, then DGII: the page follows by itself,
	// htmx refreshing the approval's part every 10 seconds.
	watchSwaps(p)
	if _, err := s.Store.RecordApprovalOutcome(t.Context(), s.Tenant.ID, sello.EnvTest, approve.ID, sello.ApprovalOutcome{
		ACECF: []byte("<ACECF/>"), Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendSent},
	}); err != nil {
		t.Fatal(err)
	}
	waitSwapped(t, p, `#approval-leg-issuer[data-status="sent"]`, 25*time.Second)
	watchSwaps(p)
	codigo := 1
	if _, err := s.Store.RecordApprovalOutcome(t.Context(), s.Tenant.ID, sello.EnvTest, approve.ID, sello.ApprovalOutcome{
		DGII: &sello.ApprovalLeg{Status: sello.ApprovalSendSent, Answer: &sello.DGIIResult{Codigo: &codigo, Estado: "Aceptado"}},
	}); err != nil {
		t.Fatal(err)
	}
	waitSwapped(t, p, `#approval-progress[data-status="sent"]`, 25*time.Second)
	p.WantText("1 · Aceptado")
	browsertest.Eval[bool](p, `document.getElementById('approval').scrollIntoView(), true`)
	p.Look("received-approved")

	// Another: rejected with a motivo.
	p.Go("/portal/TesteCF/recibidos/" + reject.ID)
	// Typed (Page.Fill clears the field first, which an empty textarea
	// does not let chromedp do).
	ctx, cancel := context.WithTimeout(p.Context(), 10*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#reject-motivo"), "Mercancía dañada al llegar")); err != nil {
		t.Fatal(err)
	}
	p.Submit("#reject-submit")
	if state := p.Attr("#approval-state", "data-state"); state != sello.ApprovalRejected {
		t.Errorf("after the rejection the verdict is %q", state)
	}
	p.WantText("Mercancía dañada al llegar")

	// One DGII has not confirmed: the page warns, and the server refuses
	// with the domain's reason, in Spanish.
	p.Go("/portal/TesteCF/recibidos/" + unconfirmed.ID)
	if !p.Has("#approval-unconfirmed") {
		t.Error("no warning on a document DGII has not confirmed")
	}
	if status := p.Submit("#approve-submit"); status != http.StatusUnprocessableEntity {
		t.Errorf("approving an unconfirmed document: status %d, want 422", status)
	}
	if msg := p.Text("#decision-error"); !strings.Contains(msg, "no se puede aprobar ni rechazar") || !strings.Contains(msg, "La DGII todavía no lo ha confirmado") {
		t.Errorf("the refusal says %q", msg)
	}
	p.Look("received-unconfirmed")
	if _, err := s.Store.FindInboundApproval(t.Context(), s.Tenant.ID, sello.EnvTest, unconfirmed.ID); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Errorf("the refused approval was recorded: %v", err)
	}

	// A developer reads, is offered no form, and is refused a post.
	dev := s.NewPage(t)
	dev.Login("luis@caribe.do")
	dev.Go("/portal/TesteCF/recibidos/" + notFound.ID)
	if dev.Has("#approve-form") || dev.Has("#reject-form") || !dev.Has("#approval-read-only") {
		t.Error("a developer is offered the approval's forms")
	}
	post := `fetch(location.pathname + '/aprobar', {method: 'POST',
		headers: {'Content-Type': 'application/x-www-form-urlencoded'},
		body: new URLSearchParams({csrf: document.querySelector('input[name=csrf]').value})}).then((r) => r.status)`
	devCtx, devCancel := context.WithTimeout(dev.Context(), 10*time.Second)
	defer devCancel()
	status, err := chromedp.Run(devCtx, chromedp.Evaluate[int](post, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusForbidden {
		t.Errorf("a developer's approval posted from the page: status %d, want 403", status)
	}
	// Another company's document is not found.
	if status := dev.Go("/portal/TesteCF/recibidos/" + theirs.ID); status != http.StatusNotFound {
		t.Errorf("another company's document: status %d, want 404", status)
	}
	dev.WantText("Esta empresa no tiene ese documento recibido en TesteCF.")

	// A disputed approval of one of the company's own documents.
	doc := storetest.MustDisputedDocument(t, s.Store, s.Tenant, sello.EnvTest)
	storetest.WaitEvents(t, s.Store, s.Tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventECFCommercialApprovalDisputed, Limit: 10}, storetest.AtLeast(1))
	p.Go("/portal/TesteCF/recibidos")
	p.Submit("#received-tab-disputes")
	if got := p.Attr(fmt.Sprintf("#dispute-%s h2 a", doc.ENCF), "href"); got != "/portal/TesteCF/documentos/"+doc.ENCF {
		t.Errorf("the dispute links to %q", got)
	}
	p.WantText("IDCDO-40200000009", "IDCDO-00100000001", "Falsa")
	p.Look("received-disputes")

	// The owner's audit log has both decisions.
	owner := s.NewPage(t)
	owner.Login("ana@caribe.do")
	owner.Go("/portal/auditoria?action=inbound.")
	entries := owner.Texts("#audit-entries tbody tr")
	if all := strings.Join(entries, "\n"); len(entries) != 2 || !strings.Contains(all, "Documento recibido aprobado") ||
		!strings.Contains(all, "Documento recibido rechazado") || strings.Count(all, "marta@caribe.do") != 2 {
		t.Errorf("the audit log's entries of received documents: %q, want marta's approval and rejection", entries)
	}
}

// TestReceptor: the Receptor page shows the company's receiver URL in
// each of DGII's fields, each copied by its button, that authentication
// is required, and the trust roots the server was given.
func TestReceptor(t *testing.T) {
	t.Parallel()
	_, root, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba Raíz CA", Organization: []string{"Cámara de Prueba"}}, time.Now().AddDate(5, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, sub, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba CA Subordinada 1", Organization: []string{"Cámara de Prueba"}}, time.Now().AddDate(3, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	s := browsertest.StartServer(t, browsertest.Options{Portal: func(ps *portal.Server) {
		ps.ReceiverTrust = sello.NewTrustRoots(root, sub)
	}})
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)
	p := s.NewPage(t)
	browsertest.GrantClipboard(t, p)
	p.Login("luis@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/receptor"]`)
	want := s.URL + "/TesteCF/receptor/130000001"
	for _, id := range []string{"recepcion", "aprobacion", "autenticacion"} {
		if got := p.Text("#receptor-url-" + id); got != want {
			t.Errorf("the %s URL is %q, want %s", id, got, want)
		}
	}
	p.Click("#copy-aprobacion")
	p.WaitFor("#copy-status-aprobacion:not(:empty)")
	if got := browsertest.Clipboard(t, p); got != want {
		t.Errorf("the copy button copied %q, want %s", got, want)
	}
	if p.Attr("#receptor-auth", "data-required") != "true" {
		t.Error("the page does not say authentication is required")
	}
	if rows := p.Texts("#receptor-roots tbody tr"); len(rows) != 2 || !strings.Contains(rows[0], "Prueba Raíz CA") || !strings.Contains(rows[1], "Prueba CA Subordinada 1") {
		t.Errorf("the trust roots: %v", rows)
	}
	p.Look("receptor")
}

// watchSwaps starts counting the swaps htmx settles in the page (again
// from zero), and the errors it reports.
func watchSwaps(p *browsertest.Page) {
	browsertest.Eval[bool](p, `(() => {
		window.__recvSwaps = {settled: 0, errors: []};
		if (!window.__recvWatching) {
			window.__recvWatching = true;
			document.body.addEventListener('htmx:afterSettle', () => window.__recvSwaps.settled++);
			for (const t of ['htmx:responseError', 'htmx:sendError', 'htmx:swapError']) {
				document.body.addEventListener(t, (e) => window.__recvSwaps.errors.push(t + ' ' + ((e.detail && e.detail.xhr && e.detail.xhr.status) || '')));
			}
		}
		return true;
	})()`)
}

// waitSwapped waits, for at most timeout, until htmx has settled a swap
// since watchSwaps and an element matches sel: the page changed by
// htmx's own refresh, not by a reload. (Page.SwapUntil checks the swap
// once sel appears, which can be inside htmx's settle delay.)
func waitSwapped(t *testing.T, p *browsertest.Page, sel string, timeout time.Duration) {
	t.Helper()
	check := fmt.Sprintf(`window.__recvSwaps.settled > 0 && document.querySelector(%q) !== null`, sel)
	deadline := time.Now().Add(timeout)
	for !browsertest.Eval[bool](p, check) {
		if errs := browsertest.Eval[[]string](p, `window.__recvSwaps.errors`); len(errs) > 0 {
			t.Fatalf("htmx, waiting for %s: %v", sel, errs)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come by htmx within %s (%d swaps settled)", sel, timeout, browsertest.Eval[int](p, `window.__recvSwaps.settled`))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
