package ecf

import (
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/sello-do/sello"
)

// ITBIS rates by IndicadorFacturacion (1, 2, 3), as integer percents: the
// values of ITBIS1, ITBIS2 and ITBIS3 in Totales.
var itbisRates = [4]int64{1: 18, 2: 16, 3: 0}

// Thresholds and tolerances (FACTS §3.4, Formato e-CF).
var (
	// lineTolerance is how far a given MontoItem may be from price ×
	// quantity − discount + surcharge.
	lineTolerance = decimal.NewFromInt(1)
	// consumoLimit is DGII's DOP 250,000 threshold for type 32.
	consumoLimit = decimal.NewFromInt(250_000)
	hundred      = decimal.NewFromInt(100)
)

// sums is what the items add up to, by DGII's rules.
type sums struct {
	ok        bool               // every item amount could be computed
	tolerance decimal.Decimal    // global tolerance: one DOP per detail line
	byInd     [5]decimal.Decimal // Σ MontoItem by IndicadorFacturacion 0–4
	hasInd    [5]bool
	adj       [5]decimal.Decimal // global surcharges − discounts by indicator
	isc       [5]decimal.Decimal // ISC (006–039) entering the ITBIS base, by indicator
	gravado   [4]decimal.Decimal // MontoGravadoI1–I3 (index 1–3)
	itbis     [4]decimal.Decimal // TotalITBIS1–3
	exento    decimal.Decimal
	noFact    decimal.Decimal
	impAdic   decimal.Decimal
	hasImp    bool
	total     decimal.Decimal
	itbisRet  decimal.Decimal
	isrRet    decimal.Decimal
	hasItbisR bool
	hasIsrR   bool
}

// indicador parses an IndicadorFacturacion-like code 0–4, or -1.
func indicador(c Code) int {
	if len(c) == 1 && c[0] >= '0' && c[0] <= '4' {
		return int(c[0] - '0')
	}
	return -1
}

// precioIncluyeITBIS reports IndicadorMontoGravado = 1: item amounts include ITBIS.
func (c *checker) precioIncluyeITBIS() bool { return c.idDoc().IndicadorMontoGravado == "1" }

// textCorrection reports a credit note that only corrects text
// (CodigoModificacion 2): its items have MontoItem 0.
func (c *checker) textCorrection() bool {
	r := c.doc.ECF.InformacionReferencia
	return c.typ == "34" && r != nil && r.CodigoModificacion == "2"
}

// computeItems computes each item's MontoItem, fills those absent and checks
// those given (±1.00 per line), and sums them by IndicadorFacturacion.
func (c *checker) computeItems() *sums {
	s := &sums{ok: true}
	items := c.items()
	s.tolerance = decimal.NewFromInt(int64(max(1, len(items))))
	for i := range items {
		it := &items[i]
		path := "ECF.DetallesItems.Item[" + strconv.Itoa(i) + "]"
		ind := indicador(it.IndicadorFacturacion)
		if it.PrecioUnitarioItem == nil || it.CantidadItem == nil || ind < 0 ||
			!price4.checkDecimal(it.PrecioUnitarioItem).IsZero() || !amount.checkDecimal(it.CantidadItem).IsZero() {
			s.ok = false
			continue
		}
		want := round2(it.PrecioUnitarioItem.Value().Mul(it.CantidadItem.Value()).
			Sub(it.DescuentoMonto.Value()).Add(it.RecargoMonto.Value()))
		rule := sello.Textf("PrecioUnitarioItem × CantidadItem − DescuentoMonto + RecargoMonto")
		if c.textCorrection() {
			want, rule = decimal.Zero, sello.Textf("0 for a credit note that corrects text (CodigoModificacion 2)")
		}
		got := want
		switch {
		case it.MontoItem == nil:
			if !c.fill(path+".MontoItem", "ECF.DetallesItems.Item.MontoItem", &it.MontoItem, want, rule) {
				s.ok = false // totals over it would only repeat the problem
			}
		case c.textCorrection() && !it.MontoItem.Value().IsZero():
			c.addf(path+".MontoItem", "Must be %s; got %s.", rule, it.MontoItem)
		case it.MontoItem.Value().Sub(want).Abs().GreaterThan(lineTolerance):
			c.addf(path+".MontoItem", "Must be %s = %s (tolerance ±1.00); got %s.", rule, amountOf(want), it.MontoItem)
		default:
			got = it.MontoItem.Value()
		}
		s.byInd[ind] = s.byInd[ind].Add(got)
		s.hasInd[ind] = true
		if r := it.Retencion; r != nil {
			if r.MontoITBISRetenido != nil {
				s.itbisRet, s.hasItbisR = s.itbisRet.Add(r.MontoITBISRetenido.Value()), true
			}
			if r.MontoISRRetenido != nil {
				s.isrRet, s.hasIsrR = s.isrRet.Add(r.MontoISRRetenido.Value()), true
			}
		}
	}
	return s
}

