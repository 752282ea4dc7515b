package ecf

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sello-do/sello"
	"github.com/shopspring/decimal"
)

// checkRules applies DGII's rules beyond formats and the obligation table:
// identity, dates, the conditional (code 2) elements whose condition the
// document decides, items, discounts, pagination, references and totals.
func (c *checker) checkRules() {
	c.checkIdentity()
	c.checkDates()
	c.checkPayment()
	c.checkItems()
	c.checkGlobalAdjustments()
	c.checkReference()
	c.checkNumeroReferencia()
	c.checkOtraMoneda()
	c.checkTotals()
	c.checkAdditionalTaxes() // needs MontoItem
	c.checkBuyer()           // needs MontoTotal
	c.checkPagination()
}

const (
	pIdDoc  = "ECF.Encabezado.IdDoc."
	pEmisor = "ECF.Encabezado.Emisor."
	pComp   = "ECF.Encabezado.Comprador."
	pRef    = "ECF.InformacionReferencia."
)

func (c *checker) checkIdentity() {
	id := c.idDoc()
	if c.doc.ECF.Encabezado == nil {
		c.add("ECF.Encabezado", "Required.")
		return
	}
	if id.TipoeCF == "" {
		c.add(pIdDoc+"TipoeCF", "Required: the e-CF type (31, 32, 33, 34, 41, 43, 44, 45, 46 or 47) decides which rules apply.")
	}
	// A malformed e-NCF is the structure check's (format encf): only its
	// type is checked here.
	if e, err := sello.ParseENCF(id.ENCF); err == nil && c.col >= 0 && e.Type != c.typ {
		c.addf(pIdDoc+"eNCF", "e-NCF %s is of type %s but TipoeCF is %s.", id.ENCF, e.Type, c.typ)
	}
	if rnc := c.emisor().RNCEmisor; rnc != "" && c.issuance.TenantRNC != "" && rnc != c.issuance.TenantRNC {
		c.addf(pEmisor+"RNCEmisor", "Must be the RNC of the account, %s; got %s.", c.issuance.TenantRNC, rnc)
	}
	if c.doc.ECF.FechaHoraFirma != "" {
		c.add("ECF.FechaHoraFirma", "Must be omitted: FechaHoraFirma is set by Sello at signing.")
	}
	if len(c.doc.ECF.Signature) > 0 {
		c.add("ECF.Signature", "Must be omitted: the signature is set by Sello at signing.")
	}
}

// date parses a DGII date field; ok is false when absent or invalid (the
// format check reports invalid ones).
func dateOf(s string) (time.Time, bool) { return parseDGIIDate(s) }

func (c *checker) checkDates() {
	id := c.idDoc()
	emision, hasEmision := dateOf(c.emisor().FechaEmision)
	if hasEmision {
		today := sello.TodayInDR(c.issuance.Now)
		if sello.DateOf(emision).After(today) {
			c.addf(pEmisor+"FechaEmision", "Must not be in the future: today is %s in the Dominican Republic; got %s.", today.DGII(), c.emisor().FechaEmision)
		}
	}
	if v, ok := dateOf(id.FechaVencimientoSecuencia); ok && hasEmision && emision.After(v) {
		c.addf(pIdDoc+"FechaVencimientoSecuencia", "The sequence expires on %s, before FechaEmision %s.", id.FechaVencimientoSecuencia, c.emisor().FechaEmision)
	}
	if v, ok := dateOf(id.FechaLimitePago); ok && hasEmision && v.Before(emision) {
		c.addf(pIdDoc+"FechaLimitePago", "Must be on or after FechaEmision %s; got %s.", c.emisor().FechaEmision, id.FechaLimitePago)
	}
	desde, ok1 := dateOf(id.FechaDesde)
	hasta, ok2 := dateOf(id.FechaHasta)
	if ok1 && ok2 && hasta.Before(desde) {
		c.addf(pIdDoc+"FechaHasta", "Must be on or after FechaDesde %s; got %s.", id.FechaDesde, id.FechaHasta)
	}
	if r := c.doc.ECF.InformacionReferencia; r != nil {
		if v, ok := dateOf(r.FechaNCFModificado); ok && hasEmision && v.After(emision) {
			c.addf(pRef+"FechaNCFModificado", "Must be on or before FechaEmision %s: the modified document is older; got %s.", c.emisor().FechaEmision, r.FechaNCFModificado)
		}
		// IndicadorNotaCredito: 0 when the modified e-CF is at most 30
		// days older than the credit note, 1 beyond.
		if v, ok := dateOf(r.FechaNCFModificado); ok && hasEmision && c.typ == sello.TypeNotaCredito && id.IndicadorNotaCredito != "" {
			want := "0"
			if emision.Sub(v) > 30*24*time.Hour {
				want = "1"
			}
			if string(id.IndicadorNotaCredito) != want && (id.IndicadorNotaCredito == "0" || id.IndicadorNotaCredito == "1") {
				if want == "0" {
					c.addf(pIdDoc+"IndicadorNotaCredito", "Must be %s: the modified e-CF (%s) is at most 30 days before FechaEmision %s.", want, r.FechaNCFModificado, c.emisor().FechaEmision)
				} else {
					c.addf(pIdDoc+"IndicadorNotaCredito", "Must be %s: the modified e-CF (%s) is more than 30 days before FechaEmision %s.", want, r.FechaNCFModificado, c.emisor().FechaEmision)
				}
			}
		}
	}
}

