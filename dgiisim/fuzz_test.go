package dgiisim

import (
	"reflect"
	"testing"
)

// xmlDocs are parseXML inputs; fast says whether parseXMLFast reads them
// (otherwise encoding/xml does).
var xmlDocs = []struct {
	doc  string
	fast bool
}{
	{`<ECF><Encabezado><IdDoc><TipoeCF>31</TipoeCF></IdDoc></Encabezado></ECF>`, true},
	{`<?xml version="1.0" encoding="utf-8"?><ECF><A>x &amp; y &lt;&#241;&#xF1;&gt; &quot;</A><B/><C a="1" b='&apos;2&apos;' >  z  </C ></ECF>`, true},
	{"<!-- c --><a>\n  <b>uno</b>\n  <b>dos</b> <!-- c --> t\n</a>\n", true},
	{`<a xmlns:ds="x"><ds:Signature><ds:SignatureValue>abc</ds:SignatureValue></ds:Signature></a>`, true},
	{`<a>x<b/>y</a>`, true},
	{"<a>\u00a0x\u00a0</a>", true}, // strings.TrimSpace trims U+00A0 too
	{`<!DOCTYPE ECF [<!ENTITY x "y">]><ECF>&x;</ECF>`, false},
	{`<?xml version="1.0" encoding="ISO-8859-1"?><a/>`, false},
	{`<a><b/></a><c/>`, false},
	{`text<a/>`, false},
	{"", false},
	{`<a><![CDATA[x]]></a>`, false},
	{"<a>x\r\ny</a>", false},
	{`<a><?pi?></a>`, false},
	{`<a>&nbsp;</a>`, false},
	{`<a></b>`, false},
	{`<año/>`, false},
	{`<a b="<"/>`, false},
	{`<a b=1/>`, false},
	{`<a b="1"c="2"/>`, false},
	{`<a><!-- -- --></a>`, false},
	{"\ufeff<a/>", false},
}

// TestParseXMLFast checks which documents parseXMLFast reads, and that
// what it reads, encoding/xml reads the same.
func TestParseXMLFast(t *testing.T) {
	for _, tc := range xmlDocs {
		got, ok := parseXMLFast([]byte(tc.doc))
		if ok != tc.fast {
			t.Errorf("%q: fast ok = %v, want %v", tc.doc, ok, tc.fast)
		}
		if ok {
			checkSameTree(t, tc.doc, got)
		}
	}
	deep := ""
	for range maxDepth + 1 {
		deep = "<a>" + deep + "</a>"
	}
	if _, ok := parseXMLFast([]byte(deep)); ok {
		t.Errorf("%d levels: read by the fast path", maxDepth+1)
	}
	if _, err := parseXML([]byte(deep)); err == nil || err.Error() != "too deeply nested" {
		t.Errorf("%d levels: got %v", maxDepth+1, err)
	}
}

// checkSameTree checks got, parseXMLFast's tree of doc, against
// encoding/xml's.
func checkSameTree(t *testing.T, doc string, got *node) {
	t.Helper()
	want, err := parseXMLSlow([]byte(doc))
	if err != nil {
		t.Fatalf("%q: fast path reads it, encoding/xml: %v", doc, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\nfast         %s\nencoding/xml %s", doc, dump(got), dump(want))
	}
}

func dump(n *node) string {
	s := "<" + n.name + ">" + n.text
	for _, c := range n.children {
		s += dump(c)
	}
	return s + "</>"
}

// FuzzParseXML: the simulator parses whatever clients upload; it must
// never panic, never accept a DOCTYPE, and its fast path must read what
// encoding/xml reads, the same way.
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
		if got, ok := parseXMLFast(b); ok {
			checkSameTree(t, string(b), got)
		}
	})
}
