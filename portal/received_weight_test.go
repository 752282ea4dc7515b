package portal_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/storetest"
)

// receivedSite is a company that received 1,000 e-CFs in TesteCF (every
// fifth one DGII has not confirmed yet), approved one (both legs sent)
// and has one of its own documents' approvals disputed: the Recibidos
// pages at their fullest in ordinary use, with an accountant logged in.
func receivedSite(tb testing.TB) (site *Site, accountant *Browser, pages []struct{ name, path string }) {
	tb.Helper()
	site = MustSite(tb)
	site.MustUser(tb, "ana@caribe.do", sello.RoleOwner)
	site.MustUser(tb, "marta@caribe.do", sello.RoleAccountant)
	var first *sello.InboundDocument
	for n := int64(1); n <= 1000; n++ {
		codigo := dgiiAccepted
		if n%5 == 0 {
			codigo = dgiiNone
		}
		d := mustReceived(tb, site.Store, site.Tenant, sello.EnvTest, n, codigo)
		if first == nil {
			first = d
		}
	}
	if _, err := site.Store.ApproveInboundDocument(tb.Context(), site.Tenant.ID, sello.EnvTest, sello.ApprovalRequest{InboundDocumentID: first.ID, Estado: sello.EstadoAprobado}); err != nil {
		tb.Fatal(err)
	}
	if _, err := site.Store.RecordApprovalOutcome(tb.Context(), site.Tenant.ID, sello.EnvTest, first.ID, sello.ApprovalOutcome{
		ACECF: []byte("<ACECF/>"), Issuer: &sello.ApprovalLeg{Status: sello.ApprovalSendSent}, DGII: &sello.ApprovalLeg{Status: sello.ApprovalSendSent},
	}); err != nil {
		tb.Fatal(err)
	}
	storetest.MustDisputedDocument(tb, site.Store, site.Tenant, sello.EnvTest)
	accountant = site.NewBrowser(tb)
	accountant.MustLogin("marta@caribe.do")
	return site, accountant, []struct{ name, path string }{
		{"received", recvPath},
		{"received-filtered", recvPath + "?dgii=accepted&emisor=131880681&desde=2020-01-01"},
		{"received-document", recvPath + "/" + first.ID},
		{"received-disputes", recvPath + "/disputas"},
		{"receptor", "/portal/TesteCF/receptor"},
	}
}

// TestReceivedPagesWeight: the Recibidos and Receptor pages, full, with
// what they load, weigh under 200 KB as sent (logged for
// docs/benchmarks.md).
func TestReceivedPagesWeight(t *testing.T) {
	_, accountant, pages := receivedSite(t)
	for _, p := range pages {
		measurePage(t, accountant, p.name, p.path)
	}
}

// BenchmarkReceivedPages measures the server time of the Recibidos and
// Receptor pages, full, in process on SQLite, and of the API's GET
// /TesteCF/documentos-recibidos (a page of 50, the same store read) in
// the same run.
func BenchmarkReceivedPages(b *testing.B) {
	site, accountant, pages := receivedSite(b)
	for _, p := range pages {
		benchPage(b, site, accountant, p.name, p.path, true)
	}
	k, key := sello.NewAPIKey(site.Tenant.ID, sello.EnvTest, "bench", []sello.Scope{sello.ScopeRead}, nil)
	if err := site.Store.CreateAPIKey(b.Context(), k); err != nil {
		b.Fatal(err)
	}
	// The API's rate limit is not what is measured.
	if err := site.Store.UpdateTenantPlan(b.Context(), site.Tenant.ID, sello.RatePlan{Name: "bench", Rate: 1e9, Burst: 1 << 30}); err != nil {
		b.Fatal(err)
	}
	h := (&api.Server{Store: site.Store, Logger: slog.New(slog.DiscardHandler)}).Handler()
	for _, q := range []struct{ name, path string }{
		{"api-received", "/TesteCF/documentos-recibidos?limit=50"},
		{"api-received-filtered", "/TesteCF/documentos-recibidos?limit=50&dgii=accepted&issuer=131880681&from=2020-01-01T00:00:00Z"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", q.path, nil)
				req.Header.Set("X-API-KEY", key)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", q.path, rec.Code, rec.Body)
				}
			}
		})
	}
}
