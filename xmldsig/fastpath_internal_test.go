package xmldsig

import (
	"reflect"
	"testing"
)

// fastDocs are inputs for the fast path; fast says whether it handles
// them (otherwise Sign takes the etree path).
var fastDocs = []struct {
	doc  string
	fast bool
}{
	{`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version></Encabezado><Vacio/><FechaHoraFirma>01-04-2026 10:15:30</FechaHoraFirma></ECF>`, true},
	{"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<SemillaModel xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n  <valor>abc</valor>\n  <fecha>2026</fecha>\n</SemillaModel>\n", true},
	{`<a b="1" a='2' xmlns:z="urn:z" xmlns="urn:d" z:c="3" xml:lang="es" ><z:b/><c xmlns="urn:d" xmlns:z="urn:z2"><d xmlns=""></d></c  ></a>`, true},
	{`<a x="&quot;&apos;&amp;&lt;&gt;&#9;&#x41;'">t &quot;&apos;&#13;&#x20;&gt;>]] ñ<!-- c -->  <!----><b> &#32; </b></a>`, true},
	{`<!-- antes --><a>x</a><!-- después -->  `, true},
	{`<a><![CDATA[x]]></a>`, false},
	{`<a>]]></a>`, false},
	{`<a><?pi x?></a>`, false},
	{"<a>\r\n</a>", false},
	{`<ñ></ñ>`, false},
	{`<a x="1" x="2"></a>`, false},
	{`<a xmlns:p="u" p:x="1" xmlns:q="u" q:x="2"></a>`, false},
	{`<p:a></p:a>`, false},
	{`<a>&nbsp;</a>`, false},
	{`<a></b>`, false},
	{`<a><!-- -- --></a>`, false},
	{`<?xml version="1.0" encoding="ISO-8859-1"?><a></a>`, false},
	{`<a>x</a><b></b>`, false},
	{`<a x="a` + "\n" + `b"></a>`, false},
	{"\ufeff<a></a>", false},
}

// TestFastPath checks that the fast path handles Sello's compact XML and
// the seed, and agrees with the etree path whenever it handles a document.
func TestFastPath(t *testing.T) {
	for _, tc := range fastDocs {
		got, ok := fastCanonicalize([]byte(tc.doc), 0)
		if ok != tc.fast {
			t.Errorf("%q: fast path ok = %v, want %v", tc.doc, ok, tc.fast)
		}
		if !ok {
			continue
		}
		want, err := slowCanonicalize([]byte(tc.doc), 0)
		if err != nil {
			t.Errorf("%q: etree path: %v", tc.doc, err)
			continue
		}
		checkSame(t, tc.doc, got, want)
	}
}

func checkSame(t *testing.T, doc string, got, want fastResult) {
	t.Helper()
	if string(got.decl) != string(want.decl) || string(got.canon) != string(want.canon) ||
		len(got.rootNS)+len(want.rootNS) > 0 && !reflect.DeepEqual(got.rootNS, want.rootNS) ||
		len(got.rootXML)+len(want.rootXML) > 0 && !reflect.DeepEqual(got.rootXML, want.rootXML) {
		t.Errorf("%q:\nfast  %q %s %v %v\netree %q %s %v %v", doc,
			got.decl, got.canon, got.rootNS, got.rootXML, want.decl, want.canon, want.rootNS, want.rootXML)
	}
}

// FuzzFastPath checks that the fast path never panics and, whenever it
// handles a document, gives what the etree path gives.
func FuzzFastPath(f *testing.F) {
	for _, tc := range fastDocs {
		f.Add(tc.doc)
	}
	for _, d := range c14nDocs {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := fastCanonicalize([]byte(doc), 0)
		if !ok {
			return
		}
		want, err := slowCanonicalize([]byte(doc), 0)
		if err != nil {
			t.Fatalf("%q: fast path accepts, etree path: %v", doc, err)
		}
		checkSame(t, doc, got, want)
	})
}
