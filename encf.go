package sello

import (
	"fmt"
	"strconv"
)

// DocumentType is a DGII e-CF type code: "31", "32", "33", "34", "41", "43",
// "44", "45", "46" or "47". In API resources it appears with an E prefix
// ("E31"), as in the e-NCF.
type DocumentType string

// The ten e-CF types.
const (
	TypeCreditoFiscal       DocumentType = "31" // Factura de Crédito Fiscal Electrónica
	TypeConsumo             DocumentType = "32" // Factura de Consumo Electrónica
	TypeNotaDebito          DocumentType = "33" // Nota de Débito Electrónica
	TypeNotaCredito         DocumentType = "34" // Nota de Crédito Electrónica
	TypeCompras             DocumentType = "41" // Compras Electrónico
	TypeGastosMenores       DocumentType = "43" // Gastos Menores Electrónico
	TypeRegimenesEspeciales DocumentType = "44" // Regímenes Especiales Electrónico
	TypeGubernamental       DocumentType = "45" // Gubernamental Electrónico
	TypeExportaciones       DocumentType = "46" // Comprobante para Exportaciones Electrónico
	TypePagosExterior       DocumentType = "47" // Comprobante para Pagos al Exterior Electrónico
)

// DocumentTypes lists the ten types in DGII's order.
var DocumentTypes = []DocumentType{
	TypeCreditoFiscal, TypeConsumo, TypeNotaDebito, TypeNotaCredito, TypeCompras,
	TypeGastosMenores, TypeRegimenesEspeciales, TypeGubernamental, TypeExportaciones, TypePagosExterior,
}

// ParseDocumentType accepts "31" or "E31". Returns INVALID_REQUEST.
func ParseDocumentType(s string) (DocumentType, error) {
	if len(s) == 3 && (s[0] == 'E' || s[0] == 'e') {
		s = s[1:]
	}
	for _, t := range DocumentTypes {
		if string(t) == s {
			return t, nil
		}
	}
	return "", Errorf(CodeInvalidRequest, "Unknown e-CF type %q: use one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.", s)
}

// Code is the type as it appears in resources and events: "E31".
func (t DocumentType) Code() string { return "E" + string(t) }

// HasSequenceExpiry reports whether DGII's authorized ranges of type t
// carry an expiry (FechaVencimientoSecuencia): every type but 32 and 34.
func (t DocumentType) HasSequenceExpiry() bool {
	return t != TypeConsumo && t != TypeNotaCredito
}

// MaxSequenceNumber is the largest sequential an e-NCF can carry (10 digits).
const MaxSequenceNumber = 9_999_999_999

// ENCF is a parsed e-NCF: series E, a two-digit type and a ten-digit
// sequential, e.g. E310000000001.
type ENCF struct {
	Type   DocumentType
	Number int64
}

// ParseENCF parses an e-NCF of exactly 13 characters: 'E', one of the ten
// type codes, and ten digits with a sequential of at least 1. Returns
// INVALID_REQUEST with a message that says what is wrong.
func ParseENCF(s string) (ENCF, error) {
	if len(s) != 13 {
		return ENCF{}, Errorf(CodeInvalidRequest, "e-NCF %q must have 13 characters (E, the type, 10 digits).", truncate(s, 40))
	} else if s[0] != 'E' {
		return ENCF{}, Errorf(CodeInvalidRequest, "e-NCF %q must start with the series E.", s)
	}
	t, err := ParseDocumentType(s[1:3])
	if err != nil {
		return ENCF{}, Errorf(CodeInvalidRequest, "e-NCF %q has an unknown type %q.", s, s[1:3])
	}
	for i := 3; i < 13; i++ {
		if s[i] < '0' || s[i] > '9' {
			return ENCF{}, Errorf(CodeInvalidRequest, "e-NCF %q must end in 10 digits.", s)
		}
	}
	n, _ := strconv.ParseInt(s[3:], 10, 64)
	if n < 1 {
		return ENCF{}, Errorf(CodeInvalidRequest, "e-NCF %q has sequential 0; sequentials start at 1.", s)
	}
	return ENCF{Type: t, Number: n}, nil
}

// String formats the e-NCF.
func (e ENCF) String() string { return fmt.Sprintf("E%s%010d", e.Type, e.Number) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ENCFPath is the JSON path of the e-NCF in a document.
const ENCFPath = "ECF.Encabezado.IdDoc.eNCF"
