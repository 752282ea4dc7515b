package ecf_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// signedAt is the signing time of every golden: 2025-04-02 13:30:05 UTC,
// 09:30:05 in the Dominican Republic.
var signedAt = time.Date(2025, 4, 2, 13, 30, 5, 0, time.UTC)

// goldenSecurityCode is the RFCE's stand-in for the first six characters of
// a SignatureValue; + and / appear in real ones.
const goldenSecurityCode = "m+tP/r"

// MustReady decodes, checks and numbers the fixture of type typ with its
// e-NCF E<typ>0000000001 and a sequence expiring on 31-12-2025.
func MustReady(tb testing.TB, typ string) *ecf.Document {
	tb.Helper()
	d := MustFixture(tb, typ)
	MustCheckNumber(tb, d)
	return d
}

// MustCheckNumber checks d with testIssuance and numbers it with the e-NCF
// it carries (or E<type>0000000001) and a sequence expiring on 31-12-2025.
func MustCheckNumber(tb testing.TB, d *ecf.Document) {
	tb.Helper()
	if err := ecf.Check(d, testIssuance); err != nil {
		tb.Fatalf("Check: %v %+v", err, detailsOf(err))
	}
	encf := sello.ENCF{Type: d.Type(), Number: 1}
	if d.ENCF() != "" {
		var err error
		if encf, err = sello.ParseENCF(d.ENCF()); err != nil {
			tb.Fatal(err)
		}
	}
	seq := &sello.Sequence{Type: encf.Type, From: 1, To: 100, Next: 2}
	if encf.Type != sello.TypeConsumo && encf.Type != sello.TypeNotaCredito {
		seq.ExpiresOn = &sello.Date{Year: 2025, Month: 12, Day: 31}
	}
	if err := d.Number(encf, seq); err != nil {
		tb.Fatalf("Number: %v %+v", err, detailsOf(err))
	}
}

// MustXML serializes d at signedAt.
func MustXML(tb testing.TB, d *ecf.Document) []byte {
	tb.Helper()
	b, err := d.XML(signedAt)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// assertGolden compares got with testdata/golden/name, or rewrites it
// under -update.
func assertGolden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./ecf -run %s -update to create it)", err, tb.Name())
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs from the golden file (go test -update rewrites it):\n got %s\nwant %s", name, got, want)
	}
}

// withPlaceholderSignature returns doc with an empty ds:Signature appended
// as the root's last child: DGII's XSDs require the signature (xs:any,
// minOccurs 1), which the signer adds later.
func withPlaceholderSignature(doc []byte) []byte {
	i := bytes.LastIndex(doc, []byte("</"))
	out := make([]byte, 0, len(doc)+64)
	out = append(out, doc[:i]...)
	out = append(out, `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>`...)
	return append(out, doc[i:]...)
}

// assertXSD validates doc with xmllint against DGII's schema xsd.
func assertXSD(tb testing.TB, xsd string, doc []byte) {
	tb.Helper()
	xmllint := oracle.Require(tb, "xmllint")
	schema := oracle.XSD(tb, xsd)
	file := filepath.Join(tb.TempDir(), "doc.xml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", schema, file).CombinedOutput()
	if err != nil {
		tb.Errorf("xmllint --schema %s: %v\n%s\n%s", xsd, err, out, doc)
	}
}

// assertNoEmptyElement fails on any element without content.
func assertNoEmptyElement(tb testing.TB, doc []byte) {
	tb.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	type open struct {
		name    string
		content bool
	}
	var stack []open
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			tb.Fatalf("not well-formed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) > 0 {
				stack[len(stack)-1].content = true
			}
			stack = append(stack, open{name: t.Name.Local})
		case xml.CharData:
			if len(stack) > 0 && len(bytes.TrimSpace(t)) > 0 {
				stack[len(stack)-1].content = true
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !top.content {
				tb.Errorf("empty element <%s>", top.name)
			}
		}
	}
}

// xsdName is DGII's schema for an e-CF type.
func xsdName(typ sello.DocumentType) string { return "e-CF-" + string(typ) + ".xsd" }

func TestXML_Golden(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			d := MustReady(t, string(typ))
			got := MustXML(t, d)
			assertGolden(t, "E"+string(typ)+".xml", got)
			assertNoEmptyElement(t, got)
			assertXSD(t, xsdName(typ), withPlaceholderSignature(got))
			assertXSDOrder(t, xsdName(typ), got)
		})
	}
}

func TestXML_Compact(t *testing.T) {
	got := string(MustXML(t, MustReady(t, "31")))
	if !strings.HasPrefix(got, `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version>`) {
		t.Errorf("start: %.120s", got)
	}
	if !strings.HasSuffix(got, "<FechaHoraFirma>02-04-2025 09:30:05</FechaHoraFirma></ECF>") {
		t.Errorf("end: %s", got[len(got)-80:])
	}
	if strings.ContainsAny(got, "\n\t") || strings.Contains(got, "> <") {
		t.Errorf("whitespace between elements: %s", got)
	}
}

func TestXML_FechaHoraFirmaInGMTMinus4(t *testing.T) {
	d := MustReady(t, "31")
	tests := map[string]time.Time{
		// Just after midnight UTC is the previous evening in the DR.
		"01-04-2025 20:00:00":                     time.Date(2025, 4, 2, 0, 0, 0, 0, time.UTC),
		"02-04-2025 09:30:05":                     signedAt,
		"02-04-2025 09:30:05 (from another zone)": signedAt.In(time.FixedZone("CET", 3600)),
	}
	for want, at := range tests {
		want, _, _ = strings.Cut(want, " (")
		got := string(mustXMLAt(t, d, at))
		if !strings.Contains(got, "<FechaHoraFirma>"+want+"</FechaHoraFirma></ECF>") {
			t.Errorf("at %v: want FechaHoraFirma %s, got …%s", at, want, got[len(got)-60:])
		}
	}
	// A client's FechaHoraFirma never reaches the XML.
	d.ECF.FechaHoraFirma = "01-01-2020 00:00:00"
	if got := string(MustXML(t, d)); strings.Contains(got, "01-01-2020") || strings.Count(got, "<FechaHoraFirma>") != 1 {
		t.Errorf("document's FechaHoraFirma leaked: %s", got)
	}
}

