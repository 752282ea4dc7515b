package storetest

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// CreateBench is one case of BenchCreates.
type CreateBench struct {
	Tenants, Clients int
}

// Name is the case's subbenchmark name.
func (c CreateBench) Name() string { return fmt.Sprintf("tenants=%d/clients=%d", c.Tenants, c.Clients) }

// CreateBenches are the cases each engine runs: one tenant's creates from
// 16 clients (as `sello bench --concurrency 16`), and 100 tenants' spread
// evenly, from 16 clients and from 100.
var CreateBenches = []CreateBench{{1, 16}, {100, 16}, {100, 100}}

// BenchCreates measures document creates through s: b.N of type 31 in
// TesteCF from c.Clients goroutines at once, spread evenly over c.Tenants
// new tenants (create i goes to tenant i mod c.Tenants), each with a range
// that b.N fits in. It reports creates/s.
func BenchCreates(b *testing.B, s sello.Store, c CreateBench) {
	tenants := benchTenants(b, s, c.Tenants)
	benchClients(b, c.Clients, func(i int64) error {
		_, _, err := s.CreateDocument(b.Context(), newDoc(tenants[i%int64(len(tenants))], sello.EnvTest, sello.TypeCreditoFiscal))
		return err
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// benchTenants creates n tenants, each with a type 31 range in TesteCF
// that b.N documents fit in.
func benchTenants(b *testing.B, s sello.Store, n int) []string {
	tenants := make([]string, n)
	for i := range tenants {
		tn := MustCreateTenant(b, s)
		MustAddSequence(b, s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, int64(b.N+1))
		tenants[i] = tn.ID
	}
	return tenants
}

// benchClients runs one(i) for i in [0, b.N) from clients goroutines at
// once, with the benchmark's timer running; a client stops at its first
// error, which fails the benchmark.
func benchClients(b *testing.B, clients int, one func(i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				if err := one(i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
}

// benchSignedXML is a signed e-CF's size and shape (3.5 KB: a few items,
// then base64 that no compressor shrinks), as `sello bench` signs them.
var benchSignedXML = func() []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado><DetallesItems>`)
	for i := range 3 {
		fmt.Fprintf(&b, `<Item><NumeroLinea>%d</NumeroLinea><NombreItem>Artículo</NombreItem><CantidadItem>1.00</CantidadItem><MontoItem>1000.00</MontoItem></Item>`, i+1)
	}
	noise := make([]byte, 2200)
	for i := range noise {
		noise[i] = byte(i*7919 + i*i*31 + i>>3) // fixed, no repeats a compressor finds
	}
	b.WriteString(`</DetallesItems><Signature><X509Certificate>` + base64.StdEncoding.EncodeToString(noise) + `</X509Certificate></Signature></ECF>`)
	return []byte(b.String())
}()

// BenchLifecycle measures documents' lives through s: b.N of type 31 in
// TesteCF from c.Clients goroutines at once, spread over c.Tenants new
// tenants as BenchCreates does, each created and then taken through the
// worker's four changes, each its own transaction with its event:
// signed (with a 3.5 KB signed XML), submitted, accepted (DGII's
// verdict) and delivered. It reports documents/s and the changes' mean
// time (ns/change).
func BenchLifecycle(b *testing.B, s sello.Store, c CreateBench) {
	tenants := benchTenants(b, s, c.Tenants)
	at := time.Date(2026, time.November, 27, 10, 0, 0, 0, sello.DRZone)
	changes := []sello.DocumentChange{
		{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned, SignedXML: benchSignedXML,
			SecurityCode: "Ab3dE6", SignedAt: &at, QRURL: "https://ecf.dgii.gov.do/testecf/ConsultaTimbre?RncEmisor=101000001&CodigoSeguridad=Ab3dE6",
			EventType: sello.EventECFSigned, Message: "e-CF signed."},
		{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "trk-bench",
			EventType: sello.EventECFSubmitted, Message: "e-CF submitted."},
		{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusAccepted, DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado"},
			Delivery: &sello.Delivery{Status: sello.DeliveryPending}, EventType: sello.EventECFAccepted, Message: "e-CF accepted."},
		{DeliveryFrom: []string{sello.DeliveryPending}, Delivery: &sello.Delivery{Status: sello.DeliveryDelivered},
			EventType: sello.EventECFDelivered, Message: "e-CF delivered."},
	}
	var inChanges atomic.Int64
	benchClients(b, c.Clients, func(i int64) error {
		tenant := tenants[i%int64(len(tenants))]
		doc, _, err := s.CreateDocument(b.Context(), newDoc(tenant, sello.EnvTest, sello.TypeCreditoFiscal))
		if err != nil {
			return err
		}
		start := time.Now()
		for _, ch := range changes {
			if _, err := s.UpdateDocument(b.Context(), tenant, sello.EnvTest, doc.ID, ch); err != nil {
				return fmt.Errorf("%s to %q: %w", doc.ENCF, ch.Status, err)
			}
		}
		inChanges.Add(int64(time.Since(start)))
		return nil
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(inChanges.Load())/float64(b.N*len(changes)), "ns/change")
}