func (c *checker) checkPayment() {
	id := c.idDoc()
	if c.conditional(pIdDoc + "FechaLimitePago") {
		switch {
		case id.TipoPago == "2" && id.FechaLimitePago == "":
			c.add(pIdDoc+"FechaLimitePago", "Required when TipoPago is 2 (credit).")
		case id.TipoPago != "" && id.TipoPago != "2" && id.FechaLimitePago != "":
			c.addf(pIdDoc+"FechaLimitePago", "Must be omitted: it applies only to credit sales (TipoPago 2); TipoPago is %s.", id.TipoPago)
		}
	}
	if id.TablaFormasPago != nil {
		for i, f := range id.TablaFormasPago.FormaDePago {
			if f.FormaPago == "5" && c.col >= 0 && c.typ != sello.TypeConsumo {
				c.addf(fmt.Sprintf(pIdDoc+"TablaFormasPago.FormaDePago[%d].FormaPago", i), "FormaPago 5 (gift vouchers or certificates) is only for type 32.")
			}
		}
	}
	if c.conditional(pIdDoc+"IndicadorMontoGravado") && id.IndicadorMontoGravado == "" {
		for _, it := range c.items() {
			if ind := indicador(it.IndicadorFacturacion); ind >= 1 && ind <= 3 {
				c.add(pIdDoc+"IndicadorMontoGravado", "Required when items are taxed with ITBIS: 0 if item prices exclude ITBIS, 1 if they include it.")
				break
			}
		}
	}
}

func itemPath(i int) string { return "ECF.DetallesItems.Item[" + strconv.Itoa(i) + "]" }

