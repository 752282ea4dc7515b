package pdf

import (
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

// TypeName is the e-CF type in words, as DGII's format lists it (column "I"
// value "P": printed in words), e.g. "Factura de Crédito Fiscal Electrónica"
// for 31. It returns "" for an unknown type.
func TypeName(t sello.DocumentType) string {
	return typeNames[t]
}

var typeNames = map[sello.DocumentType]string{
	sello.TypeCreditoFiscal:       "Factura de Crédito Fiscal Electrónica",
	sello.TypeConsumo:             "Factura de Consumo Electrónica",
	sello.TypeNotaDebito:          "Nota de Débito Electrónica",
	sello.TypeNotaCredito:         "Nota de Crédito Electrónica",
	sello.TypeCompras:             "Compras Electrónico",
	sello.TypeGastosMenores:       "Gastos Menores Electrónico",
	sello.TypeRegimenesEspeciales: "Regímenes Especiales Electrónico",
	sello.TypeGubernamental:       "Gubernamental Electrónico",
	sello.TypeExportaciones:       "Comprobante de Exportaciones Electrónico",
	sello.TypePagosExterior:       "Comprobante para Pagos al Exterior Electrónico",
}

// unitNames is DGII's Tabla IV (Codificación Unidad de Medida): UnidadMedida
// is printed in words. The abbreviation is what fits an items table.
var unitNames = [...]string{
	1: "Barril", 2: "Bolsa", 3: "Bote", 4: "Bultos", 5: "Botella", 6: "Caja",
	7: "Cajetilla", 8: "Centímetro", 9: "Cilindro", 10: "Conjunto",
	11: "Contenedor", 12: "Día", 13: "Docena", 14: "Fardo", 15: "Galones",
	16: "Grado", 17: "Gramo", 18: "Granel", 19: "Hora", 20: "Huacal",
	21: "Kilogramo", 22: "Kilovatio hora", 23: "Libra", 24: "Litro", 25: "Lote",
	26: "Metro", 27: "Metro cuadrado", 28: "Metro cúbico", 29: "MMBTU",
	30: "Minuto", 31: "Paquete", 32: "Par", 33: "Pie", 34: "Pieza", 35: "Rollo",
	36: "Sobre", 37: "Segundo", 38: "Tanque", 39: "Tonelada", 40: "Tubo",
	41: "Yarda", 42: "Yarda cuadrada", 43: "Unidad", 44: "Elemento",
	45: "Millar", 46: "Saco", 47: "Lata", 48: "Display", 49: "Bidón",
	50: "Ración", 51: "Quintal", 52: "GRT", 53: "Pie cuadrado", 54: "Pasajero",
	55: "Pulgadas", 56: "Parqueo barcos", 57: "Bandeja", 58: "Hectárea",
	59: "Mililitro", 60: "Miligramo", 61: "Onzas", 62: "Onzas troy",
}

func unitName(c ecf.Code) string {
	n := atoi(string(c))
	if n > 0 && n < len(unitNames) {
		return unitNames[n]
	}
	return string(c)
}

// modificationNames is CodigoModificacion in words (printed "P").
var modificationNames = map[ecf.Code]string{
	"1": "Anula el NCF modificado",
	"2": "Corrige texto del comprobante fiscal modificado",
	"3": "Corrige montos del NCF modificado",
	"4": "Reemplazo de NCF emitido en contingencia",
	"5": "Referencia Factura de Consumo Electrónica",
}

var paymentTypes = map[ecf.Code]string{"1": "Contado", "2": "Crédito", "3": "Gratuito"}

var paymentForms = map[ecf.Code]string{
	"1": "Efectivo",
	"2": "Cheque/Transferencia/Depósito",
	"3": "Tarjeta de débito/crédito",
	"4": "Venta a crédito",
	"5": "Bonos o certificados de regalo",
	"6": "Permuta",
	"7": "Nota de crédito",
	"8": "Otras formas de pago",
}

// additionalTaxName names a code of DGII's Tabla I (Codificación Tipos de
// Impuestos Adicionales) by its group.
func additionalTaxName(c ecf.Code) string {
	n := atoi(string(c))
	switch {
	case n == 1:
		return "Propina legal"
	case n == 2:
		return "CDT"
	case n == 3 || n == 4:
		return "ISC"
	case n == 5:
		return "Primera placa"
	case n >= 6 && n <= 22:
		return "ISC específico"
	case n >= 23 && n <= 39:
		return "ISC ad valorem"
	}
	return "Impuesto"
}

// placeName is a code of Tabla III in words, without DGII's "MUNICIPIO " and
// "PROVINCIA " prefixes and " (D. M.)." suffix; the code itself if unknown.
func placeName(c ecf.Code) string {
	n, ok := placeNames[string(c)]
	if !ok {
		return string(c)
	}
	n = strings.TrimPrefix(n, "MUNICIPIO ")
	n = strings.TrimPrefix(n, "PROVINCIA ")
	n = strings.TrimSuffix(n, ".")
	n = strings.TrimSuffix(n, " (D. M.)")
	return n
}

// atoi parses a small non-negative decimal integer, or returns -1.
func atoi(s string) int {
	if s == "" || len(s) > 6 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// Amount formats an exact decimal for print with thousands separators and
// at least two decimals: "1180.00" → "1,180.00", "-3.5" → "-3.50",
// "12.3456" → "12.3456". It works on the decimal text, never on a float.
// A nil amount gives "".
func Amount(d *ecf.Decimal) string {
	if d == nil {
		return ""
	}
	return group(d.String())
}

// Money is Amount with the peso sign: "RD$ 1,180.00".
func Money(d *ecf.Decimal) string {
	if d == nil {
		return ""
	}
	return "RD$ " + Amount(d)
}

// quantity formats a quantity without trailing zeros: "2.00" → "2",
// "1.50" → "1.5", "1200" → "1,200".
func quantity(d *ecf.Decimal) string {
	if d == nil {
		return ""
	}
	s := d.String()
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return group(s)
}

// rate formats a percentage: "18" → "18%", "2.50" → "2.5%".
func rate(s string) string {
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s + "%"
}

// group inserts a comma every three digits of the integer part of a plain
// decimal text ("-1234567.891" → "-1,234,567.891").
func group(s string) string {
	sign := ""
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 {
		return sign + intPart + frac
	}
	var b strings.Builder
	b.Grow(len(sign) + len(intPart) + len(intPart)/3 + len(frac))
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}

// family is Helvetica spelled so that maroto does not translate each text to
// cp1252 itself (it builds gofpdf's translation table with fmt.Sscanf on
// every call, 90% of the rendering time); gofpdf lowercases the name and
// uses the core font. Texts go through cp1252 instead.
const family = "Helvetica"

// cp1252 encodes s for the PDF core fonts (WinAnsiEncoding): ASCII and
// Latin-1 as themselves (á é í ó ú ñ ü ¿ ¡ …), the Windows-1252 extras (— – “ ” ‘ ’ € …)
// to their bytes, and anything else to "?".
func cp1252(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r < 0x80 || (r >= 0xa0 && r <= 0xff):
			b = append(b, byte(r))
		default:
			if c, ok := win1252[r]; ok {
				b = append(b, c)
			} else {
				b = append(b, '?')
			}
		}
	}
	return string(b)
}

// win1252 maps the characters of Windows-1252's 0x80–0x9F range.
var win1252 = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e,
	'‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97,
	'˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}
