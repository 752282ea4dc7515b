package ecf

import (
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// TimbreURL is the URL of DGII's timbre page for the document, encoded in
// the QR code of its printed representation (DGII's Descripción Técnica,
// consulta timbre):
//
//	https://ecf.dgii.gov.do/{env}/consultatimbre?rncemisor=…&rnccomprador=…&encf=…&fechaemision=dd-MM-yyyy&montototal=…&fechafirma=dd-MM-yyyy%20HH:mm:ss&codigoseguridad=…
//
// with env testecf, certecf or ecf, and rnccomprador left out for types 43
// and 47 and whenever the document has no RNCComprador. A type 32 under DOP
// 250,000.00 (NeedsRFCE) uses the consumer-invoice form instead:
//
//	https://fc.dgii.gov.do/{env}/consultatimbrefc?rncemisor=…&encf=…&montototal=…&codigoseguridad=…
//
// securityCode is the first six characters of the signed e-CF's
// SignatureValue and signedAt its FechaHoraFirma (written in GMT-4). Every
// value is percent-encoded: characters other than letters and digits
// become %XX (the security code's + / = included, as DGII lists), except
// the - of dates, the : of times and the . of amounts, which DGII's
// examples keep; the space of fechafirma is %20.
func TimbreURL(env sello.Environment, d *Document, securityCode string, signedAt time.Time) string {
	var rncEmisor, fechaEmision string
	if e := d.ECF.Encabezado; e != nil && e.Emisor != nil {
		rncEmisor, fechaEmision = e.Emisor.RNCEmisor, e.Emisor.FechaEmision
	}
	b := make([]byte, 0, 256)
	if d.NeedsRFCE() {
		b = append(b, "https://fc.dgii.gov.do/"...)
		b = append(b, env.Slug()...)
		b = append(b, "/consultatimbrefc"...)
		b = param(b, '?', "rncemisor", rncEmisor, "")
		b = param(b, '&', "encf", d.ENCF(), "")
		b = param(b, '&', "montototal", d.Total(), ".")
		b = param(b, '&', "codigoseguridad", securityCode, "")
		return string(b)
	}
	b = append(b, "https://ecf.dgii.gov.do/"...)
	b = append(b, env.Slug()...)
	b = append(b, "/consultatimbre"...)
	b = param(b, '?', "rncemisor", rncEmisor, "")
	if t := d.Type(); t != sello.TypeGastosMenores && t != sello.TypePagosExterior && d.BuyerRNC() != "" {
		b = param(b, '&', "rnccomprador", d.BuyerRNC(), "")
	}
	b = param(b, '&', "encf", d.ENCF(), "")
	b = param(b, '&', "fechaemision", fechaEmision, "-")
	b = param(b, '&', "montototal", d.Total(), ".")
	b = param(b, '&', "fechafirma", dgiiDateTime(signedAt), "-:")
	b = param(b, '&', "codigoseguridad", securityCode, "")
	return string(b)
}

// param appends sep, name, = and value percent-encoded: every byte but
// ASCII letters, digits and those in keep becomes %XX.
func param(b []byte, sep byte, name, value, keep string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, sep)
	b = append(b, name...)
	b = append(b, '=')
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b = append(b, c)
		case c < 0x80 && strings.IndexByte(keep, c) >= 0:
			b = append(b, c)
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}