func mustXMLAt(tb testing.TB, d *ecf.Document, at time.Time) []byte {
	tb.Helper()
	b, err := d.XML(at)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestXML_Escaping(t *testing.T) {
	d := MustFixture(t, "31")
	d.ECF.Encabezado.Emisor.RazonSocialEmisor = `Tom & Jerry's <"Tienda">`
	d.ECF.DetallesItems.Item[0].NombreItem = "Café a&b > c"
	d.ECF.DetallesItems.Item[0].DescripcionItem = "línea 1\r\nlínea 2"
	MustCheckNumber(t, d)
	got := MustXML(t, d)
	for _, want := range []string{
		"<RazonSocialEmisor>Tom &amp; Jerry&apos;s &lt;&quot;Tienda&quot;&gt;</RazonSocialEmisor>",
		"<NombreItem>Café a&amp;b &gt; c</NombreItem>",
		"<DescripcionItem>línea 1&#xD;\nlínea 2</DescripcionItem>",
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	// And a parser reads back exactly the text.
	var v struct {
		Encabezado struct {
			Emisor struct{ RazonSocialEmisor string }
		}
		Items []struct{ NombreItem, DescripcionItem string } `xml:"DetallesItems>Item"`
	}
	if err := xml.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	if got, want := v.Encabezado.Emisor.RazonSocialEmisor, `Tom & Jerry's <"Tienda">`; got != want {
		t.Errorf("RazonSocialEmisor = %q, want %q", got, want)
	}
	if got, want := v.Items[0].DescripcionItem, "línea 1\r\nlínea 2"; got != want {
		t.Errorf("DescripcionItem = %q, want %q", got, want)
	}
	assertXSD(t, "e-CF-31.xsd", withPlaceholderSignature(got))
}

// TestXML_NoEmptyElements fills optional groups with nothing but values the
// writer must drop, and checks that no empty element comes out.
func TestXML_NoEmptyElements(t *testing.T) {
	d := MustReady(t, "31")
	d.ECF.Encabezado.Transporte = &ecf.Transporte{}
	d.ECF.Encabezado.InformacionesAdicionales = &ecf.InformacionesAdicionales{}
	d.ECF.Encabezado.IdDoc.TablaFormasPago = &ecf.TablaFormasPago{FormaDePago: []ecf.FormaDePago{{}}}
	d.ECF.DetallesItems.Item[0].TablaCodigosItem = &ecf.TablaCodigosItem{}
	d.ECF.Subtotales = &ecf.Subtotales{Subtotal: []ecf.Subtotal{{}}}
	d.ECF.Encabezado.Emisor.TablaTelefonoEmisor = &ecf.TablaTelefonoEmisor{TelefonoEmisor: []string{""}}
	got := MustXML(t, d)
	assertNoEmptyElement(t, got)
	if want := MustXML(t, MustReady(t, "31")); !bytes.Equal(got, want) {
		t.Errorf("empty groups changed the output:\n got %s\nwant %s", got, want)
	}
}

func TestXML_Amounts(t *testing.T) {
	d := MustFixture(t, "31")
	it := &d.ECF.DetallesItems.Item[0]
	it.CantidadItem = ecf.MustDecimal("3")
	it.PrecioUnitarioItem = ecf.MustDecimal("123.4567")
	MustCheckNumber(t, d)
	got := string(MustXML(t, d))
	for _, want := range []string{
		"<CantidadItem>3.00</CantidadItem>",
		"<PrecioUnitarioItem>123.4567</PrecioUnitarioItem>",
		"<MontoItem>370.37</MontoItem>",
		"<MontoTotal>437.04</MontoTotal>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	assertXSD(t, "e-CF-31.xsd", withPlaceholderSignature([]byte(got)))
}

func TestXML_NotReady(t *testing.T) {
	tests := map[string]func(*ecf.Document){
		"NoENCF":       func(d *ecf.Document) { d.ECF.Encabezado.IdDoc.ENCF = "" },
		"NoMontoTotal": func(d *ecf.Document) { d.ECF.Encabezado.Totales = nil },
		"NoIdDoc":      func(d *ecf.Document) { d.ECF.Encabezado.IdDoc = nil },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			d := MustFixture(t, "31")
			mutate(d)
			if _, err := d.XML(signedAt); err == nil {
				t.Fatal("XML of an unready document succeeded")
			} else if e := (*sello.Error)(nil); errors.As(err, &e) {
				t.Fatalf("want a plain error, got %v", err)
			}
		})
	}
}

func BenchmarkXML(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			d := MustFixture(b, "31")
			items := make([]ecf.Item, n)
			for i := range items {
				items[i] = ecf.Item{
					NumeroLinea: ecf.Code(fmt.Sprint(i + 1)), IndicadorFacturacion: ecf.Code(fmt.Sprint(1 + i%4)),
					NombreItem: "Artículo & cía", IndicadorBienoServicio: "1", CantidadItem: ecf.MustDecimal("2"),
					UnidadMedida: "43", PrecioUnitarioItem: ecf.MustDecimal("123.4567"),
				}
			}
			d.ECF.DetallesItems.Item = items
			MustCheckNumber(b, d)
			size := len(MustXML(b, d))
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.XML(signedAt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
