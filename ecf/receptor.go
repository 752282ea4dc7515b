package ecf

import (
	"time"

	"github.com/sello-do/sello"
)

// SemillaXML is the seed a receiver's authentication service hands out
// (DGII's SemillaModel, FACTS §1.2): value and the time it was issued.
func SemillaXML(value string, at time.Time) []byte {
	w := xmlWriter{b: make([]byte, 0, 256)}
	w.raw(XMLDeclaration)
	w.raw(`<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`)
	w.text("valor", value)
	w.text("fecha", at.In(sello.DRZone).Format("2006-01-02T15:04:05.0000000-07:00"))
	w.raw("</SemillaModel>")
	return w.b
}

// ParseSemilla returns the value of a seed posted back signed: root
// <SemillaModel>, UTF-8, at most MaxReplySize bytes, no DOCTYPE, within
// xmlchar's limits; a byte order mark is skipped. It does not check the
// signature. Returns PAYLOAD_TOO_LARGE, INVALID_REQUEST, or
// VALIDATION_FAILED when it has no value.
func ParseSemilla(data []byte) (string, error) {
	f := map[string]string{}
	if err := scanXML(data, MaxReplySize, "SemillaModel", semillaFields, f); err != nil {
		return "", err
	}
	if f["valor"] == "" {
		return "", sello.ValidationError([]sello.ErrorDetail{{Path: "SemillaModel.valor", Message: "Required."}})
	}
	return f["valor"], nil
}

// ECFIdentity reads only an e-CF's RNCEmisor and eNCF, each "" when absent
// or malformed: what a receiver needs to answer, with an ARECF, an e-CF
// that ParseECFHeader refuses for its other fields.
func ECFIdentity(data []byte) (rncEmisor, encf string) {
	const rncPath, encfPath = "Encabezado/Emisor/RNCEmisor", "Encabezado/IdDoc/eNCF"
	f := map[string]string{}
	if scanXML(data, MaxECFSize, "ECF", identityFields, f) != nil {
		return "", ""
	}
	var v validation
	v.rnc(rncPath, f[rncPath])
	v.encf(encfPath, f[encfPath])
	if v.err() != nil {
		return "", ""
	}
	return f[rncPath], f[encfPath]
}

var (
	semillaFields  = newFieldSet("valor")
	identityFields = newFieldSet("Encabezado/Emisor/RNCEmisor", "Encabezado/IdDoc/eNCF")
)
