package ecf

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/xmlchar"
)

// The SemillaModel a receiver issues (FACTS §1.2, DT16 p.53): the two
// namespace declarations DGII's own seed carries, then valor and fecha,
// the time with seven fractional digits in the Dominican Republic's zone.
const (
	semillaXSI    = "http://www.w3.org/2001/XMLSchema-instance"
	semillaXSD    = "http://www.w3.org/2001/XMLSchema"
	semillaLayout = "2006-01-02T15:04:05.0000000-07:00"
	xmldsigNS     = "http://www.w3.org/2000/09/xmldsig#"
)

// SemillaXML is the seed a receiver's authentication service hands out
// (DGII's SemillaModel, FACTS §1.2): value and the time it was issued, to
// 100 ns (the fecha's precision).
func SemillaXML(value string, at time.Time) []byte {
	w := xmlWriter{b: make([]byte, 0, 256)}
	w.raw(XMLDeclaration)
	w.raw(`<SemillaModel xmlns:xsi="` + semillaXSI + `" xmlns:xsd="` + semillaXSD + `">`)
	w.text("valor", value)
	w.text("fecha", at.In(sello.DRZone).Format(semillaLayout))
	w.raw("</SemillaModel>")
	return w.b
}

// ParseSemilla reads a seed posted back signed and returns its valor and
// fecha. The document must be the SemillaXML issued, with its signature
// added (DT16 p.60: the file signed must be the file issued): root
// <SemillaModel>, declaring xmlns:xsi and xmlns:xsd as issued and nothing
// else, holding <valor>, <fecha> (written as SemillaXML writes it) and
// <Signature>, in that order, and nothing else but whitespace; UTF-8, at
// most MaxReplySize bytes, no DOCTYPE. It does not check the signature.
// Returns PAYLOAD_TOO_LARGE or INVALID_REQUEST, naming what differs.
func ParseSemilla(data []byte) (valor string, fecha time.Time, err error) {
	if len(data) > MaxReplySize {
		return "", time.Time{}, sello.Errorf(sello.CodePayloadTooLarge, "The SemillaModel XML has %d bytes; at most %d are accepted.", len(data), MaxReplySize)
	}
	bad := invalidXML("SemillaModel")
	data = xmlchar.TrimBOM(data)
	if err := xmlchar.CheckLimits(data); err != nil {
		return "", time.Time{}, bad("%v", err)
	}
	next := xmlTokens(data, bad)
	want := []string{"valor", "fecha", "Signature"}
	var (
		depth    int
		children int    // the root's children seen
		field    string // "valor" or "fecha" while reading it
		text     []byte
		done     bool
		fields   = map[string]string{}
	)
	for {
		tok, err := next()
		if err == io.EOF {
			break
		} else if err != nil {
			return "", time.Time{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case done:
				return "", time.Time{}, bad("content after the root element")
			case depth == 0:
				if t.Name.Local != "SemillaModel" || t.Name.Space != "" {
					return "", time.Time{}, bad("the root element must be <SemillaModel> without namespace prefix, not <%s>", qualified(t.Name))
				}
				if err := semillaNamespaces(t.Attr); err != nil {
					return "", time.Time{}, bad("%s", err)
				}
			case depth == 1:
				if children == len(want) {
					return "", time.Time{}, bad("<SemillaModel> holds <%s> after its <Signature>; the seed must be signed as issued", t.Name.Local)
				}
				w := want[children]
				space := ""
				if w == "Signature" {
					space = xmldsigNS
				}
				if t.Name.Local != w || t.Name.Space != space {
					return "", time.Time{}, bad("<SemillaModel> holds <%s> where <%s> was issued; the seed must be signed as issued: valor, fecha, then the Signature", t.Name.Local, w)
				}
				if len(t.Attr) > 0 && w != "Signature" {
					return "", time.Time{}, bad("<%s> carries attributes; the seed must be signed as issued", w)
				}
				children++
				if w != "Signature" {
					field, text = w, text[:0]
				}
			case field != "":
				return "", time.Time{}, bad("<%s> must hold text, not elements", field)
			case depth >= maxXMLDepth:
				return "", time.Time{}, bad("elements nest deeper than %d", maxXMLDepth)
			}
			depth++
		case xml.CharData:
			switch {
			case field != "":
				text = append(text, t...)
			case depth <= 1 && len(bytes.TrimSpace(t)) > 0:
				return "", time.Time{}, bad("text outside valor and fecha")
			}
		case xml.EndElement:
			if field != "" {
				fields[field], field = string(text), ""
			}
			depth--
			done = depth == 0
		}
	}
	if !done {
		return "", time.Time{}, bad("no <SemillaModel> element")
	} else if children < len(want) {
		return "", time.Time{}, bad("<SemillaModel> has no <%s>; the seed must be signed as issued: valor, fecha, then the Signature", want[children])
	}
	valor = fields["valor"]
	if valor == "" || strings.TrimSpace(valor) != valor {
		return "", time.Time{}, bad("<valor> must be the value issued, without spaces around it")
	}
	fecha, err = time.ParseInLocation(semillaLayout, fields["fecha"], sello.DRZone)
	if err != nil || fecha.In(sello.DRZone).Format(semillaLayout) != fields["fecha"] {
		return "", time.Time{}, bad("<fecha> %q is not written as issued (2006-01-02T15:04:05.0000000-04:00: seven fractional digits, the Dominican Republic's offset)", fields["fecha"])
	}
	return valor, fecha, nil
}

// semillaNamespaces checks that the root's attributes are the namespace
// declarations SemillaXML writes, in any order, and nothing else.
func semillaNamespaces(attrs []xml.Attr) error {
	want := map[string]string{"xsi": semillaXSI, "xsd": semillaXSD}
	for _, a := range attrs {
		if a.Name.Space != "xmlns" || want[a.Name.Local] != a.Value {
			return fmt.Errorf("<SemillaModel> carries %s=%q; the seed must be signed as issued, declaring exactly xmlns:xsi and xmlns:xsd", qualified(a.Name), a.Value)
		}
		delete(want, a.Name.Local)
	}
	if len(want) > 0 {
		return fmt.Errorf("<SemillaModel> lacks the namespace declarations it was issued with (xmlns:xsi and xmlns:xsd); the seed must be signed as issued")
	}
	return nil
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
