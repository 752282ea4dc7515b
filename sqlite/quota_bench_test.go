package sqlite

import (
	"bytes"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// BenchmarkIssuerQuota is the per-issuer quota's count with n documents of
// the issuer in the window, none accepted by DGII, of a small (3 KB) and a
// large (287 KB) e-CF, each with a 2.5 KB acuse; and, for comparison, the
// same count reading each row's dgii_status, which a row keeps behind its
// XML and acuse: past a page, SQLite walks the row's chain of overflow
// pages to reach it. ns/doc is per document in the window. Hours is what
// a receipt runs now (CountInboundFromIssuerHours): the sum of the
// issuer's hourly counts, whose cost does not grow with the documents.
func BenchmarkIssuerQuota(b *testing.B) {
	const issuer = "131000007"
	for _, c := range []struct {
		name string
		size int
		n    int
	}{{"3KB", 3 << 10, 1000}, {"3KB10k", 3 << 10, 10_000}, {"287KB", 287 << 10, 100}} {
		b.Run(c.name, func(b *testing.B) {
			db := mustOpenInternal(b)
			tn := storetest.MustCreateTenant(b, db)
			since := time.Now().Add(-time.Hour)
			acuse := bytes.Repeat([]byte("a"), 2500) // a signed ARECF's size
			for i := range c.n {
				e := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: int64(i + 1)}.String()
				body := append([]byte("<ECF><eNCF>"+e+"</eNCF>"), bytes.Repeat([]byte("x"), c.size)...)
				if _, _, err := db.CreateInboundDocument(b.Context(), &sello.InboundDocument{
					TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: e,
					IssuerRNC: issuer, IssuerName: "Proveedor SRL", BuyerRNC: tn.RNC,
					IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: "1180.00",
					XML: body, Acuse: acuse, SecurityCode: "q7Xk2P",
				}, 0); err != nil {
					b.Fatal(err)
				}
			}
			for _, q := range []struct{ name, sql string }{
				{"Index", countInboundFromIssuerSQL},
				{"Rows", `SELECT count(*), min(received_at) FROM inbound_documents NOT INDEXED
					WHERE tenant_id = ? AND environment = ? AND issuer_rnc = ? AND received_at >= ?
					  AND (dgii_status IS NULL OR dgii_status <> 'accepted')`},
			} {
				b.Run(q.name, func(b *testing.B) {
					for b.Loop() {
						var n int
						var earliest *string
						if err := db.q().queryRow(b.Context(), q.sql, tn.ID, sello.EnvTest, issuer, formatTime(since)).Scan(&n, &earliest); err != nil {
							b.Fatal(err)
						} else if n != c.n {
							b.Fatalf("counted %d, want %d", n, c.n)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.n), "ns/doc")
				})
			}
			b.Run("Hours", func(b *testing.B) {
				for b.Loop() {
					if n, err := db.CountInboundFromIssuerHours(b.Context(), tn.ID, sello.EnvTest, issuer, since); err != nil {
						b.Fatal(err)
					} else if n != c.n {
						b.Fatalf("counted %d, want %d", n, c.n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.n), "ns/doc")
			})
		})
	}
}
