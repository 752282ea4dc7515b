package api_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/ecf"
)

// BenchmarkRecepcionVsRSA measures the tenant's receiver (read the upload,
// verify the supplier's signature, check, store the document and its acuse,
// sign the ARECF) on a 1 KB and a 1,000-item e-CF, beside a raw RSA-2048
// signature with the tenant's key in every iteration: the receiver signs one
// ARECF, so one signature is its floor (target ≤ 2× for 1 KB). Every check
// of a genuine delivery in eCF is on: the per-address and per-receiver rate
// limits (set too high to refuse), the bearer token bought with the
// supplier's signed seed and its holder, the signer's certificate chained
// to the trust roots, the issuer's quota counted, and the document queued
// for its confirmation with DGII. recv/rsa is the ratio of wall times;
// recv-cpu/rsa-cpu the ratio of the process's CPU time in each (all its
// threads: the store's writer and the GC included), which a busy machine
// distorts less. Each iteration posts a new document; the supplier signs
// them all, and their multipart bodies are built, before the timer starts,
// and that garbage is collected then: the figures are the receiver's alone.
func BenchmarkRecepcionVsRSA(b *testing.B) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, items := range []int{1, 1000} {
		b.Run(fmt.Sprintf("%dItems", items), func(b *testing.B) {
			mustTrustKeys(b)
			limits := unlimitedReceivers
			limits.IssuerQuota = max(sello.DefaultReceiverLimits.IssuerQuota, b.N+1)
			f := mustReceiverFixture(b, false).with(func(s *api.Server) { s.ReceiverLimits = &limits }).trusting(testRoots(b))
			token := f.mustToken(b, sello.EnvProd, trustKeys.supplier)
			path := receptor(sello.EnvProd, "recepcion")
			digest := sha256.Sum256([]byte("baseline"))
			var recv, raw, recvCPU, rawCPU time.Duration
			bodies, types := make([][]byte, b.N), make([]string, b.N)
			size := 0
			for i := range bodies {
				doc, err := trustKeys.supplier.Sign(unsignedECFItems(b, testRNC, int64(i+1), items))
				if err != nil {
					b.Fatal(err)
				}
				bodies[i], types[i] = upload(b, supplierRNC+encfOf(doc)+".xml", doc)
				size = len(doc)
			}
			runtime.GC()
			b.ResetTimer()
			for i, body := range bodies {
				c0, t0 := cpu(), time.Now()
				rec := f.raw(path, token, types[i], body)
				t1, c1 := time.Now(), cpu()
				if _, err := rsa.SignPKCS1v15(rand.Reader, tenantKey, crypto.SHA256, digest[:]); err != nil {
					b.Fatal(err)
				}
				recv, raw = recv+t1.Sub(t0), raw+time.Since(t1)
				recvCPU, rawCPU = recvCPU+c1-c0, rawCPU+cpu()-c1
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte("<Estado>0</Estado>")) {
					b.Fatalf("reception: %d %s", rec.Code, rec.Body)
				}
			}
			b.StopTimer()
			if d := f.wantStored(b, sello.EnvProd, int64(b.N), true); d.Signer == nil || !d.Signer.Trusted {
				b.Fatalf("the last document's signer: got %+v, want the supplier's, trusted", d.Signer)
			}
			b.ReportMetric(float64(recv.Nanoseconds())/float64(b.N), "recv-ns/op")
			b.ReportMetric(float64(raw.Nanoseconds())/float64(b.N), "rsa-ns/op")
			b.ReportMetric(float64(recv)/float64(raw), "recv/rsa")
			b.ReportMetric(float64(recvCPU)/float64(rawCPU), "recv-cpu/rsa-cpu")
			b.ReportMetric(float64(size), "doc-bytes")
		})
	}
}