// checkTotals computes Totales from the items and global discounts and
// surcharges, fills in what is absent and checks what is given.
func (c *checker) checkTotals() {
	s := c.computeItems()
	c.sum = s
	if !s.ok {
		return // the items' own details say why; totals would only add noise
	}
	enc := c.doc.ECF.Encabezado
	if enc == nil {
		return
	}
	if enc.Totales == nil {
		enc.Totales = &Totales{}
	}
	t := enc.Totales
	// Global discounts (D) and surcharges (R) change the base of the
	// indicator they name. A discount under norma 10-07 does not reduce the
	// 18% base.
	if dr := c.doc.ECF.DescuentosORecargos; dr != nil {
		for _, r := range dr.DescuentoORecargo {
			ind := indicador(r.IndicadorFacturacionDescuentooRecargo)
			if ind < 1 || r.MontoDescuentooRecargo == nil {
				continue
			}
			switch r.TipoAjuste {
			case "D":
				if !(ind == 1 && r.IndicadorNorma1007 == "1") {
					s.adj[ind] = s.adj[ind].Sub(r.MontoDescuentooRecargo.Value())
				}
			case "R":
				s.adj[ind] = s.adj[ind].Add(r.MontoDescuentooRecargo.Value())
			}
		}
	}
	// Selective consumption taxes (codes 006–039) enter the ITBIS base of
	// the rate of the items that carry them.
	if t.ImpuestosAdicionales != nil {
		for _, ia := range t.ImpuestosAdicionales.ImpuestoAdicional {
			s.hasImp = true
			s.impAdic = s.impAdic.Add(ia.MontoImpuestoSelectivoConsumoEspecifico.Value()).
				Add(ia.MontoImpuestoSelectivoConsumoAdvalorem.Value()).Add(ia.OtrosImpuestosAdicionales.Value())
			if n, err := strconv.Atoi(string(ia.TipoImpuesto)); err == nil && n >= 6 && n <= 39 {
				if ind := c.indicadorOfTax(ia.TipoImpuesto); ind >= 1 && ind <= 3 {
					s.isc[ind] = s.isc[ind].Add(ia.MontoImpuestoSelectivoConsumoEspecifico.Value()).
						Add(ia.MontoImpuestoSelectivoConsumoAdvalorem.Value())
				}
			}
		}
	}
	const tp = "ECF.Encabezado.Totales."
	var gravadoTotal, itbisTotal decimal.Decimal
	anyGravado := false
	for ind := 1; ind <= 3; ind++ {
		n := strconv.Itoa(ind)
		rate := decimal.NewFromInt(itbisRates[ind])
		base := s.byInd[ind].Add(s.adj[ind])
		if c.precioIncluyeITBIS() {
			base = base.Div(decimal.NewFromInt(1).Add(rate.Div(hundred)))
		}
		s.gravado[ind] = round2(base)
		s.itbis[ind] = round2(s.gravado[ind].Add(s.isc[ind]).Mul(rate).Div(hundred))
		has := s.hasInd[ind]
		if has {
			anyGravado = true
			gravadoTotal = gravadoTotal.Add(s.gravado[ind])
			itbisTotal = itbisTotal.Add(s.itbis[ind])
		}
		why := sello.Textf("no item has IndicadorFacturacion %s", n)
		c.total(tp+"MontoGravadoI"+n, t.gravadoField(ind), s.gravado[ind], has, s.tolerance,
			sello.Textf("Σ MontoItem of items with IndicadorFacturacion %s ± global discounts and surcharges%s", n, c.inclusiveNote(ind)), why)
		c.rate(tp+"ITBIS"+n, t.rateField(ind), strconv.FormatInt(itbisRates[ind], 10), has, why)
		c.total(tp+"TotalITBIS"+n, t.itbisField(ind), s.itbis[ind], has, s.tolerance,
			sello.Textf("MontoGravadoI%s × %s%%", n, rate.String()), why)
	}
	c.total(tp+"MontoGravadoTotal", &t.MontoGravadoTotal, gravadoTotal, anyGravado, s.tolerance,
		sello.Textf("MontoGravadoI1 + MontoGravadoI2 + MontoGravadoI3"), sello.Textf("no item is taxed (IndicadorFacturacion 1, 2 or 3)"))
	c.total(tp+"TotalITBIS", &t.TotalITBIS, itbisTotal, anyGravado, s.tolerance,
		sello.Textf("TotalITBIS1 + TotalITBIS2 + TotalITBIS3"), sello.Textf("no item is taxed (IndicadorFacturacion 1, 2 or 3)"))
	s.exento = round2(s.byInd[4].Add(s.adj[4]))
	c.total(tp+"MontoExento", &t.MontoExento, s.exento, s.hasInd[4], s.tolerance,
		sello.Textf("Σ MontoItem of exempt items (IndicadorFacturacion 4) ± global discounts and surcharges"), sello.Textf("no item is exempt (IndicadorFacturacion 4)"))
	s.noFact = round2(s.byInd[0])
	c.total(tp+"MontoNoFacturable", &t.MontoNoFacturable, s.noFact, s.hasInd[0], s.tolerance,
		sello.Textf("Σ MontoItem of non-billable items (IndicadorFacturacion 0)"), sello.Textf("no item is non-billable (IndicadorFacturacion 0)"))
	s.impAdic = round2(s.impAdic)
	c.total(tp+"MontoImpuestoAdicional", &t.MontoImpuestoAdicional, s.impAdic, s.hasImp && s.impAdic.IsPositive(), s.tolerance,
		sello.Textf("the sum of the amounts in ImpuestosAdicionales"), sello.Textf("there are no additional taxes (ImpuestosAdicionales)"))
	s.total = gravadoTotal.Add(itbisTotal).Add(s.impAdic)
	if s.hasInd[4] {
		s.total = s.total.Add(s.exento)
	}
	c.total(tp+"MontoTotal", &t.MontoTotal, s.total, true, s.tolerance,
		sello.Textf("MontoGravadoTotal + MontoExento + TotalITBIS + MontoImpuestoAdicional"), sello.Text{})
	if t.MontoPeriodo != nil {
		c.total(tp+"MontoPeriodo", &t.MontoPeriodo, s.total.Add(s.noFact), true, s.tolerance, sello.Textf("MontoTotal + MontoNoFacturable"), sello.Text{})
	}
	if t.ValorPagar != nil {
		want := s.total.Sub(t.MontoAvancePago.Value()).Add(t.SaldoAnterior.Value())
		c.total(tp+"ValorPagar", &t.ValorPagar, want, true, s.tolerance, sello.Textf("MontoTotal − MontoAvancePago + SaldoAnterior"), sello.Text{})
	}
	c.total(tp+"TotalITBISRetenido", &t.TotalITBISRetenido, round2(s.itbisRet), s.hasItbisR, s.tolerance,
		sello.Textf("Σ Retencion.MontoITBISRetenido of the items"), sello.Textf("no item carries Retencion.MontoITBISRetenido"))
	c.total(tp+"TotalISRRetencion", &t.TotalISRRetencion, round2(s.isrRet), s.hasIsrR, s.tolerance,
		sello.Textf("Σ Retencion.MontoISRRetenido of the items"), sello.Textf("no item carries Retencion.MontoISRRetenido"))
	c.computed = true
}