func (c *checker) checkItems() {
	if c.doc.ECF.DetallesItems == nil || len(c.items()) == 0 {
		if c.doc.ECF.DetallesItems == nil {
			c.add("ECF.DetallesItems", "Required: at least one item.")
		}
		return
	}
	for i := range c.items() {
		it := &c.items()[i]
		p := itemPath(i)
		if it.NumeroLinea != "" && string(it.NumeroLinea) != strconv.Itoa(i+1) {
			c.addf(p+".NumeroLinea", "Must be %d: lines are numbered 1, 2, 3… in order; got %s.", i+1, it.NumeroLinea)
		}
		ind := indicador(it.IndicadorFacturacion)
		switch c.typ {
		case sello.TypeGastosMenores, sello.TypeRegimenesEspeciales, sello.TypePagosExterior:
			if ind >= 0 && ind != 4 {
				c.addf(p+".IndicadorFacturacion", "Must be 4 (exempt) for type %s; got %s.", c.typ, it.IndicadorFacturacion)
			}
		case sello.TypeExportaciones:
			if ind >= 0 && ind != 3 {
				c.addf(p+".IndicadorFacturacion", "Must be 3 (ITBIS at 0%%) for type 46; got %s.", it.IndicadorFacturacion)
			}
		}
		if c.typ == sello.TypePagosExterior && it.IndicadorBienoServicio != "" && it.IndicadorBienoServicio != "2" {
			c.addf(p+".IndicadorBienoServicio", "Must be 2 (service) for type 47; got %s.", it.IndicadorBienoServicio)
		}
		if r := it.Retencion; r != nil {
			if r.IndicadorAgenteRetencionoPercepcion == "" {
				c.add(p+".Retencion.IndicadorAgenteRetencionoPercepcion", "Required when Retencion is given.")
			}
			if c.typ == sello.TypeCompras && it.IndicadorBienoServicio == "2" && r.MontoISRRetenido == nil {
				c.add(p+".Retencion.MontoISRRetenido", "Required for type 41 when the item is a service (IndicadorBienoServicio 2).")
			}
			if c.typ == sello.TypeCompras && it.IndicadorBienoServicio == "1" && r.MontoISRRetenido != nil {
				c.add(p+".Retencion.MontoISRRetenido", "Must be omitted for a good (IndicadorBienoServicio 1) in type 41: ISR is retained on services only (DGII's format, Retencion field 7b).")
			}
			if ind == 4 && r.IndicadorAgenteRetencionoPercepcion == "1" && r.MontoITBISRetenido == nil && c.allowed("ECF.DetallesItems.Item.Retencion.MontoITBISRetenido") {
				c.add(p+".Retencion.MontoITBISRetenido", "Required (as 0) for an exempt item (IndicadorFacturacion 4) with a retention agent (IndicadorAgenteRetencionoPercepcion 1).")
			}
		}
		c.checkSubAdjustments(p, it)
		c.checkItemTaxes(p, it)
		if om := it.OtraMonedaDetalle; om != nil && om.PrecioOtraMoneda != nil && om.MontoItemOtraMoneda != nil && it.CantidadItem != nil {
			want := round2(om.PrecioOtraMoneda.Value().Mul(it.CantidadItem.Value()).Sub(om.DescuentoOtraMoneda.Value()).Add(om.RecargoOtraMoneda.Value()))
			if om.MontoItemOtraMoneda.Value().Sub(want).Abs().GreaterThan(lineTolerance) {
				c.addf(p+".OtraMonedaDetalle.MontoItemOtraMoneda", "Must be PrecioOtraMoneda × CantidadItem − DescuentoOtraMoneda + RecargoOtraMoneda = %s (tolerance ±1.00); got %s.", amountOf(want), om.MontoItemOtraMoneda)
			}
		}
	}
}

// subAdjustment is one row of TablaSubDescuento or TablaSubRecargo.
type subAdjustment struct {
	tipo    string
	percent *Decimal
	amount  *Decimal
}

// checkSubAdjustments checks an item's discount and surcharge breakdowns.
func (c *checker) checkSubAdjustments(p string, it *Item) {
	var desc, rec []subAdjustment
	if it.TablaSubDescuento != nil {
		for _, s := range it.TablaSubDescuento.SubDescuento {
			desc = append(desc, subAdjustment{string(s.TipoSubDescuento), s.SubDescuentoPorcentaje, s.MontoSubDescuento})
		}
	}
	if it.TablaSubRecargo != nil {
		for _, s := range it.TablaSubRecargo.SubRecargo {
			rec = append(rec, subAdjustment{string(s.TipoSubRecargo), s.SubRecargoPorcentaje, s.MontoSubRecargo})
		}
	}
	c.checkSubTable(p, it, "Descuento", "DescuentoMonto", it.TablaSubDescuento != nil, desc, it.DescuentoMonto)
	c.checkSubTable(p, it, "Recargo", "RecargoMonto", it.TablaSubRecargo != nil, rec, it.RecargoMonto)
}

func (c *checker) checkSubTable(p string, it *Item, kind, totalName string, present bool, rows []subAdjustment, total *Decimal) {
	if !present {
		return
	}
	tp := fmt.Sprintf("%s.TablaSub%s.Sub%s", p, kind, kind)
	sum := decimal.Zero
	for i, r := range rows {
		rp := fmt.Sprintf("%s[%d]", tp, i)
		switch r.tipo {
		case "%":
			if r.percent == nil {
				c.addf(rp+".Sub"+kind+"Porcentaje", "Required when TipoSub%s is %%.", kind)
			}
		case "$":
			if r.percent != nil {
				c.addf(rp+".Sub"+kind+"Porcentaje", "Must be omitted when TipoSub%s is $.", kind)
			}
		}
		if r.amount == nil {
			if kind == "Descuento" {
				c.add(rp+".MontoSub"+kind, "Required: the discount in DOP.")
			} else {
				c.add(rp+".MontoSub"+kind, "Required: the surcharge in DOP.")
			}
			continue
		}
		sum = sum.Add(r.amount.Value())
		if r.tipo == "%" && r.percent != nil && it.PrecioUnitarioItem != nil && it.CantidadItem != nil {
			want := round2(it.PrecioUnitarioItem.Value().Mul(r.percent.Value()).Div(hundred).Mul(it.CantidadItem.Value()))
			if r.amount.Value().Sub(want).Abs().GreaterThan(lineTolerance) {
				c.addf(rp+".MontoSub"+kind, "Must be PrecioUnitarioItem × Sub%sPorcentaje × CantidadItem = %s (tolerance ±1.00); got %s.", kind, amountOf(want), r.amount)
			}
		}
	}
	switch {
	case total == nil:
		c.addf(p+"."+totalName, "Required when TablaSub%s is given: the sum of its amounts, %s.", kind, amountOf(sum))
	case total.Value().Sub(sum).Abs().GreaterThan(lineTolerance):
		c.addf(p+"."+totalName, "Must be the sum of MontoSub%s = %s (tolerance ±1.00); got %s.", kind, amountOf(sum), total)
	}
}

