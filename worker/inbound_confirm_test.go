package worker_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/worker"
	"github.com/sello-do/sello/xmldsig"
)

// confirmTest is a tenant with a certificate (the buyer), a worker whose
// DGII is a simulator over HTTP asking again every 20 ms, and a supplier
// that sends its e-CFs to that DGII.
type confirmTest struct {
	*hookTest
	sim      *dgiisim.Simulator
	supplier *dgii.Session
	signer   *xmldsig.Signer
}

const confirmSupplierRNC = "131000777"

func mustConfirmTest(t *testing.T, st storetest.Store) *confirmTest {
	t.Helper()
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify})
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	client := dgii.New(dgii.Config{URLs: dgii.URLs{ECF: ts.URL}})
	h := mustHookTest(t, st, worker.Config{
		DGII:         client,
		ConfirmDelay: func(time.Duration) time.Duration { return 20 * time.Millisecond },
	})
	h.mustCertificate(t, "Comprador de prueba")
	s := mustSigner(t, "Proveedor de prueba")
	h.start(t)
	return &confirmTest{hookTest: h, sim: sim, signer: s, supplier: client.Session(sello.EnvTest, confirmSupplierRNC,
		func(_ context.Context, x []byte) ([]byte, error) { return s.Sign(x) })}
}

// signed is the supplier's e-CF n to the tenant, signed; variant changes
// its content (another document under the same e-NCF).
func (c *confirmTest) signed(t *testing.T, n int64, variant string) []byte {
	t.Helper()
	golden, err := os.ReadFile(filepath.Join("..", "ecf", "testdata", "golden", "E31.xml"))
	if err != nil {
		t.Fatal(err)
	}
	x := rncEmisorRE.ReplaceAll(golden, []byte("<RNCEmisor>"+confirmSupplierRNC+"</RNCEmisor>"))
	x = rncCompradorRE.ReplaceAll(x, []byte("<RNCComprador>"+c.tenant.RNC+"</RNCComprador>"))
	x = encfRE.ReplaceAll(x, []byte("<eNCF>"+sello.ENCF{Type: sello.TypeCreditoFiscal, Number: n}.String()+"</eNCF>"))
	if variant != "" {
		x = bytes.Replace(x, []byte("</RazonSocialEmisor>"), []byte(" "+variant+"</RazonSocialEmisor>"), 1)
	}
	out, err := c.signer.Sign(x)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// toDGII sends signed to DGII (the simulator) as the supplier.
func (c *confirmTest) toDGII(t *testing.T, signed []byte) {
	t.Helper()
	h, err := ecf.ParseECFHeader(signed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.supplier.SendECF(t.Context(), h.ENCF, signed); err != nil {
		t.Fatal(err)
	}
}

// received stores signed as received by the tenant, which queues its
// confirmation.
func (c *confirmTest) received(t *testing.T, signed []byte) *sello.InboundDocument {
	t.Helper()
	h, err := ecf.ParseECFHeader(signed)
	if err != nil {
		t.Fatal(err)
	}
	return storetest.MustCreateInbound(t, c.st, &sello.InboundDocument{
		TenantID: c.tenant.ID, Environment: sello.EnvTest, Type: h.TipoeCF, ENCF: h.ENCF,
		IssuerRNC: h.RNCEmisor, IssuerName: h.RazonSocialEmisor, BuyerRNC: h.RNCComprador,
		IssueDate: h.FechaEmision, Total: h.MontoTotal, XML: signed, Acuse: []byte("<ARECF/>"),
		SecurityCode: h.SecurityCode,
	})
}

// waitDGII waits (20 s at most) until the document's confirmation holds
// cond, and returns the document.
func (c *confirmTest) waitDGII(t *testing.T, d *sello.InboundDocument, cond func(*sello.InboundDGII) bool) *sello.InboundDocument {
	t.Helper()
	var got *sello.InboundDocument
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if got, err = c.st.FindInboundDocument(t.Context(), d.TenantID, d.Environment, d.ID); err != nil {
			t.Fatal(err)
		}
		return cond(got.DGII)
	}) {
		t.Fatalf("inbound document %s: dgii %+v after 20 s", d.ID, got.DGII)
	}
	return got
}

func dgiiIs(s string) func(*sello.InboundDGII) bool {
	return func(g *sello.InboundDGII) bool { return g.Status == s }
}

