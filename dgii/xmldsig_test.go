package dgii_test

import (
	"context"
	"crypto/x509/pkix"
	"testing"
	"time"

	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/xmldsig"
)

// TestRealSignatures runs the flow with the real DGII-profile signer and
// verifier in place of the fakes: the swap is these two lines.
func TestRealSignatures(t *testing.T) {
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Sello Test", SerialNumber: issuer}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	signer := &xmldsig.Signer{Key: key, Cert: cert}
	sign := func(_ context.Context, xml []byte) ([]byte, error) { return signer.Sign(xml) }

	f := newFixture(t, options{sim: dgiisim.Config{Verify: xmldsig.Verify}})
	s := f.client.Session(f.sess.Environment(), issuer, sign)
	signed, err := sign(ctx, doc{encf: encf(1), buyer: "101010101"}.xml())
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.SendECF(ctx, encf(1), signed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Result(ctx, id)
	if err != nil || r.Codigo != dgii.CodigoAceptado {
		t.Fatalf("result = %+v, %v", r, err)
	}
	code, err := xmldsig.SecurityCode(signed)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Estado(ctx, issuer, encf(1), "101010101", code)
	if err != nil || e.Codigo != dgii.CodigoAceptado {
		t.Fatalf("Estado(code %s) = %+v, %v", code, e, err)
	}
	// A fake signature no longer passes.
	r, err = s.Result(ctx, f.send(t, doc{encf: encf(2)}))
	if err != nil || r.Codigo != dgii.CodigoRechazado || *r.SecuenciaUtilizada {
		t.Fatalf("fake-signed result = %+v, %v", r, err)
	}
}