// BenchmarkRecepcionUnderENCF measures the receipt of a new document
// under an issuer's e-NCF that already holds held others, none confirmed
// by DGII, each of fillerBytes: what a forger posting many documents under
// one e-NCF makes each receipt cost. Each iteration posts another
// different, validly signed 1-item e-CF under the same e-NCF (no quota per
// e-NCF, so each is kept: the e-NCF holds held+i documents at iteration
// i). The receipt should cost the same for 1 and 100 held: the lookup
// reads the same bytes and the accepted one by index, never the others.
func BenchmarkRecepcionUnderENCF(b *testing.B) {
	const fillerBytes = 256 << 10
	for _, held := range []int{1, 100} {
		b.Run(fmt.Sprintf("%dHeld", held), func(b *testing.B) {
			f := mustReceiverFixture(b, true)
			filler := bytes.Repeat([]byte("x"), fillerBytes)
			for i := range held {
				d := &sello.InboundDocument{
					TenantID: f.tenant.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: "E310000000001",
					IssuerRNC: supplierRNC, IssuerName: "Proveedor", BuyerRNC: testRNC, IssueDate: sello.Date{Year: 2026, Month: 3, Day: 9},
					Total: "1180.00", XML: append([]byte(fmt.Sprintf("<ECF>%d</ECF>", i)), filler...), Acuse: []byte("<ARECF/>"), SecurityCode: "AAAAAA",
				}
				if _, _, err := f.store.CreateInboundDocument(b.Context(), d, 0); err != nil {
					b.Fatal(err)
				}
			}
			bodies, types := make([][]byte, b.N), make([]string, b.N)
			for i := range bodies {
				doc, err := f.supplier.Sign(bytes.Replace(unsignedECF(b, testRNC, 1), []byte("Cliente Ejemplo SRL"), []byte(fmt.Sprintf("Cliente %d SRL", i)), 1))
				if err != nil {
					b.Fatal(err)
				}
				bodies[i], types[i] = upload(b, supplierRNC+"E310000000001.xml", doc)
			}
			runtime.GC()
			b.ResetTimer()
			for i, body := range bodies {
				rec := f.raw(recepcion, "", types[i], body)
				if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte("<Estado>0</Estado>")) {
					b.Fatalf("reception: %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// unsignedECFItems is a valid type-31 e-CF numbered n from the supplier to
// buyer, with items items (1: the sample invoice's own), before its
// signature.
func unsignedECFItems(tb testing.TB, buyer string, n int64, items int) []byte {
	tb.Helper()
	return unsignedECFAt(tb, buyer, n, items, time.Now())
}

// unsignedECFAt is unsignedECFItems issued and signed (FechaHoraFirma) at
// now.
func unsignedECFAt(tb testing.TB, buyer string, n int64, items int, now time.Time) []byte {
	tb.Helper()
	m := ecf.SampleInvoice(supplierRNC, sello.TodayInDR(now))
	m["ECF"].(map[string]any)["Encabezado"].(map[string]any)["Comprador"].(map[string]any)["RNCComprador"] = buyer
	if items > 1 {
		setItems(m, items)
	}
	body, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ecf.Parse(body, ecf.Issuance{TenantRNC: supplierRNC, Now: now})
	if err != nil {
		tb.Fatal(err)
	}
	expires := sello.Date{Year: 2099, Month: 12, Day: 31}
	if err := d.Number(sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}, &sello.Sequence{ExpiresOn: &expires}); err != nil {
		tb.Fatal(err)
	}
	x, err := d.XML(now.Truncate(time.Second))
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// setItems replaces the invoice's items by items of its own.
func setItems(m map[string]any, items int) {
	list := make([]any, items)
	for i := range list {
		list[i] = map[string]any{
			"NumeroLinea": i + 1, "IndicadorFacturacion": 1, "NombreItem": fmt.Sprintf("Artículo %d", i+1),
			"IndicadorBienoServicio": 1, "CantidadItem": 2, "PrecioUnitarioItem": "12.50",
		}
	}
	m["ECF"].(map[string]any)["DetallesItems"].(map[string]any)["Item"] = list
}