func TestInboundConfirm(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		c := mustConfirmTest(t, st)
		t.Run("Accepted", func(t *testing.T) {
			doc := c.signed(t, 1, "")
			c.toDGII(t, doc)
			d := c.waitDGII(t, c.received(t, doc), dgiiIs(sello.DGIIAccepted))
			if *d.DGII.Codigo != 1 || d.DGII.Mensaje != "Aceptado" || d.DGII.CheckedAt == nil {
				t.Fatalf("dgii: got %+v", d.DGII)
			}
			storetest.WaitEvents(t, st, c.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundDGIIConfirmed}, func(evs []*sello.Event) bool {
				return len(evs) > 0 && evs[len(evs)-1].Data.Payload["inboundDocumentId"] == d.ID
			})
		})
		// The issuer may deliver before DGII has it: not found, asked
		// again, accepted once DGII has it.
		t.Run("NotFoundThenAccepted", func(t *testing.T) {
			doc := c.signed(t, 2, "")
			d := c.waitDGII(t, c.received(t, doc), dgiiIs(sello.DGIINotFound))
			if *d.DGII.Codigo != 0 || d.DGII.CheckedAt == nil {
				t.Fatalf("dgii: got %+v", d.DGII)
			}
			first := *d.DGII.CheckedAt
			c.waitDGII(t, d, func(g *sello.InboundDGII) bool { return g.CheckedAt.After(first) }) // asked again
			c.toDGII(t, doc)
			c.waitDGII(t, d, dgiiIs(sello.DGIIAccepted))
		})
		// A forged copy received first is kept beside the genuine one until
		// DGII accepts the genuine one; then it is refuted.
		t.Run("Refuted", func(t *testing.T) {
			genuine, forged := c.signed(t, 3, ""), c.signed(t, 3, "FALSA")
			fd := c.waitDGII(t, c.received(t, forged), dgiiIs(sello.DGIINotFound))
			c.toDGII(t, genuine)
			gd := c.waitDGII(t, c.received(t, genuine), dgiiIs(sello.DGIIAccepted))
			fd = c.waitDGII(t, fd, dgiiIs(sello.DGIIRefuted))
			if !strings.Contains(fd.DGII.Mensaje, gd.ID) {
				t.Errorf("the refuted one's mensaje %q does not name the accepted %s", fd.DGII.Mensaje, gd.ID)
			}
			storetest.WaitEvents(t, st, c.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundDGIIRefuted}, func(evs []*sello.Event) bool {
				return len(evs) > 0 && evs[len(evs)-1].Data.Payload["inboundDocumentId"] == fd.ID
			})
		})
		// DGII rejected the document the buyer holds (the issuer's second
		// send of a spent e-NCF).
		t.Run("Rejected", func(t *testing.T) {
			first, second := c.signed(t, 4, ""), c.signed(t, 4, "OTRA")
			c.toDGII(t, first)
			c.toDGII(t, second)
			d := c.waitDGII(t, c.received(t, second), dgiiIs(sello.DGIIRejected))
			if *d.DGII.Codigo != 2 {
				t.Fatalf("dgii: got %+v", d.DGII)
			}
		})
		t.Run("DGIIDown", func(t *testing.T) {
			doc := c.signed(t, 5, "")
			c.toDGII(t, doc)
			c.sim.SetDown(true)
			d := c.received(t, doc)
			time.Sleep(200 * time.Millisecond) // several tries, none answered
			if got := c.waitDGII(t, d, dgiiIs(sello.DGIIPending)); got.DGII.CheckedAt != nil {
				t.Fatalf("dgii while DGII is down: got %+v", got.DGII)
			}
			c.sim.SetDown(false)
			c.waitDGII(t, d, dgiiIs(sello.DGIIAccepted))
		})
		// Past InboundConfirmFor the job stops: not_found stays, with a
		// warning.
		t.Run("GiveUp", func(t *testing.T) {
			d := c.waitDGII(t, c.received(t, c.signed(t, 6, "")), dgiiIs(sello.DGIINotFound))
			c.offset.Store(int64(sello.InboundConfirmFor))
			defer c.offset.Store(0)
			storetest.WaitEvents(t, st, c.tenant.ID, sello.EnvTest, sello.EventFilter{Type: sello.EventInboundDGIIRefuted}, func(evs []*sello.Event) bool {
				return len(evs) > 0 && evs[len(evs)-1].Data.Payload["inboundDocumentId"] == d.ID
			})
			c.waitKindDone(t, sello.InboundConfirmJob{}.Kind())
			if got := c.waitDGII(t, d, dgiiIs(sello.DGIINotFound)); !strings.Contains(got.DGII.Mensaje, "stopped asking") {
				t.Fatalf("dgii after giving up: got %+v", got.DGII)
			}
		})
	})
}
