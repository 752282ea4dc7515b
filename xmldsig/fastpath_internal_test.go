package xmldsig

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/beevik/etree"
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
// handles a document, gives what the etree path gives, in both modes.
func FuzzFastPath(f *testing.F) {
	for _, tc := range fastDocs {
		f.Add(tc.doc)
	}
	for _, d := range c14nDocs {
		f.Add(d)
	}
	for _, d := range signedShapes {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if got, ok := fastCanonicalize([]byte(doc), 0); ok {
			want, err := slowCanonicalize([]byte(doc), 0)
			if err != nil {
				t.Fatalf("%q: fast path accepts, etree path: %v", doc, err)
			}
			checkSame(t, doc, got, want)
		}
		checkSigned(t, doc)
	})
}

// signedShapes are documents with Signature elements in and out of
// place, for the verify mode.
var signedShapes = []string{
	`<a><b>x</b><Signature xmlns="` + nsDSig + `"><SignedInfo></SignedInfo></Signature></a>`,
	"<a xmlns:ds=\"" + nsDSig + "\">\n <b/>\n <ds:Signature><ds:SignedInfo/></ds:Signature>\n</a>\n",
	`<p:a xmlns:p="urn:p" xml:lang="es" b="&lt;&#x9;"><Signature xmlns="` + nsDSig + `" Id='s'>t &amp; <!-- c --> u<SignedInfo p:x="1" ><X/>
</SignedInfo > </Signature></p:a>`,
	`<a><Signature xmlns="` + nsDSig + `"/><b/></a>`,
	`<a><b><Signature xmlns="` + nsDSig + `"/></b><Signature xmlns="` + nsDSig + `"/></a>`,
	`<Signature xmlns="` + nsDSig + `"><Signature/></Signature>`,
	`<a xmlns="` + nsDSig + `"><Signature/><!-- c --> </a>`,
	`<a><Signature xmlns="urn:x"/><p:Signature xmlns:p="` + nsDSig + `"></p:Signature></a>`,
}

// checkSigned checks the verify mode against the etree path: the same
// canonical form, whitespace kept, and when it finds one Signature in
// place, the one findSignature finds, whose removal gives what
// canonicalize gives without it.
func checkSigned(t *testing.T, doc string) {
	t.Helper()
	got, ok := fastCanonicalizeSigned([]byte(doc))
	if !ok {
		return
	}
	d, err := parseDocument([]byte(doc))
	if err != nil {
		t.Fatalf("%q: verify mode accepts, etree path: %v", doc, err)
	}
	root := d.Root()
	if want := canonicalize(root, nil, 0); string(got.canon) != string(want) {
		t.Fatalf("%q: verify mode\nfast  %s\netree %s", doc, got.canon, want)
	}
	if got.sig.count != 1 || !got.sig.placed {
		return
	}
	sig, err := findSignature(root)
	if err != nil {
		t.Fatalf("%q: verify mode finds one Signature in place, etree path: %v", doc, err)
	}
	want := canonicalize(root, sig, 0)
	without := string(got.canon[:got.sig.out[0]]) + string(got.canon[got.sig.out[1]:])
	if without != string(want) {
		t.Fatalf("%q: without the Signature\nfast  %s\netree %s", doc, without, want)
	}
	// The root's start tag and the Signature, as etree reads them.
	wrapper := doc[got.rootTag[0]:got.rootTag[1]] + doc[got.sig.in[0]:got.sig.in[1]] + "</" + string(got.rootName) + ">"
	wd, err := parseDocument([]byte(wrapper))
	if err != nil {
		t.Fatalf("%q: %q: %v", doc, wrapper, err)
	}
	tree, ok := fastSignatureTree([]byte(doc), &got)
	if !ok {
		t.Fatalf("%q: no tree of the Signature", doc)
	}
	if want := dumpTree(wd.Root()); dumpTree(tree) != want {
		t.Fatalf("%q: Signature tree\nfast  %s\netree %s", doc, dumpTree(tree), want)
	}
}

// dumpTree writes everything Verify may look at in an etree.
func dumpTree(el *etree.Element) string {
	var b strings.Builder
	var walk func(el *etree.Element)
	walk = func(el *etree.Element) {
		fmt.Fprintf(&b, "<%q %q", el.Space, el.Tag)
		for _, a := range el.Attr {
			fmt.Fprintf(&b, " %q %q %q", a.Space, a.Key, a.Value)
		}
		b.WriteString(">")
		for _, c := range el.Child {
			switch c := c.(type) {
			case *etree.Element:
				walk(c)
			case *etree.CharData:
				fmt.Fprintf(&b, "text %q %v;", c.Data, c.IsCData())
			case *etree.Comment:
				fmt.Fprintf(&b, "comment %q;", c.Data)
			default:
				fmt.Fprintf(&b, "%T;", c)
			}
		}
		b.WriteString("</>")
	}
	walk(el)
	return b.String()
}

// TestFastPathSigned checks the verify mode on signedShapes.
func TestFastPathSigned(t *testing.T) {
	for i, want := range []fastSig{
		{count: 1, placed: true},
		{count: 1, placed: true},
		{count: 1, placed: true},
		{count: 1, placed: false},
		{count: 2, placed: false},
		{count: 2, placed: false}, // the root is one
		{count: 1, placed: true},
		{count: 1, placed: true},
	} {
		doc := signedShapes[i]
		got, ok := fastCanonicalizeSigned([]byte(doc))
		if !ok {
			t.Errorf("%q: not handled", doc)
			continue
		}
		if got.sig.count != want.count || got.sig.placed != want.placed {
			t.Errorf("%q: %d Signatures, placed %v; want %d, %v", doc, got.sig.count, got.sig.placed, want.count, want.placed)
		}
		checkSigned(t, doc)
	}
}
