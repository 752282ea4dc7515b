package browsertest_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal/browsertest"
	"github.com/sello-do/sello/portal/internal/docseed"
)

// TestDocuments: an accountant opens Documentos from the menu, filters the
// list (state and buyer), exports it (the CSV link of the page, fetched by
// the browser with its session, has the documents the API lists for the
// same filter, with the same values), opens a document with a disputed
// commercial approval and reads its story: each step at its time, DGII's
// answer, the delivery, both signers, and the webhook deliveries of its
// events, which lead to the Webhooks page of each.
func TestDocuments(t *testing.T) {
	t.Parallel()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	var docs map[string]*sello.Document
	s := browsertest.StartServer(t, browsertest.Options{Seed: func(tb testing.TB, s *browsertest.Server) {
		mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
		if err != nil {
			tb.Fatal(err)
		}
		ep, err := sello.NewWebhookEndpoint(mk, s.Tenant.ID, sello.EnvTest, receiver.URL+"/sello", nil, sello.GenerateWebhookSecret())
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.Store.CreateWebhookEndpoint(tb.Context(), ep); err != nil {
			tb.Fatal(err)
		}
		seed := &docseed.Seeder{Store: s.Store, Tenant: s.Tenant, Env: sello.EnvTest, Sign: true}
		maria := docseed.Verdict{Status: sello.ApprovalApproved, Holder: "IDCDO-00100000001", Name: "María Pérez"}
		docs = map[string]*sello.Document{}
		for i := range 6 {
			docs[fmt.Sprint("accepted", i)] = seed.Issue(tb, docseed.Story{Units: i + 1, Delivery: sello.DeliveryDelivered, Verdicts: []docseed.Verdict{maria}})
		}
		docs["rejected"] = seed.Issue(tb, docseed.Story{Status: sello.StatusRejected})
		docs["consumo"] = seed.Issue(tb, docseed.Story{Type: sello.TypeConsumo, Units: 7})
		docs["other"] = seed.Issue(tb, docseed.Story{Buyer: "101000001", Units: 9, Delivery: sello.DeliveryDelivered})
		docs["failed"] = seed.Issue(tb, docseed.Story{Status: sello.StatusFailed})
		docs["conditional"] = seed.Issue(tb, docseed.Story{Status: sello.StatusAcceptedConditional, Delivery: sello.DeliveryFailed})
		docs["disputed"] = seed.Issue(tb, docseed.Story{Units: 12, Delivery: sello.DeliveryDelivered, Verdicts: []docseed.Verdict{maria,
			{Status: sello.ApprovalRejected, Reason: "Mercancía incompleta", Holder: "IDCDO-40200000009", Name: "Pedro Gómez"}}})
	}})
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "carmen@caribe.do", sello.RoleAccountant)
	p := s.NewPage(t)
	p.Login("carmen@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/documentos"]`)
	if got := p.Path(); got != "/portal/TesteCF/documentos" {
		t.Fatalf("the menu's Documentos lead to %s", got)
	}
	if got := len(p.Texts("#documents tbody tr")); got != len(docs) {
		t.Fatalf("the list shows %d documents, want %d", got, len(docs))
	}
	p.Look("documents")

	// Filter: accepted, to the buyer 131880681 (typed with dashes).
	p.Select("#documents-status", "accepted")
	p.Fill("#documents-buyer", "1-31-88068-1")
	p.Submit("#documents-filter-submit")
	rows := p.Texts("#documents tbody tr td:first-child")
	want := []string{docs["disputed"].ENCF}
	for i := 5; i >= 0; i-- {
		want = append(want, docs[fmt.Sprint("accepted", i)].ENCF)
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("filtered: %v, want %v", rows, want)
	}
	if p.Value("#documents-buyer") != "131880681" || p.Value("#documents-status") != "accepted" {
		t.Errorf("the form does not keep the filter: %q %q", p.Value("#documents-buyer"), p.Value("#documents-status"))
	}
	p.Look("documents-filtered")

	// The export link of the filtered list, as the browser downloads it
	// (with its session), against the API's list of the same filter.
	href := p.Attr("#documents-export", "href")
	if !strings.Contains(href, "comprador=131880681") || !strings.Contains(href, "estado=accepted") {
		t.Fatalf("the export link %q does not keep the filter", href)
	}
	csvText := await(t, p, fmt.Sprintf(`(async () => { const r = await fetch(%q); return r.status + '|' + r.headers.get('Content-Type') + '|' + (await r.text()); })()`, href))
	parts := strings.SplitN(csvText, "|", 3)
	if len(parts) != 3 || parts[0] != "200" || parts[1] != "text/csv; charset=utf-8" {
		t.Fatalf("the export: %q", csvText[:min(200, len(csvText))])
	}
	records, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(parts[2], "\uFEFF"))).ReadAll()
	if err != nil {
		t.Fatalf("the export's CSV: %v", err)
	}
	k, key := sello.NewAPIKey(s.Tenant.ID, sello.EnvTest, "contabilidad", []sello.Scope{sello.ScopeRead}, nil)
	if err := s.Store.CreateAPIKey(t.Context(), k); err != nil {
		t.Fatal(err)
	}
	status, listed := s.API(t, key, "GET", "/TesteCF/documentos-ecf?"+url.Values{"status": {"accepted"}, "buyer": {"131880681"}, "limit": {"200"}}.Encode(), nil)
	var page struct{ Data []map[string]any }
	if status != http.StatusOK || json.Unmarshal([]byte(listed), &page) != nil {
		t.Fatalf("the API's list: %d %s", status, listed)
	}
	if len(records) != len(page.Data)+1 || len(page.Data) != len(want) {
		t.Fatalf("the export has %d rows, the API lists %d, want %d", len(records)-1, len(page.Data), len(want))
	}
	header := records[0]
	for i, doc := range page.Data {
		for _, col := range []string{"id", "encf", "status", "buyerRnc", "total", "createdAt", "updatedAt", "securityCode", "delivery.status", "commercialApproval.status"} {
			j := slices.Index(header, col)
			if j < 0 {
				t.Fatalf("the export has no column %s: %q", col, header)
			}
			var v any = doc
			for _, name := range strings.Split(col, ".") {
				v = v.(map[string]any)[name]
			}
			if got := records[i+1][j]; got != fmt.Sprint(v) {
				t.Errorf("row %d %s: %q, the API says %v", i+1, col, got, v)
			}
		}
	}

	// The disputed document's story.
	p.Submit(fmt.Sprintf(`#documents a[href="/portal/TesteCF/documentos/%s"]`, docs["disputed"].ENCF))
	if got := p.Path(); got != "/portal/TesteCF/documentos/"+docs["disputed"].ENCF {
		t.Fatalf("the row's link leads to %s", got)
	}
	steps := p.Texts("#document-timeline li .step-title strong")
	if wantSteps := []string{"En cola para firmar", "Firmado", "Enviado a la DGII", "Aceptado por la DGII", "Entregado al comprador",
		"Aprobación comercial del comprador recibida", "Aprobación comercial del comprador en disputa"}; !slices.Equal(steps, wantSteps) {
		t.Fatalf("the timeline: %q, want %q", steps, wantSteps)
	}
	events, err := s.Store.FindDocumentEvents(t.Context(), s.Tenant.ID, sello.EnvTest, docs["disputed"].ID)
	if err != nil {
		t.Fatal(err)
	}
	times := p.Texts("#document-timeline li time")
	for i, ev := range events {
		if want := ev.CreatedAt.In(sello.DRZone).Format("02/01/2006 15:04:05"); times[i] != want {
			t.Errorf("step %d at %q, want %q (DR time)", i+1, times[i], want)
		}
	}
	p.WantText("Aceptado", "entregada", "en disputa", "Veredicto 1: aprobada", "IDCDO-00100000001", "Veredicto 2: rechazada",
		"IDCDO-40200000009", "Mercancía incompleta", "Descargar el XML", "Descargar el PDF")
	// Its webhook deliveries, delivered by the worker to the receiver.
	deadline := time.Now().Add(15 * time.Second)
	for len(p.Texts(".state-delivery-succeeded")) < len(events) {
		if time.Now().After(deadline) {
			t.Fatalf("the webhook deliveries of the document's %d events: %q", len(events), p.Texts("#deliveries tbody tr"))
		}
		time.Sleep(200 * time.Millisecond)
		p.Go(p.Path())
	}
	p.Look("document")
	browsertest.Eval[bool](p, `document.getElementById('document-timeline-title').scrollIntoView(); true`)
	p.Look("document-timeline")
	browsertest.Eval[bool](p, `document.getElementById('document-buyer-title').scrollIntoView(); true`)
	p.Look("document-approval-disputed")

	// The files, as the browser downloads them.
	for kind, ctype := range map[string]string{"xml": "application/xml", "pdf": "application/pdf"} {
		got := await(t, p, fmt.Sprintf(`(async () => { const r = await fetch(document.querySelector('#document-%s').href); const b = await r.arrayBuffer(); return r.status + '|' + r.headers.get('Content-Type') + '|' + b.byteLength; })()`, kind))
		if !strings.HasPrefix(got, "200|"+ctype+"|") || strings.HasSuffix(got, "|0") {
			t.Errorf("the %s: %s", kind, got)
		}
	}

	// A delivery's link leads to its page in Webhooks.
	p.Submit("#deliveries tbody tr:first-child a")
	if got := p.Path(); !strings.HasPrefix(got, "/portal/TesteCF/webhooks/entregas/") {
		t.Fatalf("the delivery's link leads to %s", got)
	}
	p.WantText("ecf.queued")

	// A rejected document: DGII's answer.
	p.Go("/portal/TesteCF/documentos/" + docs["rejected"].ENCF)
	p.WantText("Rechazado por la DGII", "El RNC del comprador no se encuentra registrado.", "e-NCF consumido")
	p.Look("document-rejected")
}

// await evaluates an async JavaScript expression (a promise of a string)
// in the page: a fetch made by the page, with its session.
func await(tb testing.TB, p *browsertest.Page, expr string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(p.Context(), 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}
