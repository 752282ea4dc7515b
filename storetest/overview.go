package storetest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/shopspring/decimal"
)

// testOverview: the day totals of the month at a glance (OverviewStore).
// A document counts in the row of its FechaEmision, type and status from
// its creation; a change of status moves it from one row to the other in
// the change's transaction, and a change that keeps the status moves
// nothing; amounts are summed to the cent, in DOP; the range is inclusive
// at both ends; another tenant's and another environment's documents never
// count. Received documents count per DGII's confirmation, their amounts
// as their e-CF wrote them ("1180", "99.5").
func testOverview(t *testing.T, open Open) {
	t.Run("Issued", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, a.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, a.ID, sello.EnvTest, sello.TypeNotaCredito, 1, 100)
		MustAddSequence(t, e.s, a.ID, sello.EnvCert, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, b.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		mar9, mar10 := day(2026, 3, 9), day(2026, 3, 10)
		d1 := MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeCreditoFiscal, mar9, "1180.00", "180.00"))
		d2 := MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeCreditoFiscal, mar9, "118.50", "18.08"))
		d3 := MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeCreditoFiscal, mar10, "1000.00", ""))
		MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeNotaCredito, mar10, "100.00", "15.25"))
		MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeCreditoFiscal, day(2026, 2, 28), "5.00", "0.90"))
		MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvTest, sello.TypeCreditoFiscal, day(2026, 4, 1), "7.00", "1.26"))
		MustCreateDocument(t, e.s, dayDraft(a.ID, sello.EnvCert, sello.TypeCreditoFiscal, mar9, "50.00", "9.00"))
		MustCreateDocument(t, e.s, dayDraft(b.ID, sello.EnvTest, sello.TypeCreditoFiscal, mar9, "60.00", "10.80"))

		march := func() []sello.DayTotals {
			return mustIssuedTotals(t, e.s, a.ID, sello.EnvTest, day(2026, 3, 1), day(2026, 3, 31))
		}
		wantTotals(t, "created", march(), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, sello.IssuedInProcess, 2, "1298.50", "198.08"),
			totals(mar10, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "1000.00", "0.00"),
			totals(mar10, sello.TypeNotaCredito, sello.IssuedInProcess, 1, "100.00", "15.25"),
		})

		// Signed: still on its way, nothing moves.
		mustUpdate(t, e.s, d1, signChange())
		wantTotals(t, "signed", march(), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, sello.IssuedInProcess, 2, "1298.50", "198.08"),
			totals(mar10, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "1000.00", "0.00"),
			totals(mar10, sello.TypeNotaCredito, sello.IssuedInProcess, 1, "100.00", "15.25"),
		})
		mustUpdate(t, e.s, d1, sello.DocumentChange{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusAccepted})
		mustUpdate(t, e.s, d2, sello.DocumentChange{Status: sello.StatusRejected})
		// A change that keeps the status (the delivery's) moves nothing.
		mustUpdate(t, e.s, d3, sello.DocumentChange{Delivery: &sello.Delivery{Status: sello.DeliveryPending}})
		wantTotals(t, "changed", march(), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, "accepted", 1, "1180.00", "180.00"),
			totals(mar9, sello.TypeCreditoFiscal, "rejected", 1, "118.50", "18.08"),
			totals(mar10, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "1000.00", "0.00"),
			totals(mar10, sello.TypeNotaCredito, sello.IssuedInProcess, 1, "100.00", "15.25"),
		})

		// Both ends of the range count.
		wantTotals(t, "the range's first day", mustIssuedTotals(t, e.s, a.ID, sello.EnvTest, day(2026, 2, 28), day(2026, 2, 28)),
			[]sello.DayTotals{totals(day(2026, 2, 28), sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "5.00", "0.90")})
		wantTotals(t, "the range's last day", mustIssuedTotals(t, e.s, a.ID, sello.EnvTest, day(2026, 3, 10), day(2026, 4, 1)), []sello.DayTotals{
			totals(mar10, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "1000.00", "0.00"),
			totals(mar10, sello.TypeNotaCredito, sello.IssuedInProcess, 1, "100.00", "15.25"),
			totals(day(2026, 4, 1), sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "7.00", "1.26"),
		})
		// Another environment's and another tenant's are their own.
		wantTotals(t, "CerteCF", mustIssuedTotals(t, e.s, a.ID, sello.EnvCert, day(2026, 3, 1), day(2026, 3, 31)),
			[]sello.DayTotals{totals(mar9, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "50.00", "9.00")})
		wantTotals(t, "the other tenant", mustIssuedTotals(t, e.s, b.ID, sello.EnvTest, day(2026, 3, 1), day(2026, 3, 31)),
			[]sello.DayTotals{totals(mar9, sello.TypeCreditoFiscal, sello.IssuedInProcess, 1, "60.00", "10.80")})
		wantTotals(t, "no such tenant", mustIssuedTotals(t, e.s, sello.NewID(), sello.EnvTest, day(2026, 3, 1), day(2026, 3, 31)), nil)
	})

	t.Run("IssuedConcurrent", func(t *testing.T) {
		// Creates and changes at once, of documents of one day: every
		// one counts once, in its last status.
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 1000)
		const n = 12
		mar9 := day(2026, 3, 9)
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		for i := range 2 * n {
			wg.Go(func() {
				typ := []sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo}[i%2]
				doc, _, err := e.s.CreateDocument(t.Context(), dayDraft(tn.ID, sello.EnvTest, typ, mar9, "10.01", "1.53"))
				if err != nil {
					errs <- err
					return
				}
				for _, st := range []sello.Status{sello.StatusSigned, sello.StatusSubmitted, sello.StatusAccepted} {
					if _, err := e.s.UpdateDocument(t.Context(), tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: st}); err != nil {
						errs <- fmt.Errorf("%s to %s: %w", doc.ENCF, st, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		wantTotals(t, "after", mustIssuedTotals(t, e.s, tn.ID, sello.EnvTest, mar9, mar9), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, "accepted", n, "120.12", "18.36"),
			totals(mar9, sello.TypeConsumo, "accepted", n, "120.12", "18.36"),
		})
	})

	t.Run("Received", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		mar9 := day(2026, 3, 9)
		inbound := func(tenantID string, n int64, total, itbis string) *sello.InboundDocument {
			d := newInbound(tenantID, sello.EnvTest, "131000001", n)
			d.Total, d.ITBIS = total, itbis
			return MustCreateInbound(t, e.s, d)
		}
		r1 := inbound(a.ID, 1, "1180", "180")
		r2 := inbound(a.ID, 2, "99.5", "")
		inbound(a.ID, 3, "0.05", "0.01")
		inbound(b.ID, 1, "60.00", "10.80")
		if r1.ITBIS != "180" || r2.ITBIS != "" {
			t.Errorf("ITBIS as stored: %q, %q; want 180 and none, as written", r1.ITBIS, r2.ITBIS)
		}
		march := func() []sello.DayTotals {
			return mustReceivedTotals(t, e.s, a.ID, sello.EnvTest, day(2026, 3, 1), day(2026, 3, 31))
		}
		wantTotals(t, "received", march(), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, sello.DGIIPending, 3, "1279.55", "180.01"),
		})
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, r1.ID, 1, "Aceptado")
		MustRecordDGII(t, e.s, a.ID, sello.EnvTest, r2.ID, 2, "Rechazado")
		wantTotals(t, "confirmed", march(), []sello.DayTotals{
			totals(mar9, sello.TypeCreditoFiscal, sello.DGIIAccepted, 1, "1180.00", "180.00"),
			totals(mar9, sello.TypeCreditoFiscal, sello.DGIIPending, 1, "0.05", "0.01"),
			totals(mar9, sello.TypeCreditoFiscal, sello.DGIIRejected, 1, "99.50", "0.00"),
		})
		wantTotals(t, "CerteCF", mustReceivedTotals(t, e.s, a.ID, sello.EnvCert, day(2026, 3, 1), day(2026, 3, 31)), nil)
		wantTotals(t, "the other tenant", mustReceivedTotals(t, e.s, b.ID, sello.EnvTest, day(2026, 3, 1), day(2026, 3, 31)),
			[]sello.DayTotals{totals(mar9, sello.TypeCreditoFiscal, sello.DGIIPending, 1, "60.00", "10.80")})
		wantTotals(t, "another month", mustReceivedTotals(t, e.s, a.ID, sello.EnvTest, day(2026, 4, 1), day(2026, 4, 30)), nil)
	})

	t.Run("FailedWebhookDeliveries", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvCert)
		for range 3 {
			w.emit(t, sello.EnvTest)
		}
		w.emit(t, sello.EnvCert)
		ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
		if len(ds) != 3 {
			t.Fatalf("deliveries: got %d, want 3", len(ds))
		}
		count := func(tenantID string, env sello.Environment, limit int) int {
			t.Helper()
			n, err := w.s.CountFailedWebhookDeliveries(t.Context(), tenantID, env, limit)
			if err != nil {
				t.Fatalf("CountFailedWebhookDeliveries: %v", err)
			}
			return n
		}
		if n := count(w.tn.ID, sello.EnvTest, 100); n != 0 {
			t.Errorf("none failed: got %d", n)
		}
		mustRecord(t, w.s, attempt(ds[0], w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		mustRecord(t, w.s, attempt(ds[1], w.clock.Peek(), 410), sello.WebhookOutcome{Status: sello.WebhookFailed})
		mustRecord(t, w.s, attempt(ds[2], w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: w.clock.Peek().Add(time.Minute)})
		cert := mustDeliveries(t, w.s, w.tn.ID, sello.EnvCert, sello.WebhookDeliveryFilter{})
		mustRecord(t, w.s, attempt(cert[0], w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		if n := count(w.tn.ID, sello.EnvTest, 100); n != 2 {
			t.Errorf("two failed, one to retry: got %d, want 2", n)
		}
		if n := count(w.tn.ID, sello.EnvTest, 1); n != 1 {
			t.Errorf("limit 1: got %d, want 1", n)
		}
		if n := count(w.tn.ID, sello.EnvCert, 100); n != 1 {
			t.Errorf("CerteCF: got %d, want 1", n)
		}
		other := MustCreateTenant(t, w.s)
		if n := count(other.ID, sello.EnvTest, 100); n != 0 {
			t.Errorf("another tenant: got %d, want 0", n)
		}
	})
}

func day(y int, m time.Month, d int) sello.Date { return sello.Date{Year: y, Month: m, Day: d} }

// dayDraft is a create of typ with the next number, issued on issued with
// total and itbis (MontoTotal and TotalITBIS; itbis "" for none).
func dayDraft(tenantID string, e sello.Environment, typ sello.DocumentType, issued sello.Date, total, itbis string) sello.DocumentDraft {
	return sello.DocumentDraft{TenantID: tenantID, Environment: e, Type: typ,
		Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			payload, _ := json.Marshal(map[string]any{"ECF": map[string]any{"eNCF": n.String()}})
			return &sello.PreparedDocument{Payload: payload, Total: total, ITBIS: itbis, BuyerRNC: "131880681", IssueDate: issued}, nil
		}}
}