// taxCode returns the number of an additional-tax code 001–039, or 0.
func taxCode(c Code) int {
	if n, err := strconv.Atoi(string(c)); err == nil && len(c) == 3 && n >= 1 && n <= 39 {
		return n
	}
	return 0
}

// checkItemTaxes checks an item's additional taxes and the fields that
// depend on them (selective consumption tax data).
func (c *checker) checkItemTaxes(p string, it *Item) {
	var codes []int
	if t := it.TablaImpuestoAdicional; t != nil {
		for i, ia := range t.ImpuestoAdicional {
			n := taxCode(ia.TipoImpuesto)
			if n == 0 {
				continue
			}
			for _, o := range codes {
				if o == n {
					c.addf(fmt.Sprintf("%s.TablaImpuestoAdicional.ImpuestoAdicional[%d].TipoImpuesto", p, i), "Tax code %s appears twice on the item.", ia.TipoImpuesto)
				}
			}
			codes = append(codes, n)
			if !c.headerHasTax(ia.TipoImpuesto) && c.allowed("ECF.Encabezado.Totales.ImpuestosAdicionales") {
				c.addf(fmt.Sprintf("%s.TablaImpuestoAdicional.ImpuestoAdicional[%d].TipoImpuesto", p, i), "Tax code %s must also appear in ECF.Encabezado.Totales.ImpuestosAdicionales with its rate and amount.", ia.TipoImpuesto)
			}
		}
	}
	has := func(lo, hi int) bool {
		for _, n := range codes {
			if n >= lo && n <= hi {
				return true
			}
		}
		return false
	}
	onlyWith := func(name string, present bool, lo, hi int) {
		if present && !has(lo, hi) {
			c.addf(p+"."+name, "Only allowed when the item carries an additional tax code %03d–%03d (TablaImpuestoAdicional).", lo, hi)
		}
	}
	onlyWith("CantidadReferencia", it.CantidadReferencia != nil, 6, 39)
	onlyWith("TablaSubcantidad", it.TablaSubcantidad != nil, 6, 39)
	onlyWith("GradosAlcohol", it.GradosAlcohol != nil, 6, 18)
	onlyWith("PrecioUnitarioReferencia", it.PrecioUnitarioReferencia != nil, 23, 39)
	if it.UnidadReferencia != "" && it.CantidadReferencia == nil {
		c.add(p+".UnidadReferencia", "Only allowed with CantidadReferencia.")
	}
}

func (c *checker) headerHasTax(code Code) bool {
	t := c.enc().Totales
	if t == nil || t.ImpuestosAdicionales == nil {
		return false
	}
	for _, ia := range t.ImpuestosAdicionales.ImpuestoAdicional {
		if ia.TipoImpuesto == code {
			return true
		}
	}
	return false
}

