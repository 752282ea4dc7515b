package dgiisim

import (
	"strings"
	"testing"
)

// xmlDocs are parseXML inputs with the tree it reads (see dump) or its
// error.
var xmlDocs = []struct {
	doc, tree, err string
}{
	{doc: `<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`, tree: `<ECF><Encabezado><IdDoc><TipoeCF>31</></></></>`},
	{doc: `<?xml version="1.0" encoding="utf-8"?><ECF><A>x &amp; y &lt;&#241;&#xF1;&gt; &quot;</A><B/><C a="1" b='&apos;2&apos;' >  z  </C ></ECF>`, tree: `<ECF><A>x & y <ññ> "</><B></><C>z</></>`},
	{doc: "<!-- c --><a>\n  <b>uno</b>\n  <b>dos</b> <!-- c --> t\n</a>\n", tree: `<a>t<b>uno</><b>dos</></>`},
	{doc: `<a xmlns:ds="x"><ds:Signature><ds:SignatureValue>abc</ds:SignatureValue></ds:Signature></a>`, tree: `<a><Signature><SignatureValue>abc</></></>`},
	{doc: `<a>x<b/>y</a>`, tree: `<a>xy<b></></>`},
	{doc: "<a>\u00a0x\u00a0</a>", tree: `<a>x</>`}, // strings.TrimSpace trims U+00A0 too
	{doc: `<a><![CDATA[x]]></a>`, tree: `<a>x</>`},
	{doc: "<a>x\r\ny</a>", tree: "<a>x\ny</>"},
	{doc: `<a><?pi?></a>`, tree: `<a></>`},
	{doc: `<año/>`, tree: `<año></>`},
	{doc: `<!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>`, err: "DOCTYPE and other directives are not accepted"},
	{doc: `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, err: `xml: opening charset "ISO-8859-1": charset "ISO-8859-1" is not UTF-8`},
	{doc: `<a><b/></a><c/>`, err: "more than one root element"},
	{doc: `text<a/>`, err: "text outside the root element"},
	{doc: "\ufeff<a/>", err: "text outside the root element"},
	{doc: "", err: "no root element"},
	{doc: `<a>&nbsp;</a>`, err: "XML syntax error on line 1: invalid character entity &nbsp;"},
	{doc: `<a></b>`, err: "XML syntax error on line 1: element <a> closed by </b>"},
	{doc: `<a b="<"/>`, err: "XML syntax error on line 1: unescaped < inside quoted string"},
	{doc: `<a b=1/>`, err: "XML syntax error on line 1: unquoted or missing attribute value in element"},
	{doc: `<a><!-- -- --></a>`, err: `XML syntax error on line 1: invalid sequence "--" not allowed in comments`},
}

func TestParseXML(t *testing.T) {
	for _, tc := range xmlDocs {
		n, err := parseXML([]byte(tc.doc))
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: got error %v, want %q", tc.doc, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.doc, err)
		case dump(n) != tc.tree:
			t.Errorf("%q:\ngot  %s\nwant %s", tc.doc, dump(n), tc.tree)
		}
	}
	deep := strings.Repeat("<a>", maxDepth+1) + strings.Repeat("</a>", maxDepth+1)
	if _, err := parseXML([]byte(deep)); err == nil || err.Error() != "too deeply nested" {
		t.Errorf("%d levels: got %v", maxDepth+1, err)
	}
}

// dump writes a tree as <name>text children</>.
func dump(n *node) string {
	s := "<" + n.name + ">" + n.text
	for _, c := range n.children {
		s += dump(c)
	}
	return s + "</>"
}

// FuzzParseXML: the simulator parses whatever clients upload; it must
// never panic, and it returns a tree whenever it returns no error.
func FuzzParseXML(f *testing.F) {
	for _, tc := range xmlDocs {
		f.Add([]byte(tc.doc))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := parseXML(b)
		if err == nil && n == nil {
			t.Fatal("nil root without error")
		}
		if err == nil {
			n.get("Encabezado", "IdDoc", "TipoeCF")
			n.child("DetalleAnulacion").all("Anulacion")
		}
	})
}
