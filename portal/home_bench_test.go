package portal_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// busyYear gives the site's tenant 10,000 documents issued in TesteCF
// over the last eleven months and this one (E31, E32 and one E34 in ten;
// most accepted, some rejected or accepted with conditions, the newest on
// their way) and 1,000 received (most confirmed by DGII), written by four
// writers at once. It returns the site's owner, logged in.
func busyYear(tb testing.TB, site *Site) *Browser {
	tb.Helper()
	s, tn := site.Store, site.Tenant
	today := sello.TodayInDR(site.Clock.Now())
	first := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, time.UTC)
	span := int(time.Date(today.Year, today.Month, today.Day, 0, 0, 0, 0, time.UTC).Sub(first.AddDate(0, -(sello.OverviewMonths-1), 0)).Hours() / 24)
	types := []sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo, sello.TypeNotaCredito}
	for _, typ := range types {
		storetest.MustAddSequence(tb, s, tn.ID, sello.EnvTest, typ, 1, 1e9)
	}
	const issued, received, writers = 10000, 1000, 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < issued; i += writers {
				day := sello.DateOf(time.Date(today.Year, today.Month, today.Day, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(i % span)))
				typ := types[i%2]
				if i%10 == 9 {
					typ = sello.TypeNotaCredito
				}
				doc, _, err := s.CreateDocument(tb.Context(), homeDraft(tn.ID, sello.EnvTest, typ, day, fmt.Sprintf("%d.%02d", 500+i%9000, i%100), fmt.Sprintf("%d.%02d", 90+i%1600, i%100)))
				if err != nil {
					tb.Error(err)
					return
				}
				st := sello.StatusAccepted
				switch {
				case i < 50:
					continue // the newest: on their way
				case i%20 == 3:
					st = sello.StatusRejected
				case i%20 == 7:
					st = sello.StatusAcceptedConditional
				}
				if _, err := s.UpdateDocument(tb.Context(), tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: st}); err != nil {
					tb.Error(err)
					return
				}
			}
			for i := w; i < received; i += writers {
				day := sello.DateOf(time.Date(today.Year, today.Month, today.Day, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(i % span)))
				d, _, err := s.CreateInboundDocument(tb.Context(), homeInbound(tn.ID, int64(i+1), day, fmt.Sprintf("%d", 1000+i), fmt.Sprintf("%d.50", 150+i)), 0)
				if err != nil {
					tb.Error(err)
					return
				}
				if i%10 != 0 {
					if _, err := s.RecordInboundDGII(tb.Context(), tn.ID, sello.EnvTest, d.ID, sello.InboundDGIIAnswer{Codigo: 1, Estado: "Aceptado"}); err != nil {
						tb.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	site.MustUser(tb, "ana@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(tb)
	b.MustLogin("ana@caribe.do")
	return b
}

// TestHomeWeight: Inicio of a company with 10,000 documents issued and
// 1,000 received weighs under 200 KB with its assets as sent (logged for
// docs/benchmarks.md): its charts and tables are a month's days and a
// year's months, whatever the number of documents.
func TestHomeWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 11,000 documents")
	}
	site := MustSite(t)
	start := time.Now()
	owner := busyYear(t, site)
	t.Logf("10,000 documents and 1,000 received written in %s", time.Since(start).Round(time.Millisecond))
	measurePage(t, owner, "inicio", "/")
	wantText(t, owner.Get("/"), "Este mes:")
}

// BenchmarkHome measures Inicio's server time with 10,000 documents issued
// and 1,000 received: the handler alone, in process (the session's
// lookup, the layout's reads of DGII's state, the day totals, the ranges,
// certificates and failed deliveries, the sums and the render), on SQLite
// and, with SELLO_TEST_DATABASE_URL, on PostgreSQL; and its two reads of
// the day totals alone.
func BenchmarkHome(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var site *Site
			if engine == "sqlite" {
				site = MustSite(b)
			} else {
				pgtest.DatabaseURL(b)
				db, err := postgres.Open(b.Context(), pgtest.MustSchema(b))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { db.Close() })
				site = MustSiteOn(b, db)
			}
			owner := busyYear(b, site)
			benchPage(b, site, owner, "inicio", "/", true)
			from, to := sello.OverviewRange(sello.TodayInDR(site.Clock.Now()))
			b.Run("day-totals", func(b *testing.B) {
				for b.Loop() {
					is, err := site.Store.FindIssuedTotals(b.Context(), site.Tenant.ID, sello.EnvTest, from, to)
					if err != nil {
						b.Fatal(err)
					}
					rs, err := site.Store.FindReceivedTotals(b.Context(), site.Tenant.ID, sello.EnvTest, from, to)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(len(is)+len(rs)), "rows")
				}
			})
		})
	}
}
