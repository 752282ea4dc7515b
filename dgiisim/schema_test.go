package dgiisim_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/ecf/ecftest"
	"github.com/sello-do/sello/xmldsig"
)

// TestRecepcion_RefusesWhatDGIIRefuses posts over HTTP, signed, every e-CF
// DGII refuses (ecftest.Broken: what DGII's XSD refuses, checked against
// xmllint in ecf, and what its format rules refuse) and requires a
// rejection for its structure or format, not its signature: the simulator's
// checks (schema.go) are its own, so this holds it and Sello to DGII.
func TestRecepcion_RefusesWhatDGIIRefuses(t *testing.T) {
	h := newHarness(t, dgiisim.Config{Verify: xmldsig.Verify})
	token := mustToken(t, h.sim, h.clock.Now())
	at := h.clock.Now()
	send := func(t *testing.T, encf string, doc []byte) result {
		t.Helper()
		status, body := h.upload("/testecf/recepcion/api/facturaselectronicas", token, benchRNC+encf+".xml", doc)
		var sent struct{ TrackID string }
		if status != http.StatusOK || json.Unmarshal([]byte(body), &sent) != nil || sent.TrackID == "" {
			t.Fatalf("recepcion: %d %s", status, body)
		}
		return h.result("testecf", token, sent.TrackID)
	}
	t.Run("OK", func(t *testing.T) {
		if r := send(t, "E310000000099", mustSignedECF(t, "E310000000099", at, 1)); r.Estado != "Aceptado" {
			t.Fatalf("a valid e-CF: %+v", r)
		}
	})
	for _, s := range ecftest.Broken(t, benchRNC, at) {
		t.Run(s.Name, func(t *testing.T) {
			r := send(t, s.ENCF, mustSign(t, s.XML, at))
			if r.Estado != "Rechazado" || len(r.Mensajes) != 1 {
				t.Fatalf("got %+v, want Rechazado", r)
			}
			want := 10 // structure: DGII's XSD refuses it
			if s.SchemaValid {
				want = 31 // DGII's format rules refuse it
			}
			if got := r.Mensajes[0].Codigo; got != want {
				t.Errorf("message %d %q, want code %d", got, r.Mensajes[0].Valor, want)
			}
		})
	}
}
