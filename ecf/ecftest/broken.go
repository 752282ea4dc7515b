// Package ecftest builds e-CFs that DGII refuses, for the tests that hold
// Sello and the DGII simulator to DGII's XSDs and rules: each Broken sample
// is the request a client could send (Sello must refuse it) and the XML
// Sello would have signed had it let the request through (xmllint and the
// simulator must refuse it). The XML is built by bypassing Sello's checks:
// a valid document is checked and numbered, then broken.
package ecftest

import (
	"encoding/json"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// Sample is one document DGII refuses.
type Sample struct {
	Name string
	Type sello.DocumentType
	ENCF string
	// Body is the request body; Sello must answer VALIDATION_FAILED with a
	// detail at Path.
	Body []byte
	Path string
	// XML is the unsigned e-CF as Sello would have written it, signed at
	// the time given to Broken.
	XML []byte
	// XSD is DGII's schema of the type; SchemaValid is true when the schema
	// accepts XML and only DGII's format rules refuse it.
	XSD         string
	SchemaValid bool
	// Element is the XML element at fault.
	Element string
}

// Broken returns every broken sample, issued by rnc on the day of at and
// numbered 1, 2, 3… in its type.
func Broken(tb testing.TB, rnc string, at time.Time) []Sample {
	tb.Helper()
	b := &builder{tb: tb, rnc: rnc, at: at}
	dec := ecf.MustDecimal
	return []Sample{
		b.sample("NegativeMontoItem", "31", "ECF.DetallesItems.Item[0].MontoItem", "MontoItem", false,
			func(m map[string]any) {
				it := item(m, 0)
				it["CantidadItem"], it["PrecioUnitarioItem"], it["DescuentoMonto"] = 1, "100.00", "150.00"
			},
			func(d *ecf.Document) {
				it := &d.ECF.DetallesItems.Item[0]
				it.CantidadItem, it.PrecioUnitarioItem, it.DescuentoMonto, it.MontoItem = dec("1"), dec("100.00"), dec("150.00"), dec("-50.00")
				setTotals(d, "-50.00", "-9.00", "-59.00")
			}),
		b.sample("NegativeGlobalDiscount", "31", "ECF.Encabezado.Totales.MontoTotal", "MontoGravadoTotal", false,
			func(m map[string]any) { m["DescuentosORecargos"] = globalDiscount("1500.00") },
			func(d *ecf.Document) {
				d.ECF.DescuentosORecargos = &ecf.DescuentosORecargos{DescuentoORecargo: []ecf.DescuentoORecargo{{
					NumeroLinea: "1", TipoAjuste: "D", TipoValor: "$",
					MontoDescuentooRecargo: dec("1500.00"), IndicadorFacturacionDescuentooRecargo: "1",
				}}}
				setTotals(d, "-500.00", "-90.00", "-590.00")
			}),
		b.sample("AmountOverflow", "31", "ECF.Encabezado.Totales.MontoTotal", "MontoTotal", false,
			func(m map[string]any) {
				it := item(m, 0)
				it["CantidadItem"], it["PrecioUnitarioItem"] = 1, "9999999999999999.99"
			},
			func(d *ecf.Document) {
				it := &d.ECF.DetallesItems.Item[0]
				it.CantidadItem, it.PrecioUnitarioItem, it.MontoItem = dec("1"), dec("9999999999999999.99"), dec("9999999999999999.99")
				setTotals(d, "9999999999999999.99", "1800000000000000.00", "11799999999999999.99")
			}),
		b.sample("NumeroReferenciaText", "31", "ECF.Encabezado.InformacionesAdicionales.NumeroReferencia", "NumeroReferencia", false,
			func(m map[string]any) {
				m["Encabezado"].(map[string]any)["InformacionesAdicionales"] = map[string]any{"NumeroReferencia": "REF-2026-01"}
			},
			func(d *ecf.Document) {
				d.ECF.Encabezado.InformacionesAdicionales = &ecf.InformacionesAdicionales{NumeroReferencia: "REF-2026-01"}
			}),
		b.sample("OtraMonedaTotal", "31", "ECF.Encabezado.OtraMoneda.MontoTotalOtraMoneda", "MontoTotalOtraMoneda", true,
			func(m map[string]any) { m["Encabezado"].(map[string]any)["OtraMoneda"] = otraMoneda() },
			func(d *ecf.Document) {
				d.ECF.Encabezado.OtraMoneda = &ecf.OtraMoneda{
					TipoMoneda: "USD", TipoCambio: dec("59.00"),
					MontoGravadoTotalOtraMoneda: dec("16.95"), MontoGravado1OtraMoneda: dec("16.95"),
					TotalITBISOtraMoneda: dec("3.05"), TotalITBIS1OtraMoneda: dec("3.05"),
					MontoTotalOtraMoneda: dec("999.00"),
				}
			}),
		b.sample("ISROnGood", "41", "ECF.DetallesItems.Item[0].Retencion.MontoISRRetenido", "MontoISRRetenido", true,
			func(m map[string]any) { item(m, 0)["IndicadorBienoServicio"] = 1 },
			func(d *ecf.Document) { d.ECF.DetallesItems.Item[0].IndicadorBienoServicio = "1" }),
		b.sample("TooManyItems31", "31", "ECF.DetallesItems.Item", "Item", false,
			func(m map[string]any) { repeatItems(m, 1001) },
			func(d *ecf.Document) { repeat(d, 1001) }),
		b.sample("TooManyItems32", "32", "ECF.DetallesItems.Item", "Item", false,
			func(m map[string]any) { repeatItems(m, 1001) },
			func(d *ecf.Document) { repeat(d, 1001) }),
	}
}

type builder struct {
	tb  testing.TB
	rnc string
	at  time.Time
	n   int64 // samples built: each gets its own e-NCF
}

// base returns a valid request of type typ as generic JSON: SampleInvoice
// (two units at 500.00, 18% ITBIS), adjusted to the type.
func (b *builder) base(typ sello.DocumentType) map[string]any {
	body := ecf.SampleInvoice(b.rnc, sello.DateOf(b.at.In(sello.DRZone)))
	id := body["ECF"].(map[string]any)["Encabezado"].(map[string]any)["IdDoc"].(map[string]any)
	id["TipoeCF"] = string(typ)
	if typ == sello.TypeCompras {
		delete(id, "TipoIngresos")
		item(body["ECF"].(map[string]any), 0)["Retencion"] = map[string]any{
			"IndicadorAgenteRetencionoPercepcion": 1, "MontoITBISRetenido": "180.00", "MontoISRRetenido": "100.00",
		}
	}
	return body
}

// sample builds one Sample: breakJSON breaks the request, breakDoc the
// checked and numbered document.
func (b *builder) sample(name string, typ sello.DocumentType, path, element string, schemaValid bool, breakJSON func(ecf map[string]any), breakDoc func(*ecf.Document)) Sample {
	b.tb.Helper()
	b.n++
	encf := sello.ENCF{Type: typ, Number: b.n}
	s := Sample{Name: name, Type: typ, ENCF: encf.String(), Path: path, XSD: "e-CF-" + string(typ) + ".xsd", SchemaValid: schemaValid, Element: element}

	req := b.base(typ)
	breakJSON(req["ECF"].(map[string]any))
	s.Body = mustJSON(b.tb, req)

	d, err := ecf.Decode(mustJSON(b.tb, b.base(typ)))
	if err != nil {
		b.tb.Fatalf("%s: base: %v", name, err)
	}
	if err := ecf.Check(d, ecf.Issuance{TenantRNC: b.rnc, Now: b.at}); err != nil {
		b.tb.Fatalf("%s: base: %v %+v", name, err, err.(*sello.Error).Details)
	}
	expiry := sello.Date{Year: b.at.Year() + 1, Month: 12, Day: 31}
	if err := d.Number(encf, &sello.Sequence{Type: typ, From: 1, To: 100, Next: b.n + 1, ExpiresOn: &expiry}); err != nil {
		b.tb.Fatalf("%s: number: %v", name, err)
	}
	breakDoc(d)
	if s.XML, err = d.XML(b.at); err != nil {
		b.tb.Fatalf("%s: XML: %v", name, err)
	}
	return s
}

func item(ecfObj map[string]any, i int) map[string]any {
	return ecfObj["DetallesItems"].(map[string]any)["Item"].([]any)[i].(map[string]any)
}

// repeatItems makes the request's first item n lines.
func repeatItems(ecfObj map[string]any, n int) {
	first := item(ecfObj, 0)
	all := make([]any, n)
	for i := range all {
		it := maps.Clone(first)
		it["NumeroLinea"] = i + 1
		all[i] = it
	}
	ecfObj["DetallesItems"].(map[string]any)["Item"] = all
}

// repeat makes the checked document's first item n lines, with the totals
// of SampleInvoice's line (1000.00 + 18% ITBIS) times n.
func repeat(d *ecf.Document, n int) {
	first := d.ECF.DetallesItems.Item[0]
	items := make([]ecf.Item, n)
	for i := range items {
		items[i] = first
		items[i].NumeroLinea = ecf.Code(strconv.Itoa(i + 1))
	}
	d.ECF.DetallesItems.Item = items
	setTotals(d, strconv.Itoa(1000*n)+".00", strconv.Itoa(180*n)+".00", strconv.Itoa(1180*n)+".00")
}

// setTotals sets the totals of a document whose items are all taxed at 18%.
func setTotals(d *ecf.Document, gravado, itbis, total string) {
	t := d.ECF.Encabezado.Totales
	t.MontoGravadoTotal, t.MontoGravadoI1 = ecf.MustDecimal(gravado), ecf.MustDecimal(gravado)
	t.TotalITBIS, t.TotalITBIS1 = ecf.MustDecimal(itbis), ecf.MustDecimal(itbis)
	t.MontoTotal = ecf.MustDecimal(total)
}

func globalDiscount(amount string) map[string]any {
	return map[string]any{"DescuentoORecargo": []any{map[string]any{
		"NumeroLinea": 1, "TipoAjuste": "D", "TipoValor": "$",
		"MontoDescuentooRecargo": amount, "IndicadorFacturacionDescuentooRecargo": 1,
	}}}
}

// otraMoneda is SampleInvoice's totals in USD at 59.00 whose total, 999.00,
// is not the sum of its parts (16.95 + 3.05); the document side of the
// OtraMonedaTotal sample spells the same values.
func otraMoneda() map[string]any {
	return map[string]any{
		"TipoMoneda": "USD", "TipoCambio": "59.00",
		"MontoGravadoTotalOtraMoneda": "16.95", "MontoGravado1OtraMoneda": "16.95",
		"TotalITBISOtraMoneda": "3.05", "TotalITBIS1OtraMoneda": "3.05",
		"MontoTotalOtraMoneda": "999.00",
	}
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