// checkAdditionalTaxes checks the header table of additional taxes: each
// code once, carried by an item, with the amounts its code range needs; the
// amounts of codes 001–005 are item amounts × the rate.
func (c *checker) checkAdditionalTaxes() {
	t := c.enc().Totales
	if t == nil || t.ImpuestosAdicionales == nil {
		return
	}
	seen := map[Code]bool{}
	for i, ia := range t.ImpuestosAdicionales.ImpuestoAdicional {
		p := fmt.Sprintf("ECF.Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional[%d]", i)
		n := taxCode(ia.TipoImpuesto)
		if n == 0 {
			continue
		}
		if seen[ia.TipoImpuesto] {
			c.addf(p+".TipoImpuesto", "Tax code %s appears twice.", ia.TipoImpuesto)
		}
		seen[ia.TipoImpuesto] = true
		carriers := c.itemsWithTax(ia.TipoImpuesto)
		if len(carriers) == 0 {
			c.addf(p+".TipoImpuesto", "No item carries tax code %s in its TablaImpuestoAdicional.", ia.TipoImpuesto)
		}
		granel := len(carriers) > 0
		for _, it := range carriers {
			granel = granel && it.UnidadMedida == "18"
		}
		switch {
		case n <= 5:
			if ia.OtrosImpuestosAdicionales == nil {
				c.addf(p+".OtrosImpuestosAdicionales", "Required for tax code %s (codes 001–005).", ia.TipoImpuesto)
			}
			c.forbidISC(p, ia, true, true, "001–005")
			if ia.OtrosImpuestosAdicionales != nil && ia.TasaImpuestoAdicional != nil && len(carriers) > 0 {
				base := decimal.Zero
				for _, it := range carriers {
					base = base.Add(it.MontoItem.Value())
				}
				if c.precioIncluyeITBIS() {
					base = base.Div(decimal.RequireFromString("1.18"))
				}
				want := round2(base.Mul(ia.TasaImpuestoAdicional.Value()).Div(hundred))
				tol := decimal.NewFromInt(int64(max(1, len(c.items()))))
				if ia.OtrosImpuestosAdicionales.Value().Sub(want).Abs().GreaterThan(tol) {
					c.addf(p+".OtrosImpuestosAdicionales", "Must be Σ MontoItem of the items with tax code %s × TasaImpuestoAdicional = %s (tolerance ±%s); got %s.", ia.TipoImpuesto, amountOf(want), tol.StringFixed(2), ia.OtrosImpuestosAdicionales)
				}
			}
		case n <= 22:
			if ia.MontoImpuestoSelectivoConsumoEspecifico == nil && !granel && c.allowed("ECF.Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional.MontoImpuestoSelectivoConsumoEspecifico") {
				c.addf(p+".MontoImpuestoSelectivoConsumoEspecifico", "Required for tax code %s (codes 006–022) unless the items are sold in bulk (UnidadMedida 18).", ia.TipoImpuesto)
			}
			c.forbidISC(p, ia, false, true, "006–022")
		default:
			if ia.MontoImpuestoSelectivoConsumoAdvalorem == nil && c.allowed("ECF.Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional.MontoImpuestoSelectivoConsumoAdvalorem") {
				c.addf(p+".MontoImpuestoSelectivoConsumoAdvalorem", "Required for tax code %s (codes 023–039).", ia.TipoImpuesto)
			}
			if ia.MontoImpuestoSelectivoConsumoEspecifico == nil && !granel && c.allowed("ECF.Encabezado.Totales.ImpuestosAdicionales.ImpuestoAdicional.MontoImpuestoSelectivoConsumoEspecifico") {
				c.addf(p+".MontoImpuestoSelectivoConsumoEspecifico", "Required for tax code %s (codes 023–039) unless the items are sold in bulk (UnidadMedida 18).", ia.TipoImpuesto)
			}
			if ia.OtrosImpuestosAdicionales != nil {
				c.addf(p+".OtrosImpuestosAdicionales", "Must be omitted for tax code %s: it applies to codes 001–005.", ia.TipoImpuesto)
			}
		}
	}
}

func (c *checker) forbidISC(p string, ia ImpuestoAdicional, especifico, advalorem bool, codes string) {
	if especifico && ia.MontoImpuestoSelectivoConsumoEspecifico != nil {
		c.addf(p+".MontoImpuestoSelectivoConsumoEspecifico", "Must be omitted for tax code %s (codes %s).", ia.TipoImpuesto, codes)
	}
	if advalorem && ia.MontoImpuestoSelectivoConsumoAdvalorem != nil {
		c.addf(p+".MontoImpuestoSelectivoConsumoAdvalorem", "Must be omitted for tax code %s (codes %s).", ia.TipoImpuesto, codes)
	}
	if !especifico && ia.OtrosImpuestosAdicionales != nil {
		c.addf(p+".OtrosImpuestosAdicionales", "Must be omitted for tax code %s: it applies to codes 001–005.", ia.TipoImpuesto)
	}
}