// inclusiveNote explains the division by (1 + rate) under IndicadorMontoGravado 1.
func (c *checker) inclusiveNote(ind int) sello.Text {
	if !c.precioIncluyeITBIS() {
		return sello.Text{}
	}
	return sello.Textf(", divided by 1.%02d (IndicadorMontoGravado 1: prices include ITBIS)", itbisRates[ind])
}

// indicadorOfTax is the IndicadorFacturacion of the first item carrying the
// additional tax code, or -1.
func (c *checker) indicadorOfTax(tax Code) int {
	for _, it := range c.items() {
		if it.TablaImpuestoAdicional == nil {
			continue
		}
		for _, ia := range it.TablaImpuestoAdicional.ImpuestoAdicional {
			if ia.TipoImpuesto == tax {
				return indicador(it.IndicadorFacturacion)
			}
		}
	}
	return -1
}

// total fills *dst with want when it is absent and applies (and DGII allows
// the element for the type), checks a given value against want within tol,
// and reports a value given where none applies.
func (c *checker) total(path string, dst **Decimal, want decimal.Decimal, applies bool, tol decimal.Decimal, rule, whyNot sello.Text) {
	generic := path
	if !c.allowed(generic) {
		return // a given value was reported by the obligation check
	}
	switch {
	case !applies && *dst != nil:
		if !whyNot.IsZero() && !(*dst).Value().IsZero() {
			c.addf(path, "Must be omitted: %s.", whyNot)
		}
	case !applies:
	case *dst == nil:
		c.fill(path, generic, dst, want, rule)
	case (*dst).Value().Sub(want).Abs().GreaterThan(tol):
		c.addf(path, "Must be %s = %s (tolerance ±%s); got %s.", rule, amountOf(want), tol.StringFixed(2), *dst)
	}
}

