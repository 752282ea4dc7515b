package ecf

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tokensOf returns the tokens of next as strings until it fails, and its
// error.
func tokensOf(next func(*xmlToken) error) ([]string, error) {
	var out []string
	var t xmlToken
	for {
		if err := next(&t); err != nil {
			return out, err
		}
		s := fmt.Sprintf("%d %q %q", t.kind, t.name.Space, t.name.Local)
		for _, a := range t.attrs {
			s += fmt.Sprintf(" %q:%q=%q", a.Name.Space, a.Name.Local, a.Value)
		}
		if t.kind == tokText {
			s += fmt.Sprintf(" %q", t.text)
		}
		out = append(out, s)
	}
}

// assertSameTokens checks that the fast tokenizer gives encoding/xml's
// tokens of doc as far as it goes, and reports whether it went to the end.
func assertSameTokens(t *testing.T, doc []byte) bool {
	t.Helper()
	fast, fastErr := tokensOf(newFastTokens(doc).next)
	slow, slowErr := tokensOf(strictTokens(doc, invalidXML("X")))
	if fastErr != errGiveUp && (fastErr != slowErr || len(fast) != len(slow)) {
		t.Fatalf("%q: fast tokenizer ended with %v after %d tokens, encoding/xml with %v after %d", doc, fastErr, len(fast), slowErr, len(slow))
	}
	if len(fast) > len(slow) || !slices.Equal(fast, slow[:len(fast)]) {
		t.Fatalf("%q: the fast tokenizer gave\n%q\nencoding/xml\n%q", doc, fast, slow)
	}
	return fastErr != errGiveUp
}

// goldenDocs returns the golden documents.
func goldenDocs(tb testing.TB) [][]byte {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.xml"))
	var docs [][]byte
	for _, name := range files {
		docs = append(docs, mustReadFile(tb, name))
	}
	return docs
}

// mustReadFile reads the file name.
func mustReadFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestFastTokens: the fast tokenizer reads what Sello and the senders
// seen in the wild write, and gives up on the rest, which encoding/xml
// reads.
func TestFastTokens(t *testing.T) {
	const sig = `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><Reference URI=""/></SignedInfo><SignatureValue>
  AAAA</SignatureValue></Signature>`
	for name, tc := range map[string]struct {
		doc  string
		fast bool
	}{
		"Signed":       {`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><Version>1.0</Version></Encabezado>` + sig + `</ECF>`, true},
		"Pretty":       {"<?xml version=\"1.0\"?>\n<ARECF xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:noNamespaceSchemaLocation=\"ARECF.xsd\">\n\t<Estado>0</Estado>\n</ARECF>\n", true},
		"References":   {`<a>Ñandú &amp; &lt;Hijos&gt; &#241;&#xF1; "x" 'y' ]]</a>`, true},
		"Comments":     {`<!-- a --><a>x<!-- b -->y</a><!-- c -->`, true},
		"Prefixes":     {`<p:a xmlns:p="urn:p" xmlns="urn:d"><b p:c="1" d="2"/><xml:lang/><p:e xmlns:p="urn:q"/><p:f/><xmlns/></p:a>`, true},
		"Unbound":      {`<p:a q:b="1"/>`, true},
		"TwoRoots":     {`<a/><b/>`, true},
		"Empty":        {``, true},
		"CDATA":        {`<a><![CDATA[x]]></a>`, false},
		"Doctype":      {`<!DOCTYPE a><a/>`, false},
		"PI":           {`<a><?pi x?></a>`, false},
		"Standalone":   {`<?xml version="1.0" standalone="yes"?><a/>`, false},
		"CR":           {"<a>x\r\ny</a>", false},
		"NonASCIIName": {`<año/>`, false},
		"RefInAttr":    {`<a b="&amp;"/>`, false},
		"Unclosed":     {`<a><b></a>`, false},
		"Truncated":    {`<a>x`, false},
		"BadEntity":    {`<a>&x;</a>`, false},
		"CDATAEnd":     {`<a>]]></a>`, false},
		"Latin1":       {"<a>\xf1</a>", false},
		"NoSpace":      {`<a b="1"c="2"/>`, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := assertSameTokens(t, []byte(tc.doc)); got != tc.fast {
				t.Errorf("read to the end: %v, want %v", got, tc.fast)
			}
		})
	}
	for i, doc := range goldenDocs(t) {
		if !assertSameTokens(t, doc) {
			t.Errorf("golden document %d: the fast tokenizer gave up", i)
		}
	}
}

// FuzzTokens checks that the fast tokenizer gives encoding/xml's tokens or
// gives up.
func FuzzTokens(f *testing.F) {
	for _, doc := range goldenDocs(f) {
		f.Add(doc)
		f.Add(bytes.Replace(doc, []byte("<"), []byte("<p:"), 3))
	}
	f.Add([]byte(`<p:a xmlns:p="urn:p" xmlns="urn:d"><b p:c="1" d="2"/><xml:lang/><p:e xmlns:p="urn:q"/><p:f/><xmlns/></p:a>`))
	f.Add([]byte(`<a>Ñandú &amp; &lt;Hijos&gt; &#241;&#xF1; "x" 'y' ]]</a><!-- c -->`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		assertSameTokens(t, doc)
	})
}
