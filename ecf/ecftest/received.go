package ecftest

import (
	"crypto/x509/pkix"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/xmldsig"
)

// Supplier is the issuer of Received's e-CFs: DGII's test counterpart's
// RNC, as the DGII simulator's samples name it.
const Supplier = "131880681"

var (
	supplierOnce   sync.Once
	supplierSigner *xmldsig.Signer
	supplierErr    error
)

// SupplierSigner is the supplier's signing certificate (self-signed, its
// subject's serialNumber the supplier's RNC), made once per test binary.
func SupplierSigner(tb testing.TB) *xmldsig.Signer {
	tb.Helper()
	supplierOnce.Do(func() {
		k, c, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Proveedor Ejemplo SRL", SerialNumber: Supplier}, time.Now().AddDate(1, 0, 0))
		supplierSigner, supplierErr = &xmldsig.Signer{Key: k, Cert: c}, err
	})
	if supplierErr != nil {
		tb.Fatal(supplierErr)
	}
	return supplierSigner
}

// Received is a valid type-31 e-CF numbered n from Supplier to buyer,
// issued and signed at now by SupplierSigner: what a supplier posts to a
// tenant's receiver, for the tests of the pages and reads of received
// documents (a PDF renders from it).
func Received(tb testing.TB, buyer string, n int64, now time.Time) []byte {
	tb.Helper()
	m := ecf.SampleInvoice(Supplier, sello.TodayInDR(now))
	enc := m["ECF"].(map[string]any)["Encabezado"].(map[string]any)
	enc["Emisor"].(map[string]any)["RazonSocialEmisor"] = "Proveedor Ejemplo SRL"
	enc["Comprador"].(map[string]any)["RNCComprador"] = buyer
	body, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ecf.Parse(body, ecf.Issuance{TenantRNC: Supplier, Now: now})
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
	signed, err := SupplierSigner(tb).Sign(x)
	if err != nil {
		tb.Fatal(err)
	}
	return signed
}
