package ecf_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/ecf"
)

func TestParseSemilla(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 30, 15, 123456700, sello.DRZone)
	issued := ecf.SemillaXML("VALOR234", at)
	t.Run("OK", func(t *testing.T) {
		for name, doc := range map[string][]byte{
			"AsIssued": signed(issued),
			// Whitespace between the elements (a signer that indents) and
			// the declarations in the other order are the same document.
			"Indented": signed(bytes.ReplaceAll(issued, []byte("><"), []byte(">\n  <"))),
			"Swapped": signed(bytes.Replace(issued, []byte(`xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"`),
				[]byte(`xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`), 1)),
		} {
			valor, fecha, err := ecf.ParseSemilla(doc)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if valor != "VALOR234" || !fecha.Equal(at) {
				t.Errorf("%s: got %q %s, want VALOR234 %s", name, valor, fecha, at)
			}
		}
	})
	for _, c := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"ErrUnsigned", issued, "has no <Signature>"},
		{"ErrNoFecha", signed(cutElement(issued, "fecha")), "holds <Signature> where <fecha> was issued"},
		{"ErrNoValor", signed(cutElement(issued, "valor")), "holds <fecha> where <valor> was issued"},
		{"ErrNoNamespaces", signed(bytes.Replace(issued, []byte(` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"`), nil, 1)), "lacks the namespace declarations"},
		{"ErrOneNamespace", signed(bytes.Replace(issued, []byte(` xmlns:xsd="http://www.w3.org/2001/XMLSchema"`), nil, 1)), "lacks the namespace declarations"},
		{"ErrOtherNamespaceValue", signed(bytes.Replace(issued, []byte(`XMLSchema"`), []byte(`XMLSchema2"`), 1)), `xmlns:xsd="http://www.w3.org/2001/XMLSchema2"`},
		{"ErrAttribute", signed(bytes.Replace(issued, []byte(`<SemillaModel `), []byte(`<SemillaModel id="1" `), 1)), `carries id="1"`},
		{"ErrFieldAttribute", signed(bytes.Replace(issued, []byte(`<valor>`), []byte(`<valor a="1">`), 1)), "<valor> carries attributes"},
		{"ErrExtraElement", signed(bytes.Replace(issued, []byte(`</fecha>`), []byte(`</fecha><x/>`), 1)), "holds <x> where <Signature> was issued"},
		{"ErrAfterSignature", append(signed(issued)[:len(signed(issued))-len("</SemillaModel>")], []byte("<x/></SemillaModel>")...), "holds <x> after its <Signature>"},
		{"ErrTextBetween", signed(bytes.Replace(issued, []byte(`</valor>`), []byte(`</valor>texto`), 1)), "text outside valor and fecha"},
		{"ErrNested", signed(bytes.Replace(issued, []byte(`<valor>VALOR234`), []byte(`<valor><b>VALOR234</b>`), 1)), "<valor> must hold text"},
		{"ErrValorSpaces", signed(bytes.Replace(issued, []byte(`<valor>VALOR234`), []byte(`<valor> VALOR234`), 1)), "without spaces around it"},
		{"ErrFechaUTC", signed(bytes.Replace(issued, []byte(at.Format("2006-01-02T15:04:05.0000000-07:00")), []byte(at.UTC().Format("2006-01-02T15:04:05.0000000Z07:00")), 1)), "is not written as issued"},
		{"ErrFechaShort", signed(bytes.Replace(issued, []byte(".1234567-04:00"), []byte(".123-04:00"), 1)), "is not written as issued"},
		{"ErrRoot", signed([]byte(`<Semilla><valor>V</valor></Semilla>`)), "the root element must be <SemillaModel>"},
		{"ErrDoctype", []byte(`<!DOCTYPE x [<!ENTITY e "e">]><SemillaModel/>`), "DOCTYPE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ecf.ParseSemilla(c.doc)
			if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(sello.ErrorMessageOf(err), c.want) {
				t.Fatalf("got %v, want INVALID_REQUEST saying %q", err, c.want)
			}
		})
	}
	t.Run("ErrTooLarge", func(t *testing.T) {
		_, _, err := ecf.ParseSemilla(bytes.Repeat([]byte(" "), ecf.MaxReplySize+1))
		if sello.ErrorCodeOf(err) != sello.CodePayloadTooLarge {
			t.Fatalf("got %v, want PAYLOAD_TOO_LARGE", err)
		}
	})
}

// cutElement removes <name>…</name> from doc.
func cutElement(doc []byte, name string) []byte {
	i, j := bytes.Index(doc, []byte("<"+name+">")), bytes.Index(doc, []byte("</"+name+">"))
	return append(append([]byte{}, doc[:i]...), doc[j+len("</"+name+">"):]...)
}

// FuzzParseSemilla checks that ParseSemilla never panics, fails only as
// documented, and that what it accepts is the seed SemillaXML writes of
// its valor and fecha.
func FuzzParseSemilla(f *testing.F) {
	f.Add(signed(ecf.SemillaXML("VALOR234", time.Date(2026, 11, 27, 9, 30, 15, 123456700, sello.DRZone))))
	f.Add(ecf.SemillaXML("V", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	f.Add([]byte(`<SemillaModel><valor>V</valor></SemillaModel>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		valor, fecha, err := ecf.ParseSemilla(doc)
		if err != nil {
			assertParseFailure(t, err)
			return
		}
		again, at, err := ecf.ParseSemilla(signed(ecf.SemillaXML(valor, fecha)))
		if err != nil || again != valor || !at.Equal(fecha) {
			t.Fatalf("accepted %q %s, which SemillaXML writes as %q %s (%v)", valor, fecha, again, at, err)
		}
	})
}
