package xmlchar

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// attrs returns n attributes a="v" (CheckLimits counts them, duplicates
// are the parsers' to refuse), or n namespace declarations when ns.
func attrs(n int, ns bool) string {
	if ns {
		return strings.Repeat(` xmlns:p="urn:p"`, n)
	}
	return strings.Repeat(` a="v"`, n)
}

func TestCheckLimits(t *testing.T) {
	const dsig = `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><Reference URI=""/></Signature>`
	for _, tt := range []struct {
		name string
		doc  string
		want string // the error, "" for none
	}{
		{"OK", `<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version></Encabezado>` + dsig + `</ECF>`, ""},
		{"OKNetRoot", `<ARECF xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:noNamespaceSchemaLocation="ARECF.xsd">` + dsig + `</ARECF>`, ""},
		{"OKAtTheLimit", `<a` + attrs(MaxAttrs, false) + `/>`, ""},
		{"OKNamespacesAtTheLimit", `<a` + attrs(8, true) + `><b` + attrs(8, true) + `/></a>`, ""},
		{"OKSpaces", "<a\n\tb = 'x>y' \r\nc=\"<\"\n/>", ""},
		{"OKMarkupInComment", `<a><!-- <b` + attrs(40, false) + `> --></a>`, ""},
		{"OKMarkupInCDATA", `<a><![CDATA[<b` + attrs(40, false) + `>]]></a>`, ""},
		{"OKMarkupInPI", `<?pi <b` + attrs(40, false) + `>?><a/>`, ""},
		{"OKMarkupInValue", `<a b="<c` + strings.ReplaceAll(attrs(40, false), `"`, `'`) + `>"/>`, ""},
		{"OKDoctypeLeftToTheParser", `<!DOCTYPE a><a` + attrs(40, false) + `/>`, ""},
		{"OKMalformedLeftToTheParser", `<a b c` + attrs(40, false) + `/>`, ""},
		{"ErrAttrs", `<ECF` + attrs(MaxAttrs+1, false) + `/>`, "<ECF> carries more than 16 attributes"},
		{"ErrAttrsBelow", `<ECF><Encabezado><Item` + attrs(200, false) + `></Item></Encabezado></ECF>`, "<Item> carries more than 16 attributes"},
		{"ErrAttrsNoSpaces", `<a` + strings.ReplaceAll(attrs(MaxAttrs+1, false), `" a`, `"a`) + `/>`, "<a> carries more than 16 attributes"},
		{"ErrNamespaces", `<a` + attrs(10, true) + `><b` + attrs(7, true) + `/></a>`, "more than 16 namespace declarations (the last on <b>)"},
		{"ErrDefaultNamespaces", `<a>` + strings.Repeat(`<b xmlns="urn:x"/>`, MaxNamespaces+1) + `</a>`, "more than 16 namespace declarations (the last on <b>)"},
		{"ErrLongName", `<` + strings.Repeat("n", 100) + attrs(20, false) + `>`, "<" + strings.Repeat("n", 40) + "…> carries more than 16 attributes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckLimits([]byte(tt.doc))
			var got string
			if err != nil {
				got = err.Error()
				var le *LimitError
				if !errors.As(err, &le) {
					t.Errorf("error %T, want *LimitError", err)
				}
			}
			if got != tt.want {
				t.Errorf("CheckLimits = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTrimBOM(t *testing.T) {
	for in, want := range map[string]string{
		"\xef\xbb\xbf<a/>":         "<a/>",
		"<a/>":                     "<a/>",
		"\xef\xbb\xbf\xef\xbb\xbf": "\xef\xbb\xbf", // one mark only
		" \xef\xbb\xbf<a/>":        " \xef\xbb\xbf<a/>",
	} {
		if got := string(TrimBOM([]byte(in))); got != want {
			t.Errorf("TrimBOM(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzCheckLimits checks CheckLimits against encoding/xml: on any
// document encoding/xml reads to the end without a directive, CheckLimits
// refuses exactly when an element carries more than MaxAttrs attributes or
// the document more than MaxNamespaces declarations.
func FuzzCheckLimits(f *testing.F) {
	for _, doc := range []string{
		`<a b="1" xmlns:c="u"><c:d e='2'/><!-- <x y="1"> --><![CDATA[<z w="1">]]></a>`,
		`<a` + attrs(MaxAttrs+1, false) + `/>`,
		`<a` + attrs(MaxNamespaces+1, true) + `/>`,
		`<?xml version="1.0"?><a b=">"/>`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got := CheckLimits(doc)
		d := xml.NewDecoder(bytes.NewReader(doc))
		d.Strict = true
		d.CharsetReader = func(string, io.Reader) (io.Reader, error) { return nil, errors.New("no") }
		over, namespaces := false, 0
		for {
			tok, err := d.RawToken()
			if err == io.EOF {
				break
			} else if err != nil {
				return
			}
			switch tok := tok.(type) {
			case xml.Directive:
				return
			case xml.StartElement:
				if len(tok.Attr) > MaxAttrs {
					over = true
				}
				for _, a := range tok.Attr {
					if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
						namespaces++
					}
				}
			}
		}
		if want := over || namespaces > MaxNamespaces; (got != nil) != want {
			t.Fatalf("CheckLimits(%q) = %v, want an error: %v", doc, got, want)
		}
	})
}
