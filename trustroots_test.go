package sello_test

import (
	"crypto/x509/pkix"
	"encoding/pem"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// TestTrustRootsCertificates: the roots keep the bundle's certificates in
// its order (the portal's Receptor page lists them), and a nil set has
// none.
func TestTrustRootsCertificates(t *testing.T) {
	var bundle []byte
	var want []string
	for _, cn := range []string{"Raíz Prueba CA", "Prueba CA Subordinada 1"} {
		_, c, err := xmldsig.GenerateCA(pkix.Name{CommonName: cn}, time.Now().AddDate(5, 0, 0))
		if err != nil {
			t.Fatal(err)
		}
		bundle = append(bundle, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
		want = append(want, c.Subject.String())
	}
	roots, err := sello.ParseTrustRoots(bundle)
	if err != nil {
		t.Fatal(err)
	}
	got := roots.Certificates()
	if len(got) != 2 || got[0].Subject.String() != want[0] || got[1].Subject.String() != want[1] {
		t.Fatalf("Certificates: got %d, want the bundle's two in order %v", len(got), want)
	}
	got[0] = nil
	if roots.Certificates()[0] == nil {
		t.Error("Certificates returned the roots' own slice")
	}
	var none *sello.TrustRoots
	if none.Certificates() != nil || none.Names() != nil {
		t.Error("nil roots have certificates")
	}
}
