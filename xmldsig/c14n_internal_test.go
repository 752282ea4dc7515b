package xmldsig

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/beevik/etree"
	"github.com/sello-do/sello/oracle"
)

// c14nDocs exercise the canonicalizer: namespaces (redundant, undeclared
// default, prefixed attributes sorted by namespace URI), xml:*, escaping,
// empty elements, comments, processing instructions, CDATA, line ends.
var c14nDocs = []string{
	`<a></a>`,
	`<a b="1" a="2" xmlns:z="urn:z" xmlns="urn:d" z:c="3" xml:lang="es"><z:b/><c xmlns="urn:d" xmlns:z="urn:z2"><d xmlns=""></d></c></a>`,
	`<a xmlns:b="urn:b" xmlns:a="urn:a" b:x="1" a:y="2" a:x="3"><!-- c --><?pi data?><?pi?>t&amp;&lt;&gt;"'&#13;&#9;&#x10FFFF;</a>`,
	`<root xml:space="preserve" xml:lang="en"><child xml:lang="es" att="&quot;&#9;&#10;&#13;&lt;&amp;>'"><g xmlns="urn:g"><h xmlns="urn:g"/></g></child></root>`,
	`<SemillaModel xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><valor>x</valor><fecha>2026</fecha></SemillaModel>`,
	"<a>\n  <b>   </b>\r\n<![CDATA[<x>&]]>ñ — ü</a>",
}

// TestCanonicalize compares canonicalize with libxml2's (xmllint --c14n,
// which keeps comments: they are removed from its input).
func TestCanonicalize(t *testing.T) {
	bin := oracle.Require(t, "xmllint")
	for _, doc := range c14nDocs {
		d := etree.NewDocument()
		if err := d.ReadFromString(doc); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "doc.xml")
		if err := os.WriteFile(p, []byte(regexp.MustCompile(`<!--.*?-->`).ReplaceAllString(doc, "")), 0o600); err != nil {
			t.Fatal(err)
		}
		want, err := exec.Command(bin, "--c14n", p).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := canonicalize(d.Root(), nil, 0); string(got) != string(want) {
			t.Errorf("%s\n got %s\nwant %s", doc, got, want)
		}
	}
}

// TestCanonicalizeSubtree checks the namespace context of an apex: the
// namespaces in scope and the inherited xml:* attributes are rendered on
// it, its own declarations win, and an undeclared default is not rendered.
func TestCanonicalizeSubtree(t *testing.T) {
	for _, tc := range []struct{ doc, path, want string }{
		{c14nDocs[1], "//c", `<c xmlns="urn:d" xmlns:z="urn:z2" xml:lang="es"><d xmlns=""></d></c>`},
		{c14nDocs[1], "//d", `<d xmlns:z="urn:z2" xml:lang="es"></d>`},
		{c14nDocs[1], "//z:b", `<z:b xmlns="urn:d" xmlns:z="urn:z" xml:lang="es"></z:b>`},
		{c14nDocs[3], "//child", `<child att="&quot;&#x9;&#xA;&#xD;&lt;&amp;>'" xml:lang="es" xml:space="preserve"><g xmlns="urn:g"><h></h></g></child>`},
		{c14nDocs[3], "//h", `<h xmlns="urn:g" xml:lang="es" xml:space="preserve"></h>`},
		{c14nDocs[4] + "", "//valor", `<valor xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">x</valor>`},
		{`<ECF xmlns="urn:e"><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></ECF>`, "//SignedInfo",
			`<SignedInfo xmlns="http://www.w3.org/2000/09/xmldsig#"></SignedInfo>`},
	} {
		d := etree.NewDocument()
		if err := d.ReadFromString(tc.doc); err != nil {
			t.Fatal(err)
		}
		el := d.FindElement(tc.path)
		if got := canonicalizeSubtree(el); string(got) != tc.want {
			t.Errorf("%s in %s\n got %s\nwant %s", tc.path, tc.doc, got, tc.want)
		}
	}
}
