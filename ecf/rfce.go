package ecf

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/sello-do/sello"
)

// NeedsRFCE reports whether the document goes to DGII as a Resumen Factura
// de Consumo (RFCE): type 32 with MontoTotal under DOP 250,000.00. The full
// e-CF is still built and signed, and its security code goes into the RFCE.
func (d *Document) NeedsRFCE() bool {
	if d.Type() != sello.TypeConsumo {
		return false
	}
	e := d.ECF.Encabezado
	if e == nil || e.Totales == nil || e.Totales.MontoTotal == nil {
		return false
	}
	return e.Totales.MontoTotal.Value().LessThan(consumoLimit)
}

// RFCE returns the unsigned <RFCE> summary of a checked, numbered type 32
// document under DOP 250,000.00 (DGII's Formato RFCE and RFCE-32.xsd):
// Encabezado with Version, IdDoc {TipoeCF, eNCF, TipoIngresos, TipoPago,
// TablaFormasPago}, Emisor {RNCEmisor, RazonSocialEmisor, FechaEmision},
// Comprador {RNCComprador, IdentificadorExtranjero, RazonSocialComprador},
// Totales (the e-CF's totals without the rates), and CodigoSeguridadeCF,
// the first six characters of the signed e-CF's SignatureValue. Same
// writing rules as XML; the signer appends the Signature to the root.
//
// It returns a plain error (a bug in the caller) when the document is not
// ready (see XML), does not need an RFCE (see NeedsRFCE), or securityCode is
// not six characters.
func (d *Document) RFCE(securityCode string) ([]byte, error) {
	if err := d.ready(); err != nil {
		return nil, err
	}
	if !d.NeedsRFCE() {
		return nil, fmt.Errorf("ecf: %s is not a type 32 under DOP 250,000.00: it goes to DGII whole, not as an RFCE", d.ENCF())
	}
	if utf8.RuneCountInString(securityCode) != 6 || !checkText(securityCode, 6).IsZero() {
		return nil, errors.New("ecf: the security code must be six characters: the first six of the e-CF's SignatureValue")
	}
	e := d.ECF.Encabezado
	w := xmlWriter{b: make([]byte, 0, 1024)}
	w.raw(XMLDeclaration)
	w.raw("<RFCE>")
	enc := w.open("Encabezado")
	w.text("Version", string(e.Version))

	id := e.IdDoc
	m := w.open("IdDoc")
	w.text("TipoeCF", string(id.TipoeCF))
	w.text("eNCF", id.ENCF)
	w.text("TipoIngresos", string(id.TipoIngresos))
	w.text("TipoPago", string(id.TipoPago))
	if t := id.TablaFormasPago; t != nil {
		mt := w.open("TablaFormasPago")
		for _, f := range t.FormaDePago {
			mf := w.open("FormaDePago")
			w.text("FormaPago", string(f.FormaPago))
			w.decimal("MontoPago", f.MontoPago)
			w.end("FormaDePago", mf)
		}
		w.end("TablaFormasPago", mt)
	}
	w.end("IdDoc", m)

	if em := e.Emisor; em != nil {
		m = w.open("Emisor")
		w.text("RNCEmisor", em.RNCEmisor)
		w.text("RazonSocialEmisor", em.RazonSocialEmisor)
		w.text("FechaEmision", em.FechaEmision)
		w.end("Emisor", m)
	}
	if c := e.Comprador; c != nil {
		m = w.open("Comprador")
		w.text("RNCComprador", c.RNCComprador)
		w.text("IdentificadorExtranjero", c.IdentificadorExtranjero)
		w.text("RazonSocialComprador", c.RazonSocialComprador)
		w.end("Comprador", m)
	}

	t := e.Totales
	m = w.open("Totales")
	w.decimal("MontoGravadoTotal", t.MontoGravadoTotal)
	w.decimal("MontoGravadoI1", t.MontoGravadoI1)
	w.decimal("MontoGravadoI2", t.MontoGravadoI2)
	w.decimal("MontoGravadoI3", t.MontoGravadoI3)
	w.decimal("MontoExento", t.MontoExento)
	w.decimal("TotalITBIS", t.TotalITBIS)
	w.decimal("TotalITBIS1", t.TotalITBIS1)
	w.decimal("TotalITBIS2", t.TotalITBIS2)
	w.decimal("TotalITBIS3", t.TotalITBIS3)
	w.decimal("MontoImpuestoAdicional", t.MontoImpuestoAdicional)
	if ia := t.ImpuestosAdicionales; ia != nil {
		mi := w.open("ImpuestosAdicionales")
		for _, i := range ia.ImpuestoAdicional {
			ma := w.open("ImpuestoAdicional")
			w.text("TipoImpuesto", string(i.TipoImpuesto))
			w.decimal("MontoImpuestoSelectivoConsumoEspecifico", i.MontoImpuestoSelectivoConsumoEspecifico)
			w.decimal("MontoImpuestoSelectivoConsumoAdvalorem", i.MontoImpuestoSelectivoConsumoAdvalorem)
			w.decimal("OtrosImpuestosAdicionales", i.OtrosImpuestosAdicionales)
			w.end("ImpuestoAdicional", ma)
		}
		w.end("ImpuestosAdicionales", mi)
	}
	w.decimal("MontoTotal", t.MontoTotal)
	w.decimal("MontoNoFacturable", t.MontoNoFacturable)
	w.decimal("MontoPeriodo", t.MontoPeriodo)
	w.end("Totales", m)

	w.text("CodigoSeguridadeCF", securityCode)
	w.end("Encabezado", enc)
	w.raw("</RFCE>")
	return w.b, nil
}