// fill sets *dst to the computed value want and checks it against the
// format of the element at generic path, as a given value is checked: a sum
// DGII's schema refuses (negative, more than 16 integer digits) is a problem
// at path, found before any number is consumed. It reports whether it fits.
func (c *checker) fill(path, generic string, dst **Decimal, want decimal.Decimal, rule sello.Text) bool {
	*dst = amountOf(want)
	f := fieldsByPath[generic]
	if f == nil || f.format.kind != kDecimal {
		return true
	}
	msg := f.format.checkDecimal(*dst)
	if msg.IsZero() {
		return true
	}
	if want.IsNegative() {
		c.addf(path, `%s Sello computes it as %s. DGII's format: "No puede ser negativo".`, msg, rule)
	} else {
		c.addf(path, "%s Sello computes it as %s.", msg, rule)
	}
	return false
}

// rate fills or checks ITBIS1–3, the integer rate present with its base.
func (c *checker) rate(path string, dst *Code, want string, applies bool, whyNot sello.Text) {
	if !c.allowed(path) {
		return
	}
	switch {
	case !applies && *dst != "":
		c.addf(path, "Must be omitted: %s.", whyNot)
	case !applies:
	case *dst == "":
		*dst = Code(want)
	case string(*dst) != want:
		c.addf(path, "Must be %s, the ITBIS rate in percent; got %s.", want, *dst)
	}
}

// gravadoField returns MontoGravadoI1–I3.
func (t *Totales) gravadoField(ind int) **Decimal {
	switch ind {
	case 1:
		return &t.MontoGravadoI1
	case 2:
		return &t.MontoGravadoI2
	}
	return &t.MontoGravadoI3
}

// itbisField returns TotalITBIS1–3.
func (t *Totales) itbisField(ind int) **Decimal {
	switch ind {
	case 1:
		return &t.TotalITBIS1
	case 2:
		return &t.TotalITBIS2
	}
	return &t.TotalITBIS3
}

// rateField returns ITBIS1–3.
func (t *Totales) rateField(ind int) *Code {
	switch ind {
	case 1:
		return &t.ITBIS1
	case 2:
		return &t.ITBIS2
	}
	return &t.ITBIS3
}
