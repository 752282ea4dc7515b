package xmldsig_test

import (
	"bytes"
	"testing"

	"github.com/sello-do/sello/xmldsig"
)

// FuzzVerify checks that Verify never panics on arbitrary input and gives
// what its etree path alone gives (its fast path accepts nothing the etree
// path refuses). It is seeded with signed documents and wrapping-style
// mutations of them.
func FuzzVerify(f *testing.F) {
	s := MustSigner(f)
	for _, doc := range []string{smallECF1KB, prettySeed, roundTripDocs["Namespaces"], ecfWithItems(3)} {
		signed := MustSign(f, s, doc)
		f.Add(signed)
		f.Add(bytes.Replace(signed, []byte("<Signature"), []byte("\n <Signature"), 1)) // whitespace is signed
		i := bytes.Index(signed, []byte("<Signature"))
		j := bytes.Index(signed, []byte("</Signature>")) + len("</Signature>")
		sig := signed[i:j]
		f.Add(signed[:len(signed)/2])
		f.Add(bytes.Replace(signed, sig, append(bytes.Clone(sig), sig...), 1))
		f.Add(bytes.Replace(signed, []byte(`URI=""`), []byte(`URI="#x"`), 1))
		f.Add(bytes.Replace(signed, []byte("</Transforms>"), []byte(`<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></Transforms>`), 1))
		f.Add(append([]byte(`<!DOCTYPE a [<!ENTITY e "x">]>`), signed...))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		cert, err := xmldsig.Verify(doc)
		if err == nil && cert == nil {
			t.Fatal("no error and no certificate")
		}
		slow, slowErr := xmldsig.VerifySlow(doc)
		if (err == nil) != (slowErr == nil) || err == nil && !cert.Equal(slow) ||
			err != nil && err.Error() != "verify xml signature: "+slowErr.Error() {
			t.Fatalf("%q: Verify: %v, %v; etree path: %v, %v", doc, cert, err, slow, slowErr)
		}
		_, _ = xmldsig.SecurityCode(doc)
	})
}

// FuzzSign checks that Sign never panics and that whatever it signs
// verifies.
func FuzzSign(f *testing.F) {
	s := MustSigner(f)
	for _, doc := range []string{smallECF1KB, prettySeed, roundTripDocs["Namespaces"], roundTripDocs["Pretty"], `<a><![CDATA[x]]><?pi?></a>`} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		signed, err := s.Sign(doc)
		if err != nil {
			return
		}
		if _, err := xmldsig.Verify(signed); err != nil {
			t.Fatalf("Sign(%q) = %q does not verify: %v", doc, signed, err)
		}
	})
}