func (c *checker) itemsWithTax(code Code) []*Item {
	var out []*Item
	items := c.items()
	for i := range items {
		if t := items[i].TablaImpuestoAdicional; t != nil {
			for _, ia := range t.ImpuestoAdicional {
				if ia.TipoImpuesto == code {
					out = append(out, &items[i])
					break
				}
			}
		}
	}
	return out
}

// checkGlobalAdjustments checks DescuentosORecargos: lines in order, the
// fields each line needs, and that each names an indicator some item has.
func (c *checker) checkGlobalAdjustments() {
	dr := c.doc.ECF.DescuentosORecargos
	if dr == nil {
		return
	}
	for i, r := range dr.DescuentoORecargo {
		p := fmt.Sprintf("ECF.DescuentosORecargos.DescuentoORecargo[%d]", i)
		if r.NumeroLinea != "" && string(r.NumeroLinea) != strconv.Itoa(i+1) {
			c.addf(p+".NumeroLinea", "Must be %d: lines are numbered 1, 2, 3… in order; got %s.", i+1, r.NumeroLinea)
		}
		if r.TipoValor == "" {
			c.add(p+".TipoValor", "Required: $ for an amount, % for a percentage.")
		}
		if r.MontoDescuentooRecargo == nil {
			c.add(p+".MontoDescuentooRecargo", "Required: the discount or surcharge in DOP.")
		}
		switch {
		case r.TipoValor == "%" && r.ValorDescuentooRecargo == nil:
			c.add(p+".ValorDescuentooRecargo", "Required when TipoValor is %.")
		case r.TipoValor == "$" && r.ValorDescuentooRecargo != nil:
			c.add(p+".ValorDescuentooRecargo", "Must be omitted when TipoValor is $.")
		}
		ind := indicador(r.IndicadorFacturacionDescuentooRecargo)
		if r.IndicadorFacturacionDescuentooRecargo == "" {
			c.add(p+".IndicadorFacturacionDescuentooRecargo", "Required: the IndicadorFacturacion (1–4) of the items the discount or surcharge applies to.")
		} else if ind >= 1 && !c.anyItemWith(ind) {
			c.addf(p+".IndicadorFacturacionDescuentooRecargo", "No item has IndicadorFacturacion %d.", ind)
		}
		if r.IndicadorNorma1007 != "" && r.TipoAjuste == "R" {
			c.add(p+".IndicadorNorma1007", "Applies only to discounts (TipoAjuste D).")
		}
	}
}

func (c *checker) anyItemWith(ind int) bool {
	for _, it := range c.items() {
		if indicador(it.IndicadorFacturacion) == ind {
			return true
		}
	}
	return false
}

// paperTypes maps the type digits of a paper NCF (series B) to the e-CF
// type that replaces it under CodigoModificacion 4.
var paperTypes = map[string]sello.DocumentType{
	"01": "31", "02": "32", "03": "33", "04": "34", "11": "41",
	"13": "43", "14": "44", "15": "45", "16": "46", "17": "47",
}

func (c *checker) checkReference() {
	r := c.doc.ECF.InformacionReferencia
	if r == nil {
		return
	}
	if r.NCFModificado == "" {
		c.add(pRef+"NCFModificado", "Required when InformacionReferencia is given.")
	}
	if r.FechaNCFModificado == "" {
		c.add(pRef+"FechaNCFModificado", "Required when InformacionReferencia is given.")
	}
	if r.CodigoModificacion == "" {
		c.add(pRef+"CodigoModificacion", "Required when InformacionReferencia is given.")
	}
	if (r.CodigoModificacion == "1" || r.CodigoModificacion == "2" || r.CodigoModificacion == "3") && c.col >= 0 &&
		c.typ != sello.TypeNotaDebito && c.typ != sello.TypeNotaCredito {
		c.addf(pRef+"CodigoModificacion", "Codes 1, 2 and 3 apply only to debit and credit notes (33, 34); type %s may use 4 (replaces a contingency NCF) or 5 (references a consumer invoice).", c.typ)
	}
	ncf := r.NCFModificado
	if len(ncf) == 13 && ncf[0] == 'E' {
		if _, err := sello.ParseENCF(ncf); err != nil {
			c.addText(pRef+"NCFModificado", sello.ErrorText(err))
		}
	}
	if r.CodigoModificacion == "4" && c.col >= 0 {
		if len(ncf) == 11 && ncf[0] == 'B' {
			if t, ok := paperTypes[ncf[1:3]]; ok && t != c.typ {
				c.addf(pRef+"NCFModificado", "A replacement of a contingency NCF (CodigoModificacion 4) must be of the same type: %s is a paper type %s, equivalent to e-CF %s, not %s.", ncf, ncf[1:3], t, c.typ)
			}
		}
	}
	if r.RNCOtroContribuyente != "" && r.RNCOtroContribuyente == c.emisor().RNCEmisor {
		c.add(pRef+"RNCOtroContribuyente", "Must be omitted unless the modified document was issued under another RNC (dissolution, merger or split); it equals RNCEmisor.")
	}
}

