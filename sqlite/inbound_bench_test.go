package sqlite

import (
	"bytes"
	"crypto/sha256"
	"syscall"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/storetest"
)

// BenchmarkCreateInbound is the store's part of a receipt
// (CreateInboundDocument, one transaction: the e-NCF's lookups, the
// document of a 3 KB e-CF and its 2.5 KB acuse, its event, its
// confirmation's queue entry, its issuer's hourly count), a new document
// each iteration, built before the timer. cpu-ns/op is the process's CPU
// time (all its threads: the store's committer included), which a busy
// machine distorts less than the wall time.
func BenchmarkCreateInbound(b *testing.B) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	db := mustOpenInternal(b)
	tn := storetest.MustCreateTenant(b, db)
	acuse := bytes.Repeat([]byte("a"), 2500) // a signed ARECF's size
	docs := make([]*sello.InboundDocument, b.N)
	for i := range docs {
		e := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: int64(i + 1)}.String()
		body := append([]byte("<ECF><eNCF>"+e+"</eNCF>"), bytes.Repeat([]byte("x"), 3<<10)...)
		docs[i] = &sello.InboundDocument{
			TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: e,
			IssuerRNC: "131000007", IssuerName: "Proveedor SRL", BuyerRNC: tn.RNC,
			IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9}, Total: "1180.00",
			XML: body, XMLSum: sha256.Sum256(body), Acuse: acuse, SecurityCode: "q7Xk2P",
		}
	}
	b.ResetTimer()
	c0 := cpu()
	for _, d := range docs {
		if _, _, err := db.CreateInboundDocument(b.Context(), d, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpu()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
