package dgii_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

// TestReceptor sends an e-CF to the simulator's receiver of a buyer that
// requires authentication: refused without a token, received with one,
// and the same acuse again when sent twice.
func TestReceptor(t *testing.T) {
	ctx := t.Context()
	sim := dgiisim.New(dgiisim.Config{Verify: dgiisim.FakeVerify})
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	ecf, err := dgiisim.FakeSign(ctx, []byte(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><IdDoc><eNCF>E310000000001</eNCF></IdDoc>`+
		`<Emisor><RNCEmisor>130000001</RNCEmisor></Emisor><Comprador><RNCComprador>`+dgiisim.RNCDGIITest+`</RNCComprador></Comprador></Encabezado></ECF>`))
	if err != nil {
		t.Fatal(err)
	}
	base := ts.URL + "/testecf/emisorreceptor"
	p := dgii.NewReceptor(ts.Client())
	const file = "130000001E310000000001.xml"

	t.Run("ErrUnauthenticated", func(t *testing.T) {
		_, err := p.SendECF(ctx, dgii.DirectoryEntry{RNC: dgiisim.RNCDGIITest, URLRecepcion: base}, file, ecf, dgiisim.FakeSign)
		var re *dgii.ReceptorError
		if !errors.As(err, &re) || re.Status != http.StatusUnauthorized || re.Op != "recepcion" {
			t.Fatalf("got %v, want a 401 of recepcion", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		entry := dgii.DirectoryEntry{RNC: dgiisim.RNCDGIITest, URLRecepcion: base, URLOpcional: base}
		arecf, err := p.SendECF(ctx, entry, file, ecf, dgiisim.FakeSign)
		if err != nil || !strings.Contains(string(arecf), "<Estado>0</Estado>") {
			t.Fatalf("got %s, %v; want an ARECF with Estado 0", arecf, err)
		}
		again, err := p.SendECF(ctx, entry, file, ecf, dgiisim.FakeSign)
		if err != nil || !bytes.Equal(again, arecf) {
			t.Fatalf("sent again: got %s, %v; want the same acuse", again, err)
		}
		rs := sim.Receipts()
		if len(rs) != 1 || rs[0].Posts != 2 || rs[0].Estado != 0 {
			t.Fatalf("receipts %+v, want one e-CF posted twice, received", rs)
		}
	})
}