func (c *checker) checkOtraMoneda() {
	om := c.enc().OtraMoneda
	if om == nil {
		return
	}
	const p = "ECF.Encabezado.OtraMoneda."
	if om.TipoMoneda == "" {
		c.add(p+"TipoMoneda", "Required when OtraMoneda is given.")
	}
	if om.TipoCambio == nil {
		c.add(p+"TipoCambio", "Required when OtraMoneda is given.")
	}
	if om.MontoTotalOtraMoneda == nil {
		c.add(p+"MontoTotalOtraMoneda", "Required when OtraMoneda is given.")
		return
	}
	// Format field 137b: the total is the sum of its parts. The parts are
	// conditional: with none given there is nothing to add up.
	parts := []*Decimal{om.MontoGravadoTotalOtraMoneda, om.MontoExentoOtraMoneda, om.TotalITBISOtraMoneda, om.MontoImpuestoAdicionalOtraMoneda}
	sum, given := decimal.Zero, false
	for _, v := range parts {
		if v != nil {
			sum, given = sum.Add(v.Value()), true
		}
	}
	tol := decimal.NewFromInt(int64(max(1, len(c.items()))))
	if given && om.MontoTotalOtraMoneda.Value().Sub(sum).Abs().GreaterThan(tol) {
		c.addf(p+"MontoTotalOtraMoneda", "Must be MontoGravadoTotalOtraMoneda + MontoExentoOtraMoneda + TotalITBISOtraMoneda + MontoImpuestoAdicionalOtraMoneda = %s (tolerance ±%s; DGII's format, field 137b); got %s.", amountOf(sum), tol.StringFixed(2), om.MontoTotalOtraMoneda)
	}
}

// checkNumeroReferencia applies the XSDs' type of NumeroReferencia: an
// integer of up to 20 digits (Integer20ValidationType) in every type that
// has it but 45, whose XSD allows text (AlfNum20Type); the obligation
// table's text(20) covers 45.
func (c *checker) checkNumeroReferencia() {
	ia := c.enc().InformacionesAdicionales
	if ia == nil || ia.NumeroReferencia == "" || c.col < 0 || c.typ == sello.TypeGubernamental {
		return
	}
	if msg := digits(20).checkString(string(ia.NumeroReferencia)); !msg.IsZero() {
		c.addf("ECF.Encabezado.InformacionesAdicionales.NumeroReferencia", "%s DGII's XSD for type %s takes an integer here (only type 45 takes text).", msg, c.typ)
	}
}

// montoTotal is the document's MontoTotal (given or computed), or nil.
func (c *checker) montoTotal() *Decimal {
	if t := c.enc().Totales; t != nil {
		return t.MontoTotal
	}
	return nil
}

