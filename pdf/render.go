package pdf

import (
	"fmt"
	"strings"
	"time"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/image"
	"github.com/johnfercher/maroto/v2/pkg/components/line"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/border"
	"github.com/johnfercher/maroto/v2/pkg/consts/extension"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/consts/pagesize"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/props"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// Meta is what Sello knows about a document beyond its e-CF content.
type Meta struct {
	// Environment decides the test banner: outside eCF (production) every
	// page says "DOCUMENTO DE PRUEBA — sin validez fiscal".
	Environment sello.Environment
	// ENCF is the document's e-NCF; it must equal IdDoc.eNCF when the
	// document carries one.
	ENCF string
	// SecurityCode is the 6-character código de seguridad (the first six
	// hexadecimal characters of the signature value), printed below the QR.
	SecurityCode string
	// SignedAt is FechaHoraFirma, printed as dd-MM-yyyy HH:mm:ss in GMT-4
	// (sello.DRZone).
	SignedAt time.Time
	// QRURL is DGII's consultatimbre URL, encoded in the QR as given.
	QRURL string
	// Status is the document's fiscal status: a rejected or failed document
	// is printed with a banner saying it has no fiscal validity.
	Status sello.Status
	// Contingency prints, under the header, the legend of an e-CF issued
	// in contingency (sello.Document.Contingency): ContingencyLegend.
	Contingency bool
}

// ContingencyLegend is printed on an e-CF issued in contingency, as the
// 2026 Instructivo Contingencia FE asks (known from a secondary source,
// UNCERTAIN: FACTS §5.3, which quotes its start only).
const ContingencyLegend = "e-CF emitido en modalidad de Contingencia"

// Page geometry in millimetres (US Letter, the usual paper in the Dominican
// Republic). DGII wants the QR at least 2 cm from the sheet's edge.
const (
	marginLeft   = 20.0
	marginRight  = 15.0
	marginTop    = 12.0
	marginBottom = 14.0
	grid         = 24   // maroto grid columns
	pageNumberH  = 6.0  // reserved at the bottom of each page for "Página n de m"
	qrSymbolMM   = 26.0 // the QR symbol without its quiet zone (DGII: ≥ 22 mm)
	lineH        = 4.2  // one line of the totals block
	baseSize     = 8.0  // body font size
)

var (
	gray       = &props.Color{Red: 90, Green: 90, Blue: 90}
	red        = &props.Color{Red: 190, Green: 20, Blue: 20}
	headFill   = &props.Color{Red: 225, Green: 228, Blue: 232}
	bannerFill = &props.Color{Red: 255, Green: 236, Blue: 236}
)

// Render returns DGII's printed representation (representación impresa) of
// d as a PDF: the issuer, the e-CF type in words, the e-NCF and dates, the
// buyer, the reference of notes, the payment terms, the items, the global
// discounts and surcharges, the totals and, at the bottom left of the last
// page, the timbre QR with the security code and the signature date below
// it. Pages are numbered "Página n de m" and each starts with the issuer and
// document block.
//
// d must have passed ecf.Check (its totals filled in). Returns
// VALIDATION_FAILED when m lacks the e-NCF, the 6-character security code,
// the signature time or the QR URL, or when m.ENCF differs from the
// document's e-NCF; INTERNAL when the PDF cannot be produced.
func Render(d *ecf.Document, m Meta) ([]byte, error) {
	if err := checkMeta(d, m); err != nil {
		return nil, err
	}
	qr, err := encodeQR(m.QRURL, qrSymbolMM)
	if err != nil {
		return nil, &sello.Error{Code: sello.CodeValidationFailed, Message: "The QR URL is too long for a QR code.", Err: err}
	}
	r := newRenderer(d, m, qr)
	out, err := r.render()
	if err != nil {
		return nil, &sello.Error{Code: sello.CodeInternal, Message: "The printed representation could not be produced.", Err: err}
	}
	return out, nil
}

func checkMeta(d *ecf.Document, m Meta) error {
	var p sello.Problems
	switch {
	case m.ENCF == "":
		p.Add("ENCF", "Required: the document's e-NCF.")
	case d.ENCF() != "" && d.ENCF() != m.ENCF:
		p.Addf("ENCF", "Must equal the document's eNCF %s.", d.ENCF())
	}
	if len([]rune(m.SecurityCode)) != 6 {
		p.Add("SecurityCode", "Must be the 6-character security code.")
	}
	if m.SignedAt.IsZero() {
		p.Add("SignedAt", "Required: the signature date and time.")
	}
	if m.QRURL == "" {
		p.Add("QRURL", "Required: DGII's consultatimbre URL for the QR.")
	}
	if d.ECF.Encabezado == nil || d.ECF.Encabezado.IdDoc == nil || d.ECF.Encabezado.Emisor == nil {
		p.Add("ECF.Encabezado", "The document has no IdDoc or Emisor: render a document that passed ecf.Check.")
	}
	return p.Err()
}

type renderer struct {
	d   *ecf.Document
	e   *ecf.Encabezado
	m   Meta
	qr  timbreQR
	p   *pager
	doc core.Maroto
}

func newRenderer(d *ecf.Document, m Meta, qr timbreQR) *renderer {
	cfg := config.NewBuilder().
		WithPageSize(pagesize.Letter).
		WithLeftMargin(marginLeft).
		WithRightMargin(marginRight).
		WithTopMargin(marginTop).
		WithBottomMargin(marginBottom).
		WithMaxGridSize(grid).
		WithDefaultFont(&props.Font{Family: family, Size: baseSize}).
		WithPageNumber(props.PageNumber{Pattern: cp1252("Página {current} de {total}"), Place: props.RightBottom, Family: family, Size: 7.5, Color: gray}).
		WithCompression(true).
		WithTitle(TypeName(d.Type())+" "+m.ENCF, true).
		WithCreator("Sello", true).
		WithCreationDate(m.SignedAt).
		WithSequentialMode().
		Build()
	doc := maroto.New(cfg)
	return &renderer{d: d, e: d.ECF.Encabezado, m: m, qr: qr, doc: doc, p: newPager(doc, pageNumberH)}
}

func (r *renderer) render() ([]byte, error) {
	r.p.header = r.pageHeader
	for _, row := range r.pageHeader() {
		r.p.add(row)
	}
	r.p.add(r.reference()...)
	r.p.add(r.payment()...)
	adj := r.adjustments()
	block, blockH := r.timbre()
	tail := blockH
	for _, row := range adj {
		tail += r.p.height(row)
	}
	r.items(tail)
	r.p.add(adj...)
	if !r.p.fits(blockH) {
		r.p.newPage()
	}
	r.p.space(r.p.remaining() - blockH - 0.01)
	r.p.add(block)
	out, err := r.doc.Generate()
	if err != nil {
		return nil, fmt.Errorf("generate pdf: %w", err)
	}
	return out.GetBytes(), nil
}

// Text helpers.

func txt(s string, ps ...props.Text) core.Component {
	p := props.Text{}
	if len(ps) > 0 {
		p = ps[0]
	}
	if p.Family == "" {
		p.Family = family
	}
	return text.New(cp1252(s), p)
}

func bold(size float64) props.Text { return props.Text{Style: fontstyle.Bold, Size: size} }

func right(p props.Text) props.Text { p.Align = align.Right; return p }

func small() props.Text { return props.Text{Size: 7, Color: gray} }

// pair is a row of a left and a right text of the header block.
func pair(l core.Component, r core.Component) core.Row {
	return row.New().Add(col.New(12).Add(l), col.New(12).Add(r))
}

func blank(h float64) core.Row { return row.New(h) }

func rule() core.Row {
	return line.NewRow(3, props.Line{Thickness: 0.3, Color: gray, SizePercent: 100})
}

// pageHeader is the block that opens every page: the issuer on the left;
// the type in words, e-NCF, issue date and sequence expiry on the right;
// the test banner; the buyer.
func (r *renderer) pageHeader() []core.Row {
	em, id := r.e.Emisor, r.e.IdDoc
	var left, rightCol []core.Component
	left = append(left, txt(em.RazonSocialEmisor, bold(11)))
	if em.NombreComercial != "" {
		left = append(left, txt(em.NombreComercial, bold(baseSize)))
	}
	left = append(left, txt("RNC: "+em.RNCEmisor))
	addr := em.DireccionEmisor
	if em.Sucursal != "" {
		addr = "Sucursal " + em.Sucursal + " — " + addr
	}
	left = append(left, txt(addr))
	var place []string
	if em.Municipio != "" {
		place = append(place, placeName(em.Municipio))
	}
	if em.Provincia != "" {
		place = append(place, placeName(em.Provincia))
	}
	if len(place) > 0 {
		left = append(left, txt(strings.Join(place, ", ")))
	}
	if t := em.TablaTelefonoEmisor; t != nil && len(t.TelefonoEmisor) > 0 {
		left = append(left, txt("Tel.: "+strings.Join(t.TelefonoEmisor, " / ")))
	}
	var contact []string
	if em.CorreoEmisor != "" {
		contact = append(contact, em.CorreoEmisor)
	}
	if em.WebSite != "" {
		contact = append(contact, em.WebSite)
	}
	if len(contact) > 0 {
		left = append(left, txt(strings.Join(contact, " · ")))
	}

	rightCol = append(rightCol,
		txt(TypeName(r.d.Type()), right(bold(10))),
		txt("e-NCF: "+r.m.ENCF, right(bold(10))),
		txt("Fecha de emisión: "+em.FechaEmision, right(props.Text{})),
	)
	if id.FechaVencimientoSecuencia != "" {
		rightCol = append(rightCol, txt("Fecha de vencimiento e-NCF: "+id.FechaVencimientoSecuencia, right(props.Text{})))
	}
	var rows []core.Row
	for i := 0; i < max(len(left), len(rightCol)); i++ {
		var l, rc core.Component = txt(""), txt("")
		if i < len(left) {
			l = left[i]
		}
		if i < len(rightCol) {
			rc = rightCol[i]
		}
		rows = append(rows, pair(l, rc))
	}
	if b := r.banner(); b != "" {
		rows = append(rows, blank(1.5), row.New(7).Add(col.New().Add(
			txt(b, props.Text{Style: fontstyle.Bold, Size: 10, Color: red, Align: align.Center, Top: 1.5}),
		)).WithStyle(&props.Cell{BackgroundColor: bannerFill, BorderColor: red, BorderType: border.Full, BorderThickness: 0.4}), blank(2))
	} else {
		rows = append(rows, blank(1), rule())
	}
	if r.m.Contingency {
		rows = append(rows, row.New(6).Add(col.New().Add(
			txt(ContingencyLegend, props.Text{Style: fontstyle.Bold, Size: 9, Align: align.Center, Top: 1}),
		)))
	}
	rows = append(rows, r.buyer()...)
	return rows
}

// banner is the warning printed on every page of a document without fiscal
// validity, or "".
func (r *renderer) banner() string {
	switch r.m.Status {
	case sello.StatusRejected:
		return "e-CF RECHAZADO POR LA DGII — sin validez fiscal"
	case sello.StatusFailed:
		return "e-CF NO RECIBIDO POR LA DGII — sin validez fiscal"
	}
	if r.m.Environment != sello.EnvProd {
		env := string(r.m.Environment)
		if env == "" {
			env = "sin ambiente"
		}
		return "DOCUMENTO DE PRUEBA — sin validez fiscal (ambiente " + env + ")"
	}
	return ""
}

// buyer is the Comprador block: for 41 (Compras) it holds the seller, for
// 47 the foreign beneficiary of the payment.
func (r *renderer) buyer() []core.Row {
	c := r.e.Comprador
	if c == nil {
		return nil
	}
	var who string
	switch r.d.Type() {
	case sello.TypeCompras:
		who = "Proveedor"
	case sello.TypePagosExterior:
		who = "Beneficiario"
	default:
		who = "Cliente"
	}
	var rows []core.Row
	if c.RNCComprador != "" {
		rows = append(rows, labelRow("RNC/Cédula "+strings.ToLower(who)+":", c.RNCComprador))
	}
	if c.IdentificadorExtranjero != "" {
		rows = append(rows, labelRow("Identificación extranjera:", c.IdentificadorExtranjero))
	}
	if c.RazonSocialComprador != "" {
		rows = append(rows, labelRow("Razón social "+strings.ToLower(who)+":", c.RazonSocialComprador))
	}
	if c.DireccionComprador != "" {
		rows = append(rows, labelRow("Dirección:", c.DireccionComprador))
	}
	if len(rows) == 0 {
		return nil
	}
	return append(rows, blank(1), rule())
}

func labelRow(label, value string) core.Row {
	return row.New().Add(
		col.New(5).Add(txt(label, bold(baseSize))),
		col.New(19).Add(txt(value)),
	)
}

// reference is InformacionReferencia (notes 33 and 34, replacements):
// NCF modified, its date, the modification code in words and the reason.
func (r *renderer) reference() []core.Row {
	ir := r.d.ECF.InformacionReferencia
	if ir == nil {
		return nil
	}
	rows := []core.Row{labelRow("NCF modificado:", ir.NCFModificado)}
	if ir.FechaNCFModificado != "" {
		rows = append(rows, labelRow("Fecha NCF modificado:", ir.FechaNCFModificado))
	}
	if ir.RNCOtroContribuyente != "" {
		rows = append(rows, labelRow("RNC otro contribuyente:", ir.RNCOtroContribuyente))
	}
	if ir.CodigoModificacion != "" {
		name, ok := modificationNames[ir.CodigoModificacion]
		if !ok {
			name = "Código " + string(ir.CodigoModificacion)
		}
		rows = append(rows, labelRow("Modificación:", name))
	}
	if ir.RazonModificacion != "" {
		rows = append(rows, labelRow("Razón:", ir.RazonModificacion))
	}
	return append(rows, blank(1), rule())
}

// payment is the payment terms: TipoPago in words, the due date, the terms
// and the forms of payment.
func (r *renderer) payment() []core.Row {
	id := r.e.IdDoc
	var parts []string
	if n, ok := paymentTypes[id.TipoPago]; ok {
		parts = append(parts, "Tipo de pago: "+n)
	}
	if id.FechaLimitePago != "" {
		parts = append(parts, "Fecha límite de pago: "+id.FechaLimitePago)
	}
	if id.TerminoPago != "" {
		parts = append(parts, "Término: "+id.TerminoPago)
	}
	if t := id.TablaFormasPago; t != nil {
		for _, f := range t.FormaDePago {
			n, ok := paymentForms[f.FormaPago]
			if !ok {
				n = "Forma " + string(f.FormaPago)
			}
			parts = append(parts, n+": "+Money(f.MontoPago))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []core.Row{
		row.New().Add(col.New().Add(txt(strings.Join(parts, "    ")))),
		blank(2),
	}
}

// Items table columns, in grid units (24 in all).
const (
	wQty   = 2
	wName  = 9
	wUnit  = 3
	wPrice = 3
	wTax   = 2
	wAdj   = 2
	wValue = 3
)

func (r *renderer) columnHeads() core.Row {
	h := props.Text{Style: fontstyle.Bold, Size: 7.5, Top: 1}
	hr := right(h)
	hr.Right = 1
	hl := h
	hl.Left = 1
	hc := h
	hc.Align = align.Center
	return row.New(6).Add(
		col.New(wQty).Add(txt("Cant.", hr)),
		col.New(wName).Add(txt("Descripción", hl)),
		col.New(wUnit).Add(txt("Unidad", hl)),
		col.New(wPrice).Add(txt("Precio", hr)),
		col.New(wTax).Add(txt("ITBIS", hc)),
		col.New(wAdj).Add(txt("Desc./Rec.", hr)),
		col.New(wValue).Add(txt("Valor", hr)),
	).WithStyle(&props.Cell{BackgroundColor: headFill})
}

// items adds the items table, repeating the column heads on every page. The
// last item goes to a new page when the tail (the height of what follows
// the table) would not fit after it, so that the totals never stand alone.
func (r *renderer) items(tail float64) {
	var items []ecf.Item
	if di := r.d.ECF.DetallesItems; di != nil {
		items = di.Item
	}
	heads := r.columnHeads()
	for i := range items {
		rows := r.itemRows(&items[i])
		if i == 0 {
			r.p.addTogether(append([]core.Row{heads}, rows...)...)
			continue
		}
		var h float64
		for _, row := range rows {
			h += r.p.height(row)
		}
		if i == len(items)-1 && r.p.fits(h) && !r.p.fits(h+r.p.height(blank(1))+r.p.height(rule())+tail) {
			h = r.p.remaining() + 1 // keep the last item with the totals
		}
		if !r.p.fits(h) {
			r.p.newPage()
			r.p.add(heads)
		}
		r.p.add(rows...)
	}
	r.p.add(blank(1), rule())
}

func (r *renderer) itemRows(it *ecf.Item) []core.Row {
	p := props.Text{Top: 1}
	pr := right(p)
	pr.Right = 1
	pl := p
	pl.Left = 1
	pc := p
	pc.Align = align.Center
	var adj string
	switch {
	case it.DescuentoMonto != nil && it.RecargoMonto != nil:
		adj = "-" + Amount(it.DescuentoMonto) + " +" + Amount(it.RecargoMonto)
	case it.DescuentoMonto != nil:
		adj = "-" + Amount(it.DescuentoMonto)
	case it.RecargoMonto != nil:
		adj = "+" + Amount(it.RecargoMonto)
	}
	unit := ""
	if it.UnidadMedida != "" {
		unit = unitName(it.UnidadMedida)
	}
	rows := []core.Row{row.New().Add(
		col.New(wQty).Add(txt(quantity(it.CantidadItem), pr)),
		col.New(wName).Add(txt(it.NombreItem, pl)),
		col.New(wUnit).Add(txt(unit, pl)),
		col.New(wPrice).Add(txt(Amount(it.PrecioUnitarioItem), pr)),
		col.New(wTax).Add(txt(r.taxLabel(it.IndicadorFacturacion), pc)),
		col.New(wAdj).Add(txt(adj, pr)),
		col.New(wValue).Add(txt(Amount(it.MontoItem), pr)),
	)}
	if it.DescripcionItem != "" {
		d := small()
		d.Left = 1
		rows = append(rows, row.New().Add(col.New(wQty), col.New(grid-wQty).Add(txt(it.DescripcionItem, d))))
	}
	return rows
}

// taxLabel is IndicadorFacturacion for print: the ITBIS rate of the item,
// "E" (exento) or "N/F" (no facturable).
func (r *renderer) taxLabel(ind ecf.Code) string {
	t := r.e.Totales
	rateOf := func(c ecf.Code, def string) string {
		if c != "" {
			return rate(string(c))
		}
		return def
	}
	switch ind {
	case "0":
		return "N/F"
	case "1":
		return rateOf(totalsCode(t, 1), "18%")
	case "2":
		return rateOf(totalsCode(t, 2), "16%")
	case "3":
		return rateOf(totalsCode(t, 3), "0%")
	case "4":
		return "E"
	}
	return string(ind)
}

func totalsCode(t *ecf.Totales, n int) ecf.Code {
	if t == nil {
		return ""
	}
	switch n {
	case 1:
		return t.ITBIS1
	case 2:
		return t.ITBIS2
	case 3:
		return t.ITBIS3
	}
	return ""
}

// adjustments is DescuentosORecargos: the global discounts and surcharges.
func (r *renderer) adjustments() []core.Row {
	dr := r.d.ECF.DescuentosORecargos
	if dr == nil || len(dr.DescuentoORecargo) == 0 {
		return nil
	}
	rows := []core.Row{row.New().Add(col.New().Add(txt("Descuentos y recargos", bold(baseSize))))}
	for _, a := range dr.DescuentoORecargo {
		kind, sign := "Descuento", "-"
		if a.TipoAjuste == "R" {
			kind, sign = "Recargo", ""
		}
		desc := kind
		if a.DescripcionDescuentooRecargo != "" {
			desc += ": " + a.DescripcionDescuentooRecargo
		}
		if a.TipoValor == "%" && a.ValorDescuentooRecargo != nil {
			desc += " (" + rate(a.ValorDescuentooRecargo.String()) + ")"
		}
		rows = append(rows, row.New().Add(
			col.New(grid-wValue).Add(txt(desc)),
			col.New(wValue).Add(txt(sign+Amount(a.MontoDescuentooRecargo), props.Text{Align: align.Right, Right: 1})),
		))
	}
	return append(rows, blank(1), rule())
}

// totalLine is one line of the totals block.
type totalLine struct {
	label, value string
	strong       bool
}

// totals lists the totals DGII's format prints, only those present:
// the taxed amounts per rate, the exempt amount, ITBIS per rate and in
// total, additional taxes, MontoTotal, the non-billable amount, the
// withholdings and perceptions, the period amounts and the total in the
// other currency.
func (r *renderer) totals() []totalLine {
	t := r.e.Totales
	if t == nil {
		return nil
	}
	var out []totalLine
	add := func(label string, d *ecf.Decimal) {
		if d != nil {
			out = append(out, totalLine{label: label, value: Money(d)})
		}
	}
	rateLabel := func(n int, def string) string {
		if c := totalsCode(t, n); c != "" {
			return rate(string(c))
		}
		return def
	}
	add("Monto gravado ITBIS "+rateLabel(1, "18%"), t.MontoGravadoI1)
	add("Monto gravado ITBIS "+rateLabel(2, "16%"), t.MontoGravadoI2)
	add("Monto gravado ITBIS "+rateLabel(3, "0%"), t.MontoGravadoI3)
	if t.MontoGravadoI1 == nil && t.MontoGravadoI2 == nil && t.MontoGravadoI3 == nil {
		add("Monto gravado total", t.MontoGravadoTotal)
	}
	add("Monto exento", t.MontoExento)
	add("ITBIS "+rateLabel(1, "18%"), t.TotalITBIS1)
	add("ITBIS "+rateLabel(2, "16%"), t.TotalITBIS2)
	add("ITBIS "+rateLabel(3, "0%"), t.TotalITBIS3)
	add("Total ITBIS", t.TotalITBIS)
	if ia := t.ImpuestosAdicionales; ia != nil {
		for _, x := range ia.ImpuestoAdicional {
			sum := x.MontoImpuestoSelectivoConsumoEspecifico.Value().
				Add(x.MontoImpuestoSelectivoConsumoAdvalorem.Value()).
				Add(x.OtrosImpuestosAdicionales.Value())
			label := additionalTaxName(x.TipoImpuesto) + " (" + string(x.TipoImpuesto) + ")"
			if x.TasaImpuestoAdicional != nil && atoi(string(x.TipoImpuesto)) != -1 && !(atoi(string(x.TipoImpuesto)) >= 6 && atoi(string(x.TipoImpuesto)) <= 22) {
				label += " " + rate(x.TasaImpuestoAdicional.String())
			}
			out = append(out, totalLine{label: label, value: "RD$ " + group(sum.StringFixed(2))})
		}
	}
	add("Total impuestos adicionales", t.MontoImpuestoAdicional)
	add("Monto no facturable", t.MontoNoFacturable)
	if t.MontoTotal != nil {
		out = append(out, totalLine{label: "MONTO TOTAL", value: Money(t.MontoTotal), strong: true})
	}
	add("ITBIS retenido", t.TotalITBISRetenido)
	add("ISR retenido", t.TotalISRRetencion)
	add("ITBIS percibido", t.TotalITBISPercepcion)
	add("ISR percibido", t.TotalISRPercepcion)
	add("Monto del período", t.MontoPeriodo)
	add("Saldo anterior", t.SaldoAnterior)
	add("Monto avance de pago", t.MontoAvancePago)
	add("Valor a pagar", t.ValorPagar)
	if om := r.e.OtraMoneda; om != nil && om.MontoTotalOtraMoneda != nil {
		label := "Total en " + string(om.TipoMoneda)
		if om.TipoCambio != nil {
			label += " (tasa " + Amount(om.TipoCambio) + ")"
		}
		out = append(out, totalLine{label: label, value: Amount(om.MontoTotalOtraMoneda)})
	}
	return out
}

// timbre is the last block, for the bottom of the last page, and its
// height: on the left the QR (DGII: lower left, at least 22×22 mm, with its
// margin) with the security code and the signature date-time below it; on
// the right the totals.
func (r *renderer) timbre() (core.Row, float64) {
	lines := r.totals()
	const qrCol = 8 // grid units for the QR column
	quiet := qrSymbolMM * float64(r.qr.quiet) / float64(r.qr.modules)
	img := qrSymbolMM + 2*quiet
	qrBlock := img + 2 + 2*lineH
	totalsH := float64(len(lines))*lineH + 2
	h := max(qrBlock, totalsH)

	colW := r.p.cell.Width * qrCol / grid
	percent := img / min(colW, h) * 100
	signed := r.m.SignedAt.In(sello.DRZone).Format("02-01-2006 15:04:05")
	// The image carries the quiet zone (≥ 3 mm), so the symbol's left edge
	// sits that much right of the 20 mm margin.
	left := col.New(qrCol).Add(
		image.NewFromBytes(r.qr.png, extension.Png, props.Rect{Percent: percent}),
		txt("Código de seguridad: "+r.m.SecurityCode, props.Text{Top: img + 1, Style: fontstyle.Bold}),
		txt("Fecha de firma digital: "+signed, props.Text{Top: img + 1 + lineH}),
	)
	labels := col.New(9)
	values := col.New(5)
	for i, l := range lines {
		p := props.Text{Top: float64(i)*lineH + 1, Align: align.Right}
		if l.strong {
			p.Style = fontstyle.Bold
			p.Size = 9
		}
		labels.Add(txt(l.label, p))
		pv := p
		pv.Right = 1
		values.Add(txt(l.value, pv))
	}
	return row.New(h).Add(left, col.New(grid-qrCol-9-5), labels, values), h
}
