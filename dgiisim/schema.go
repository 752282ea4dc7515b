package dgiisim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The simulator's own reading of DGII's e-CF XSDs and format rules. It is
// written from the XSDs and the format document, not from Sello's ecf
// package, so that a test posting documents Sello should never sign (see
// ecf/ecftest) holds both to DGII: a rule missing on either side shows.

// nonNegativeAmounts are the elements whose XSD type is
// Decimal18D1or2ValidationTypeMayorIgualCero in some e-CF XSD (and no
// other type in any): at most 16 integer digits and 2 decimals, ≥ 0.
var nonNegativeAmounts = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`
		CantidadBulto CantidadReferencia DescuentoMonto DescuentoOtraMoneda
		MontoAvancePago MontoDescuentooRecargo MontoDescuentooRecargoOtraMoneda
		MontoExento MontoExentoOtraMoneda MontoGravado1OtraMoneda
		MontoGravado2OtraMoneda MontoGravado3OtraMoneda MontoGravadoI1
		MontoGravadoI2 MontoGravadoI3 MontoGravadoTotal MontoGravadoTotalOtraMoneda
		MontoISRRetenido MontoITBISRetenido MontoItem MontoItemOtraMoneda MontoPago
		MontoSubDescuento MontoSubRecargo MontoSubTotal MontoSubtotalPagina
		MontoTotal MontoTotalOtraMoneda PesoBruto PesoNeto RecargoMonto
		RecargoOtraMoneda SubTotaITBIS SubTotaITBIS1 SubTotaITBIS2 SubTotaITBIS3
		SubTotalExento SubTotalImpuestoAdicional SubTotalMontoGravadoI1
		SubTotalMontoGravadoI2 SubTotalMontoGravadoI3 SubTotalMontoGravadoTotal
		SubtotalExentoPagina SubtotalItbis1Pagina SubtotalItbis2Pagina
		SubtotalItbis3Pagina SubtotalItbisPagina SubtotalMontoGravado1Pagina
		SubtotalMontoGravado2Pagina SubtotalMontoGravado3Pagina
		SubtotalMontoGravadoPagina SubtotalMontoNoFacturablePagina TotalCif
		TotalISRPercepcion TotalISRRetencion TotalITBIS TotalITBIS1
		TotalITBIS1OtraMoneda TotalITBIS2 TotalITBIS2OtraMoneda TotalITBIS3
		TotalITBIS3OtraMoneda TotalITBISOtraMoneda TotalITBISPercepcion
		TotalITBISRetenido`) {
		m[name] = true
	}
	return m
}()

// integer20RE is Integer20ValidationType's pattern.
var integer20RE = regexp.MustCompile(`^[0-9]{1,20}$`)

// itemLimit is Item's maxOccurs in e-CF-{tipo}.xsd.
func itemLimit(tipo string) int {
	if tipo == "33" || tipo == "34" {
		return 10_000
	}
	return 1_000
}

// schemaProblem returns what in the e-CF doc of type tipo DGII's XSD
// refuses, or "".
func schemaProblem(doc *node, tipo string) string {
	if n := len(doc.child("DetallesItems").all("Item")); n > itemLimit(tipo) {
		return fmt.Sprintf("el comprobante tiene %d elementos Item; el esquema del tipo %s admite %d", n, tipo, itemLimit(tipo))
	}
	if ref := doc.get("Encabezado", "InformacionesAdicionales", "NumeroReferencia"); ref != "" && tipo != "45" && !integer20RE.MatchString(ref) {
		return fmt.Sprintf("el campo NumeroReferencia debe ser un entero de hasta 20 dígitos: %q", ref)
	}
	return amountProblem(doc)
}

// amountProblem returns the first non-negative amount that is not one, in
// document order, or "".
func amountProblem(n *node) string {
	if nonNegativeAmounts[n.name] && !amountRE.MatchString(n.text) {
		return fmt.Sprintf("el campo %s debe ser un monto de hasta 16 enteros y 2 decimales, no negativo: %q", n.name, n.text)
	}
	for _, c := range n.children {
		if p := amountProblem(c); p != "" {
			return p
		}
	}
	return ""
}

// formatProblem returns what in a schema-valid e-CF breaks a rule of DGII's
// format document (Formato e-CF), or "".
func formatProblem(doc *node, tipo string) string {
	items := doc.child("DetallesItems").all("Item")
	if tipo == "41" {
		for _, it := range items {
			if it.get("IndicadorBienoServicio") == "1" && it.get("Retencion", "MontoISRRetenido") != "" {
				return "el campo MontoISRRetenido solo aplica a servicios (IndicadorBienoServicio 2) en el tipo 41"
			}
		}
	}
	if om := doc.child("Encabezado").child("OtraMoneda"); om != nil && om.get("MontoTotalOtraMoneda") != "" {
		var sum int64
		given := false
		for _, part := range []string{"MontoGravadoTotalOtraMoneda", "MontoExentoOtraMoneda", "TotalITBISOtraMoneda", "MontoImpuestoAdicionalOtraMoneda"} {
			if v := om.get(part); v != "" {
				sum, given = sum+cents(v), true
			}
		}
		// DGII's tolerance on totals: one peso per detail line.
		if tol := int64(max(1, len(items))) * 100; given && abs(cents(om.get("MontoTotalOtraMoneda"))-sum) > tol {
			return "el campo MontoTotalOtraMoneda no corresponde a la sumatoria de MontoGravadoTotalOtraMoneda, MontoExentoOtraMoneda, TotalITBISOtraMoneda y MontoImpuestoAdicionalOtraMoneda"
		}
	}
	return ""
}

// cents reads an amount the schema check let through (digits, at most two
// decimals) in hundredths.
func cents(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt((frac + "00")[:2], 10, 64)
	return w*100 + f
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
