package ecf_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/ecf/ecftest"
	"github.com/sello-do/sello/oracle"
)

// mustGolden reads testdata/golden/name.
func mustGolden(tb testing.TB, name string) []byte {
	tb.Helper()
	return MustRead(tb, filepath.Join("testdata", "golden", name))
}

// TestReadXML_Golden reads every golden e-CF (each valid per xmllint,
// TestXML_Golden) signed with a placeholder, and writes it back: the same
// bytes, so the reader misses nothing the writer writes.
func TestReadXML_Golden(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			golden := mustGolden(t, "E"+string(typ)+".xml")
			d, err := ecf.ReadXML(withPlaceholderSignature(golden))
			if err != nil {
				t.Fatalf("ReadXML: %v", err)
			}
			if got, want := d.ECF.FechaHoraFirma, "02-04-2025 09:30:05"; got != want {
				t.Errorf("FechaHoraFirma = %q, want %q", got, want)
			}
			got, err := d.XML(signedAt)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, golden) {
				t.Errorf("written back:\n got %s\nwant %s", got, golden)
			}
			if _, err := ecf.ReadXML(golden); err != nil {
				t.Errorf("unsigned: %v (the signature is xmldsig's to check)", err)
			}
		})
	}
}

// TestReadXML_Broken breaks the signed E31 golden in the ways the XSD
// forbids; ReadXML and xmllint both refuse each, ReadXML at the path given.
func TestReadXML_Broken(t *testing.T) {
	valid := string(withPlaceholderSignature(mustGolden(t, "E31.xml")))
	tests := []struct {
		name  string
		pairs []string // old, new… for strings.NewReplacer
		path  string
		code  sello.ErrorCode
	}{
		{"Reordered", []string{"<TipoIngresos>01</TipoIngresos><TipoPago>1</TipoPago>", "<TipoPago>1</TipoPago><TipoIngresos>01</TipoIngresos>"},
			"ECF.Encabezado.IdDoc.TipoIngresos", sello.CodeValidationFailed},
		{"ReorderedGroups", []string{"<Version>1.0</Version><IdDoc>", "<IdDoc>", "</IdDoc>", "</IdDoc><Version>1.0</Version>"},
			"ECF.Encabezado.Version", sello.CodeValidationFailed},
		{"MissingRequired", []string{"<RazonSocialEmisor>Sello Demo SRL</RazonSocialEmisor>", ""},
			"ECF.Encabezado.Emisor.RazonSocialEmisor", sello.CodeValidationFailed},
		{"MissingMontoTotal", []string{"<MontoTotal>1180.00</MontoTotal>", ""}, "ECF.Encabezado.Totales.MontoTotal", sello.CodeValidationFailed},
		{"Unknown", []string{"<TipoPago>1</TipoPago>", "<TipoPago>1</TipoPago><Moneda>DOP</Moneda>"},
			"ECF.Encabezado.IdDoc.Moneda", sello.CodeValidationFailed},
		{"Repeated", []string{"<TipoPago>1</TipoPago>", "<TipoPago>1</TipoPago><TipoPago>2</TipoPago>"},
			"ECF.Encabezado.IdDoc.TipoPago", sello.CodeValidationFailed},
		{"BadDate", []string{"<FechaEmision>01-04-2025</FechaEmision>", "<FechaEmision>2025-04-01</FechaEmision>"},
			"ECF.Encabezado.Emisor.FechaEmision", sello.CodeValidationFailed},
		{"BadAmount", []string{"<MontoItem>1000.00</MontoItem>", "<MontoItem>1000.001</MontoItem>"},
			"ECF.DetallesItems.Item[0].MontoItem", sello.CodeValidationFailed},
		{"BadRNC", []string{"<RNCComprador>101023122</RNCComprador>", "<RNCComprador>10102312</RNCComprador>"},
			"ECF.Encabezado.Comprador.RNCComprador", sello.CodeValidationFailed},
		{"Empty", []string{"<TipoPago>1</TipoPago>", "<TipoPago></TipoPago>"}, "ECF.Encabezado.IdDoc.TipoPago", sello.CodeValidationFailed},
		{"NotAllowedForType", []string{"<TipoIngresos>", "<IndicadorNotaCredito>0</IndicadorNotaCredito><TipoIngresos>"},
			"ECF.Encabezado.IdDoc.IndicadorNotaCredito", sello.CodeValidationFailed},
		{"Attribute", []string{"<Emisor>", `<Emisor id="x">`}, "ECF.Encabezado.Emisor", sello.CodeValidationFailed},
		{"TextInGroup", []string{"<Emisor>", "<Emisor>x"}, "ECF.Encabezado.Emisor", sello.CodeValidationFailed},
		{"ElementInText", []string{"<TipoPago>1</TipoPago>", "<TipoPago><b>1</b></TipoPago>"}, "ECF.Encabezado.IdDoc.TipoPago", sello.CodeValidationFailed},
		{"AfterSignature", []string{"</ECF>", "<Paginacion><Pagina><PaginaNo>1</PaginaNo></Pagina></Paginacion></ECF>"}, "ECF.Paginacion", sello.CodeValidationFailed},
		// xmllint accepts a DOCTYPE (the XSD cannot forbid one): refusing
		// it is Sello's own rule, so entities are never defined.
		{"Doctype", []string{"<ECF>", `<!DOCTYPE ECF [<!ENTITY x "y">]><ECF>`}, "", sello.CodeInvalidRequest},
		{"Namespace", []string{"<ECF>", `<ECF xmlns="urn:x">`}, "", sello.CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := 0; i < len(tt.pairs); i += 2 {
				if !strings.Contains(valid, tt.pairs[i]) {
					t.Fatalf("the golden has no %s", tt.pairs[i])
				}
			}
			checkBroken(t, strings.NewReplacer(tt.pairs...).Replace(valid), tt.path, tt.code)
		})
	}
}

// checkBroken asserts that ReadXML refuses doc with code (and a detail at
// path) and that xmllint refuses it too.
func checkBroken(t *testing.T, doc, path string, code sello.ErrorCode) {
	t.Helper()
	_, err := ecf.ReadXML([]byte(doc))
	if got := sello.ErrorCodeOf(err); got != code {
		t.Fatalf("ReadXML: code %s (%v), want %s", got, err, code)
	}
	if path != "" && !hasDetail(err, path, "") {
		t.Errorf("ReadXML: no detail at %s: %v", path, detailsOf(err))
	}
	if strings.Contains(doc, "<!DOCTYPE") {
		return
	}
	if out, ok := oracle.Xmllint(t, "e-CF-31.xsd", []byte(doc)); ok {
		t.Errorf("xmllint accepts it:\n%s", out)
	}
}

// TestReadXML_BrokenSamples holds ReadXML to xmllint on every sample DGII
// refuses (ecftest.Broken): the schema-invalid ones are refused, the
// others (refused by DGII's business rules only, which ReadXML leaves to
// DGII) read.
func TestReadXML_BrokenSamples(t *testing.T) {
	for _, s := range ecftest.Broken(t, testIssuance.TenantRNC, testIssuance.Now) {
		t.Run(s.Name, func(t *testing.T) {
			doc := withPlaceholderSignature(s.XML)
			_, err := ecf.ReadXML(doc)
			_, xsdOK := oracle.Xmllint(t, s.XSD, doc)
			if got := err == nil; got != xsdOK {
				t.Errorf("ReadXML accepts: %v (%v); xmllint accepts: %v", got, err, xsdOK)
			}
		})
	}
}
