package pdf_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/pdf"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from pdftotext's output")

// testContext is the context of every fixture, as in ecf's tests: the demo
// tenant, the day after the fixtures' FechaEmision.
var testContext = ecf.Issuance{TenantRNC: "131793916", Now: time.Date(2025, 4, 2, 12, 0, 0, 0, time.UTC)}

// signedAt is 01-04-2025 10:30:05 in the Dominican Republic (GMT-4).
var signedAt = time.Date(2025, 4, 1, 14, 30, 5, 0, time.UTC)

// securityCode has the characters DGII says must be percent-encoded.
const securityCode = "a+B/9z"

// MustFixture decodes and checks ../ecf/testdata/valid/E<type>.json.
func MustFixture(tb testing.TB, typ sello.DocumentType) *ecf.Document {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "ecf", "testdata", "valid", "E"+string(typ)+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	return MustCheck(tb, b)
}

func MustCheck(tb testing.TB, body []byte) *ecf.Document {
	tb.Helper()
	d, err := ecf.Decode(body)
	if err != nil {
		tb.Fatalf("Decode: %v", err)
	}
	if err := ecf.Check(d, testContext); err != nil {
		var e *sello.Error
		errors.As(err, &e)
		tb.Fatalf("Check: %v %+v", err, e.Details)
	}
	return d
}

