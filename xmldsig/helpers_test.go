package xmldsig_test

import (
	"bytes"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello/xmldsig"
)

// testKey is generated once per test binary: RSA key generation is slow.
var testKey = sync.OnceValues(func() (*xmldsig.Signer, error) {
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{
		CommonName:   "Prueba Sello",
		SerialNumber: "IDCDO-00100000001",
		Country:      []string{"DO"},
	}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		return nil, err
	}
	return &xmldsig.Signer{Key: key, Cert: cert}, nil
})

// MustSigner returns the package's test signer.
func MustSigner(tb testing.TB) *xmldsig.Signer {
	tb.Helper()
	s, err := testKey()
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// MustOtherSigner returns a fresh signer with another key.
func MustOtherSigner(tb testing.TB) *xmldsig.Signer {
	tb.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Otro"}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		tb.Fatal(err)
	}
	return &xmldsig.Signer{Key: key, Cert: cert}
}

// MustSign signs doc with s.
func MustSign(tb testing.TB, s *xmldsig.Signer, doc string) []byte {
	tb.Helper()
	out, err := s.Sign([]byte(doc))
	if err != nil {
		tb.Fatalf("Sign: %v", err)
	}
	return out
}

// MustWritePEM writes the key and certificate of s as PEM files in a
// temporary directory and returns their paths.
func MustWritePEM(tb testing.TB, s *xmldsig.Signer) (keyPath, certPath string) {
	tb.Helper()
	dir := tb.TempDir()
	keyPath = filepath.Join(dir, "key.pem")
	certPath = filepath.Join(dir, "cert.pem")
	kb := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(s.Key)})
	cb := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Cert.Raw})
	if err := os.WriteFile(keyPath, kb, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(certPath, cb, 0o600); err != nil {
		tb.Fatal(err)
	}
	return keyPath, certPath
}

// MustWriteFile writes b to name in a temporary directory.
func MustWriteFile(tb testing.TB, name string, b []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// smallECF is a compact e-CF-like document of about 1 KB.
const smallECF = `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia><IndicadorMontoGravado>0</IndicadorMontoGravado><TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor><RazonSocialEmisor>Panadería Ñandú &amp; Hijos, S.R.L.</RazonSocialEmisor><DireccionEmisor>Av. Winston Churchill #95, Ensanche Piantini</DireccionEmisor><FechaEmision>01-04-2026</FechaEmision></Emisor><Comprador><RNCComprador>101672919</RNCComprador><RazonSocialComprador>Cliente &lt;Prueba&gt; "Ejemplo"</RazonSocialComprador></Comprador><Totales><MontoGravadoTotal>1000.00</MontoGravadoTotal><MontoGravadoI1>1000.00</MontoGravadoI1><ITBIS1>18</ITBIS1><TotalITBIS>180.00</TotalITBIS><TotalITBIS1>180.00</TotalITBIS1><MontoTotal>1180.00</MontoTotal></Totales></Encabezado><DetallesItems><Item><NumeroLinea>1</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Pan de agua (docena)</NombreItem><IndicadorBienoServicio>1</IndicadorBienoServicio><CantidadItem>10</CantidadItem><PrecioUnitarioItem>100.00</PrecioUnitarioItem><MontoItem>1000.00</MontoItem></Item></DetallesItems><InformacionReferencia></InformacionReferencia><FechaHoraFirma>01-04-2026 10:15:30</FechaHoraFirma></ECF>`

// smallECF1KB is a typical 1 KB compact e-CF.
const smallECF1KB = `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000001</eNCF><FechaVencimientoSecuencia>31-12-2027</FechaVencimientoSecuencia><TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor><RazonSocialEmisor>Panadería Ñandú &amp; Hijos, S.R.L.</RazonSocialEmisor><DireccionEmisor>Av. Winston Churchill #95</DireccionEmisor><FechaEmision>01-04-2026</FechaEmision></Emisor><Comprador><RNCComprador>101672919</RNCComprador><RazonSocialComprador>Cliente de Prueba</RazonSocialComprador></Comprador><Totales><MontoGravadoTotal>1000.00</MontoGravadoTotal><MontoGravadoI1>1000.00</MontoGravadoI1><ITBIS1>18</ITBIS1><TotalITBIS>180.00</TotalITBIS><TotalITBIS1>180.00</TotalITBIS1><MontoTotal>1180.00</MontoTotal></Totales></Encabezado><DetallesItems><Item><NumeroLinea>1</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Pan de agua</NombreItem><IndicadorBienoServicio>1</IndicadorBienoServicio><CantidadItem>10</CantidadItem><PrecioUnitarioItem>100.00</PrecioUnitarioItem><MontoItem>1000.00</MontoItem></Item></DetallesItems><FechaHoraFirma>01-04-2026 10:15:30</FechaHoraFirma></ECF>`

// prettySeed is DGII's seed as the authentication service returns it:
// pretty-printed, with namespace declarations on the root.
const prettySeed = `<?xml version="1.0" encoding="utf-8"?>
<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <valor>ZL/lUiT8ixOW3HrL7y6TRHfCJOc1ecxjYhBXyIjgI7ZBDGwW9AodFx2bxY6TNPJEUl7kbdoyH33ZpO4bESxGK8CvdSpqmF3xj6D1vvvXZ5w=</valor>
  <fecha>2026-04-01T14:33:32.8617792-04:00</fecha>
</SemillaModel>
`

// ecfWithItems returns a compact e-CF with n items.
func ecfWithItems(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version><IdDoc><TipoeCF>31</TipoeCF><eNCF>E310000000002</eNCF></IdDoc><Emisor><RNCEmisor>131880681</RNCEmisor><RazonSocialEmisor>Ferretería Ñame &amp; Cía</RazonSocialEmisor></Emisor></Encabezado><DetallesItems>`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `<Item><NumeroLinea>%d</NumeroLinea><IndicadorFacturacion>1</IndicadorFacturacion><NombreItem>Artículo número %d &lt;caja&gt;</NombreItem><IndicadorBienoServicio>1</IndicadorBienoServicio><CantidadItem>%d.00</CantidadItem><UnidadMedida>43</UnidadMedida><PrecioUnitarioItem>125.50</PrecioUnitarioItem><MontoItem>%d.50</MontoItem></Item>`, i, i, i%7+1, 125*(i%7+1))
	}
	b.WriteString(`</DetallesItems><FechaHoraFirma>01-04-2026 10:15:30</FechaHoraFirma></ECF>`)
	return b.String()
}

// replaceOnce replaces the first old in b by new, failing if absent.
func replaceOnce(tb testing.TB, b []byte, old, new string) []byte {
	tb.Helper()
	if !bytes.Contains(b, []byte(old)) {
		tb.Fatalf("%q not in document", old)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// errorsIs reports whether err wraps target and carries Verify's context.
func errorsIs(err, target error) bool {
	return errors.Is(err, target) && strings.HasPrefix(err.Error(), "verify xml signature: ")
}