func totals(d sello.Date, typ sello.DocumentType, state string, n int64, total, itbis string) sello.DayTotals {
	return sello.DayTotals{Day: d, Type: typ, State: state, Count: n, Total: mustDecimal(total), ITBIS: mustDecimal(itbis)}
}

func mustIssuedTotals(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, from, to sello.Date) []sello.DayTotals {
	tb.Helper()
	got, err := s.FindIssuedTotals(tb.Context(), tenantID, env, from, to)
	if err != nil {
		tb.Fatalf("FindIssuedTotals: %v", err)
	}
	return got
}

func mustReceivedTotals(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, from, to sello.Date) []sello.DayTotals {
	tb.Helper()
	got, err := s.FindReceivedTotals(tb.Context(), tenantID, env, from, to)
	if err != nil {
		tb.Fatalf("FindReceivedTotals: %v", err)
	}
	return got
}

// wantTotals compares day totals in any order, amounts by value.
func wantTotals(tb testing.TB, what string, got, want []sello.DayTotals) {
	tb.Helper()
	key := func(a, b sello.DayTotals) int {
		return cmp.Or(a.Day.Compare(b.Day), cmp.Compare(a.Type, b.Type), cmp.Compare(a.State, b.State))
	}
	got, want = slices.Clone(got), slices.Clone(want)
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		g, w := got[i], want[i]
		same = key(g, w) == 0 && g.Count == w.Count && g.Total.Equal(w.Total) && g.ITBIS.Equal(w.ITBIS)
	}
	if !same {
		tb.Errorf("%s: day totals\n got  %s\n want %s", what, formatTotals(got), formatTotals(want))
	}
}

func formatTotals(ts []sello.DayTotals) string {
	s := ""
	for _, t := range ts {
		s += fmt.Sprintf("[%s %s %s ×%d %s %s] ", t.Day, t.Type, t.State, t.Count, t.Total, t.ITBIS)
	}
	return s
}

func mustDecimal(s string) decimal.Decimal { return decimal.RequireFromString(s) }