// escape percent-encodes a query value as DGII asks (a space is %20).
func escape(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// timbreURL is DGII's consultatimbre URL for d (FACTS §1.11): without
// rnccomprador for 43 and 47, the consultatimbrefc form for a 32 under
// DOP 250,000.
func timbreURL(d *ecf.Document, env sello.Environment) string {
	em := d.ECF.Encabezado.Emisor
	base := "https://ecf.dgii.gov.do/" + env.Slug()
	if d.Type() == sello.TypeConsumo {
		return "https://fc.dgii.gov.do/" + env.Slug() + "/consultatimbrefc?rncemisor=" + escape(em.RNCEmisor) +
			"&encf=" + escape(d.ENCF()) + "&montototal=" + escape(d.Total()) + "&codigoseguridad=" + escape(securityCode)
	}
	u := base + "/consultatimbre?rncemisor=" + escape(em.RNCEmisor)
	if t := d.Type(); t != sello.TypeGastosMenores && t != sello.TypePagosExterior && d.BuyerRNC() != "" {
		u += "&rnccomprador=" + escape(d.BuyerRNC())
	}
	return u + "&encf=" + escape(d.ENCF()) + "&fechaemision=" + escape(em.FechaEmision) +
		"&montototal=" + escape(d.Total()) +
		"&fechafirma=" + escape(signedAt.In(sello.DRZone).Format("02-01-2006 15:04:05")) +
		"&codigoseguridad=" + escape(securityCode)
}

func meta(d *ecf.Document, env sello.Environment, st sello.Status) pdf.Meta {
	return pdf.Meta{
		Environment:  env,
		ENCF:         d.ENCF(),
		SecurityCode: securityCode,
		SignedAt:     signedAt,
		QRURL:        timbreURL(d, env),
		Status:       st,
	}
}

func MustRender(tb testing.TB, d *ecf.Document, m pdf.Meta) []byte {
	tb.Helper()
	b, err := pdf.Render(d, m)
	if err != nil {
		tb.Fatalf("Render: %v", err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		tb.Fatalf("Render returned %q…, not a PDF", b[:min(len(b), 16)])
	}
	return b
}

// MustWrite writes b to a file in a temporary directory and returns its path.
func MustWrite(tb testing.TB, name string, b []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// pdfText is pdftotext -layout of the PDF, one string per page.
func pdfText(tb testing.TB, b []byte) []string {
	tb.Helper()
	bin := oracle.Require(tb, "pdftotext")
	out, err := exec.Command(bin, "-layout", "-enc", "UTF-8", MustWrite(tb, "doc.pdf", b), "-").Output()
	if err != nil {
		tb.Fatalf("pdftotext: %v", err)
	}
	pages := strings.Split(string(out), "\f")
	if pages[len(pages)-1] == "" || strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	return pages
}

// qrOnPage renders page n (1-based) at 150 dpi and returns what zbarimg
// reads there ("" when no code).
func qrOnPage(tb testing.TB, b []byte, n int) string {
	tb.Helper()
	ppm := oracle.Require(tb, "pdftoppm")
	zbar := oracle.Require(tb, "zbarimg")
	dir := tb.TempDir()
	in := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		tb.Fatal(err)
	}
	page := fmt.Sprint(n)
	if out, err := exec.Command(ppm, "-r", "150", "-png", "-singlefile", "-f", page, "-l", page, in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		tb.Fatalf("pdftoppm: %v %s", err, out)
	}
	out, err := exec.Command(zbar, "--raw", "-q", filepath.Join(dir, "page.png")).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 4 { // no symbol found
		return ""
	}
	if err != nil {
		tb.Fatalf("zbarimg: %v", err)
	}
	return strings.TrimRight(string(out), "\n")
}

func TestRender_Fixtures(t *testing.T) {
	for _, typ := range sello.DocumentTypes {
		t.Run("E"+string(typ), func(t *testing.T) {
			d := MustFixture(t, typ)
			b := MustRender(t, d, meta(d, sello.EnvTest, sello.StatusAccepted))
			pages := pdfText(t, b)
			if got, want := len(pages), 1; got != want {
				t.Fatalf("%d pages, want %d", got, want)
			}
			got := pages[0]
			em, c := d.ECF.Encabezado.Emisor, d.ECF.Encabezado.Comprador
			want := []string{
				pdf.TypeName(typ),
				"e-NCF: E" + string(typ) + "0000000001",
				"RNC: " + em.RNCEmisor,
				em.RazonSocialEmisor,
				em.DireccionEmisor,
				"Fecha de emisión: 01-04-2025",
				"MONTO TOTAL",
				pdf.Money(d.ECF.Encabezado.Totales.MontoTotal),
				"Código de seguridad: " + securityCode,
				"Fecha de firma digital: 01-04-2025 10:30:05",
				"DOCUMENTO DE PRUEBA — sin validez fiscal (ambiente TesteCF)",
				"Página 1 de 1",
			}
			if v := d.ECF.Encabezado.IdDoc.FechaVencimientoSecuencia; v != "" {
				want = append(want, "Fecha de vencimiento e-NCF: "+v)
			}
			if c != nil {
				want = append(want, c.RazonSocialComprador)
				if c.RNCComprador != "" {
					want = append(want, c.RNCComprador)
				}
				if c.IdentificadorExtranjero != "" {
					want = append(want, c.IdentificadorExtranjero)
				}
			}
			for _, it := range d.ECF.DetallesItems.Item {
				want = append(want, it.NombreItem)
			}
			if ir := d.ECF.InformacionReferencia; ir != nil {
				want = append(want, "NCF modificado:", ir.NCFModificado, ir.FechaNCFModificado, "Corrige montos del NCF modificado")
			}
			if tot := d.ECF.Encabezado.Totales; tot.TotalISRRetencion != nil {
				want = append(want, "ISR retenido", pdf.Money(tot.TotalISRRetencion))
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("pdftotext output lacks %q:\n%s", w, got)
				}
			}
			golden(t, filepath.Join("testdata", "golden", "E"+string(typ)+".txt"), got)
		})
	}
}

// golden compares got with the file, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(name, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (run go test ./pdf/ -update)", err)
	}
	if got != string(want) {
		t.Errorf("pdftotext output differs from %s (go test ./pdf/ -update rewrites it):\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestRender_QR(t *testing.T) {
	for _, typ := range []sello.DocumentType{sello.TypeCreditoFiscal, sello.TypeConsumo, sello.TypePagosExterior} {
		t.Run("E"+string(typ), func(t *testing.T) {
			d := MustFixture(t, typ)
			m := meta(d, sello.EnvCert, sello.StatusAccepted)
			if !strings.Contains(m.QRURL, "codigoseguridad=a%2BB%2F9z") {
				t.Fatalf("test URL %s does not percent-encode the security code", m.QRURL)
			}
			if typ != sello.TypeConsumo && !strings.Contains(m.QRURL, "fechafirma=01-04-2025%2010%3A30%3A05") {
				t.Fatalf("test URL %s does not carry fechafirma with %%20", m.QRURL)
			}
			b := MustRender(t, d, m)
			if got, want := qrOnPage(t, b, 1), m.QRURL; got != want {
				t.Errorf("QR:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// manyItems is the E31 fixture with n items, numbered 1…n.
func manyItems(tb testing.TB, n int) *ecf.Document {
	tb.Helper()
	var items []string
	for i := 1; i <= n; i++ {
		items = append(items, fmt.Sprintf(`{"NumeroLinea":%d,"IndicadorFacturacion":1,"NombreItem":"Artículo número %03d con ñandú","IndicadorBienoServicio":1,"CantidadItem":%d,"UnidadMedida":"43","PrecioUnitarioItem":"1234.50"}`, i, i, i%7+1))
	}
	body := `{"ECF":{"Encabezado":{"Version":"1.0","IdDoc":{"TipoeCF":"31","eNCF":"E310000000001","FechaVencimientoSecuencia":"31-12-2025","IndicadorMontoGravado":0,"TipoIngresos":"01","TipoPago":1},` +
		`"Emisor":{"RNCEmisor":"131793916","RazonSocialEmisor":"Sello Demo SRL","NombreComercial":"Panadería Ñoña","DireccionEmisor":"Av. 27 de Febrero 100","Municipio":"010100","Provincia":"010000","TablaTelefonoEmisor":{"TelefonoEmisor":["809-555-0100","809-555-0101"]},"FechaEmision":"01-04-2025"},` +
		`"Comprador":{"RNCComprador":"101023122","RazonSocialComprador":"Cliente Ejemplo SA"}},` +
		`"DetallesItems":{"Item":[` + strings.Join(items, ",") + `]}}}`
	return MustCheck(tb, []byte(body))
}

func TestRender_ManyItems(t *testing.T) {
	d := manyItems(t, 300)
	m := meta(d, sello.EnvProd, sello.StatusAccepted)
	b := MustRender(t, d, m)
	pages := pdfText(t, b)
	n := len(pages)
	if n < 2 {
		t.Fatalf("%d page(s) for 300 items, want several", n)
	}
	all := strings.Join(pages, "\n")
	for i := 1; i <= 300; i++ {
		if name := fmt.Sprintf("Artículo número %03d con ñandú", i); strings.Count(all, name) != 1 {
			t.Errorf("item %d printed %d times, want once", i, strings.Count(all, name))
		}
	}
	for i, p := range pages {
		for _, w := range []string{
			fmt.Sprintf("Página %d de %d", i+1, n),
			"Factura de Crédito Fiscal Electrónica", "e-NCF: E310000000001", "Sello Demo SRL", "Panadería Ñoña",
			"SANTO DOMINGO DE GUZMÁN, DISTRITO NACIONAL", "Tel.: 809-555-0100 / 809-555-0101",
		} {
			if !strings.Contains(p, w) {
				t.Errorf("page %d lacks %q", i+1, w)
			}
		}
		if strings.Contains(p, "Artículo número") && !strings.Contains(p, "Descripción") {
			t.Errorf("page %d has items but no column heads", i+1)
		}
		if got, want := strings.Contains(p, "Código de seguridad"), i == n-1; got != want {
			t.Errorf("page %d: security code printed = %v, want %v", i+1, got, want)
		}
		if strings.Contains(p, "DOCUMENTO DE PRUEBA") {
			t.Errorf("page %d of a production document has the test banner", i+1)
		}
	}
	if !strings.Contains(pages[n-1], "Artículo número 300") {
		t.Errorf("last page lacks the last item: the totals stand alone")
	}
	if !strings.Contains(pages[n-1], pdf.Money(d.ECF.Encabezado.Totales.MontoTotal)) {
		t.Errorf("last page lacks MontoTotal %s", pdf.Money(d.ECF.Encabezado.Totales.MontoTotal))
	}
	if got := qrOnPage(t, b, n); got != m.QRURL {
		t.Errorf("QR on the last page:\n got %s\nwant %s", got, m.QRURL)
	}
	if got := qrOnPage(t, b, 1); got != "" {
		t.Errorf("QR on page 1: %s, want none", got)
	}
}

func TestRender_Banner(t *testing.T) {
	tests := []struct {
		name   string
		env    sello.Environment
		status sello.Status
		want   string // "" for no banner
	}{
		{"ProductionAccepted", sello.EnvProd, sello.StatusAccepted, ""},
		{"ProductionSubmitted", sello.EnvProd, sello.StatusSubmitted, ""},
		{"Certification", sello.EnvCert, sello.StatusAccepted, "DOCUMENTO DE PRUEBA — sin validez fiscal (ambiente CerteCF)"},
		{"ProductionRejected", sello.EnvProd, sello.StatusRejected, "e-CF RECHAZADO POR LA DGII — sin validez fiscal"},
		{"ProductionFailed", sello.EnvProd, sello.StatusFailed, "e-CF NO RECIBIDO POR LA DGII — sin validez fiscal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := MustFixture(t, sello.TypeCreditoFiscal)
			got := pdfText(t, MustRender(t, d, meta(d, tt.env, tt.status)))[0]
			if tt.want == "" {
				if strings.Contains(got, "sin validez fiscal") {
					t.Errorf("unexpected banner:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("lacks banner %q:\n%s", tt.want, got)
			}
		})
	}
}

// TestRender_Contingency: an e-CF issued in contingency carries the
// legend on every page; the others do not.
func TestRender_Contingency(t *testing.T) {
	d := MustFixture(t, sello.TypeCreditoFiscal)
	m := meta(d, sello.EnvProd, sello.StatusAccepted)
	if got := pdfText(t, MustRender(t, d, m))[0]; strings.Contains(got, "Contingencia") {
		t.Errorf("legend without contingency:\n%s", got)
	}
	m.Contingency = true
	for i, got := range pdfText(t, MustRender(t, d, m)) {
		if !strings.Contains(got, pdf.ContingencyLegend) {
			t.Errorf("page %d lacks %q:\n%s", i+1, pdf.ContingencyLegend, got)
		}
	}
}

func TestRender_ErrValidation(t *testing.T) {
	d := MustFixture(t, sello.TypeCreditoFiscal)
	_, err := pdf.Render(d, pdf.Meta{ENCF: "E310000000002", SecurityCode: "abc"})
	var e *sello.Error
	if !errors.As(err, &e) || e.Code != sello.CodeValidationFailed {
		t.Fatalf("err = %v, want VALIDATION_FAILED", err)
	}
	if got, want := e.Message, "The document is not valid: 4 problems."; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	var paths []string
	for _, dt := range e.Details {
		paths = append(paths, dt.Path)
	}
	if got, want := strings.Join(paths, ","), "ENCF,SecurityCode,SignedAt,QRURL"; got != want {
		t.Errorf("detail paths = %s, want %s", got, want)
	}
	if got, want := e.Details[0].Message, "Must equal the document's eNCF E310000000001."; got != want {
		t.Errorf("ENCF detail = %q, want %q", got, want)
	}
}

func BenchmarkRender(b *testing.B) {
	for _, n := range []int{1, 300} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			d := manyItems(b, n)
			m := meta(d, sello.EnvProd, sello.StatusAccepted)
			b.ReportAllocs()
			var size int
			for b.Loop() {
				out, err := pdf.Render(d, m)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size)/1024, "KiB/pdf")
		})
	}
}

// TestRender_QRPlacement checks DGII's placement rules on the rendered page
// [IT §17.2.3]: the QR is read from the lower-left quarter of the page
// alone, its symbol is at least 22 mm wide and at least 2 cm from the
// sheet's left and bottom edges.
func TestRender_QRPlacement(t *testing.T) {
	d := MustFixture(t, sello.TypeCreditoFiscal)
	m := meta(d, sello.EnvProd, sello.StatusAccepted)
	b := MustRender(t, d, m)
	ppm := oracle.Require(t, "pdftoppm")
	zbar := oracle.Require(t, "zbarimg")
	dir := t.TempDir()
	in := filepath.Join(dir, "doc.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	const dpi = 150
	if out, err := exec.Command(ppm, "-r", fmt.Sprint(dpi), "-png", "-gray", "-singlefile", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bounds := page.Bounds()
	quarter := image.Rect(0, bounds.Dy()/2, bounds.Dx()/2, bounds.Dy())
	crop := image.NewGray(quarter)
	draw.Draw(crop, quarter, page, quarter.Min, draw.Src)
	var buf bytes.Buffer
	if err := png.Encode(&buf, crop); err != nil {
		t.Fatal(err)
	}
	cropPath := filepath.Join(dir, "quarter.png")
	if err := os.WriteFile(cropPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zbar, "--raw", "-q", cropPath).Output()
	if err != nil {
		t.Fatalf("zbarimg finds no QR in the lower-left quarter: %v", err)
	}
	if got := strings.TrimRight(string(out), "\n"); got != m.QRURL {
		t.Errorf("QR in the lower-left quarter:\n got %s\nwant %s", got, m.QRURL)
	}

	// The symbol's top row is its two top finder patterns: the first dark
	// row of the quarter spans the symbol's width.
	dark := func(x, y int) bool { return crop.GrayAt(x, y).Y < 128 }
	top, minX, maxX := -1, 0, 0
	for y := quarter.Min.Y; y < quarter.Max.Y && top < 0; y++ {
		for x := quarter.Min.X; x < quarter.Max.X; x++ {
			if dark(x, y) {
				if top < 0 {
					top, minX = y, x
				}
				maxX = x
			}
		}
	}
	if top < 0 {
		t.Fatal("no dark pixel in the lower-left quarter")
	}
	mm := func(px int) float64 { return float64(px) * 25.4 / dpi }
	width := mm(maxX - minX + 1)
	if width < 22 {
		t.Errorf("QR symbol %.1f mm wide, want ≥ 22 mm", width)
	}
	if left := mm(minX); left < 20 {
		t.Errorf("QR %.1f mm from the left edge, want ≥ 20 mm", left)
	}
	if bottom := mm(bounds.Dy() - (top + maxX - minX + 1)); bottom < 20 {
		t.Errorf("QR %.1f mm from the bottom edge, want ≥ 20 mm", bottom)
	}
	t.Logf("QR symbol %.1f mm wide, %.1f mm from the left edge, %.1f mm from the bottom", width, mm(minX), mm(bounds.Dy()-(top+maxX-minX+1)))
}