// checkBuyer applies the buyer rules that depend on the type and the total.
func (c *checker) checkBuyer() {
	comp := c.enc().Comprador
	total := c.montoTotal()
	if c.typ == sello.TypeConsumo && total != nil && total.Value().GreaterThanOrEqual(consumoLimit) {
		switch {
		case comp == nil:
			c.add("ECF.Encabezado.Comprador", "Required for type 32 from DOP 250,000.00: identify the buyer.")
			return
		case comp.RNCComprador == "" && comp.IdentificadorExtranjero == "":
			c.add(pComp+"RNCComprador", "Required for type 32 from DOP 250,000.00 (or IdentificadorExtranjero for a foreign buyer).")
		}
		if comp.RazonSocialComprador == "" {
			c.add(pComp+"RazonSocialComprador", "Required for type 32 from DOP 250,000.00.")
		}
	} else if c.typ == sello.TypeConsumo && (comp == nil || comp.RNCComprador == "" && comp.IdentificadorExtranjero == "" && comp.RazonSocialComprador == "") {
		// DGII's format marks the Comprador area 1 (required) for type 32
		// and both e-CF-32.xsd and RFCE-32.xsd require the element, whose
		// RFCE form holds only these three fields; DGII rejects empty tags.
		c.add("ECF.Encabezado.Comprador", "Required for type 32, also under DOP 250,000.00: DGII's schemas (e-CF 32 and RFCE) require <Comprador> with RNCComprador, IdentificadorExtranjero or RazonSocialComprador; for an anonymous consumer give RazonSocialComprador (like \"Consumidor final\").")
	}
	if comp == nil {
		return
	}
	if comp.RNCComprador != "" && comp.IdentificadorExtranjero != "" {
		c.add(pComp+"IdentificadorExtranjero", "Must be omitted when RNCComprador is given: it identifies buyers without an RNC or cédula.")
	}
	if c.typ == sello.TypeRegimenesEspeciales && comp.RNCComprador == "" && comp.IdentificadorExtranjero == "" {
		c.add(pComp+"RNCComprador", "Required for type 44 (or IdentificadorExtranjero for a foreign diplomatic buyer).")
	}
}

// itemsPath is the generic path of the detail lines.
const itemsPath = "ECF.DetallesItems.Item"

// maxItems is how many detail lines a document of type t may have: the
// maxOccurs of Item in DGII's XSD of the type (10,000 for 33 and 34, 1,000
// for the others, type 32 included whatever its total, see docs/ecf.md).
// An unknown type gets the largest, MaxListLen.
func maxItems(t sello.DocumentType) int {
	switch t {
	case sello.TypeNotaDebito, sello.TypeNotaCredito:
		return MaxListLen
	}
	if typeIndex(t) < 0 {
		return MaxListLen
	}
	return 1_000
}

func (c *checker) checkPagination() {
	pg := c.doc.ECF.Paginacion
	id := c.idDoc()
	if pg == nil {
		if id.TotalPaginas != "" {
			c.add(pIdDoc+"TotalPaginas", "Must be omitted without a Paginacion section.")
		}
		return
	}
	n := len(pg.Pagina)
	switch {
	case id.TotalPaginas == "":
		c.addf(pIdDoc+"TotalPaginas", "Required with Paginacion: the number of pages, %d.", n)
	case string(id.TotalPaginas) != strconv.Itoa(n):
		c.addf(pIdDoc+"TotalPaginas", "Must be the number of Paginacion.Pagina entries, %d; got %s.", n, id.TotalPaginas)
	}
	sum := decimal.Zero
	complete := true
	for i, pa := range pg.Pagina {
		p := fmt.Sprintf("ECF.Paginacion.Pagina[%d]", i)
		for name, missing := range map[string]bool{"PaginaNo": pa.PaginaNo == "", "NoLineaDesde": pa.NoLineaDesde == "", "NoLineaHasta": pa.NoLineaHasta == "", "MontoSubtotalPagina": pa.MontoSubtotalPagina == nil} {
			if missing {
				c.add(p+"."+name, "Required in each page.")
			}
		}
		if pa.PaginaNo != "" && string(pa.PaginaNo) != strconv.Itoa(i+1) {
			c.addf(p+".PaginaNo", "Must be %d: pages are numbered 1, 2, 3… in order; got %s.", i+1, pa.PaginaNo)
		}
		from, err1 := strconv.Atoi(string(pa.NoLineaDesde))
		to, err2 := strconv.Atoi(string(pa.NoLineaHasta))
		if err1 == nil && err2 == nil {
			if to < from {
				c.addf(p+".NoLineaHasta", "Must be at least NoLineaDesde %d; got %d.", from, to)
			}
			if to > len(c.items()) {
				c.addf(p+".NoLineaHasta", "The document has %d lines; got %d.", len(c.items()), to)
			}
		}
		if pa.MontoSubtotalPagina == nil {
			complete = false
		} else {
			sum = sum.Add(pa.MontoSubtotalPagina.Value())
		}
	}
	if total := c.montoTotal(); complete && total != nil && c.sum != nil && c.sum.ok &&
		total.Value().Sub(sum).Abs().GreaterThan(c.sum.tolerance) {
		c.addf("ECF.Encabezado.Totales.MontoTotal", "With Paginacion, MontoTotal must be the sum of MontoSubtotalPagina = %s (tolerance ±%s); got %s.", amountOf(sum), c.sum.tolerance.StringFixed(2), total)
	}
}
