package xmldsig_test

import (
	"crypto/x509"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/xmldsig"
)

// xmlsec1Verify runs xmlsec1 --verify on doc, trusting the certificate of s
// (self-signed, so --trusted-pem rather than --pubkey-cert-pem, which also
// works but prints X509 store errors). It returns xmlsec1's output and
// whether it verified.
func xmlsec1Verify(tb testing.TB, s *xmldsig.Signer, doc []byte) (string, bool) {
	tb.Helper()
	bin := oracle.Require(tb, "xmlsec1")
	_, certPath := MustWritePEM(tb, s)
	out, err := exec.Command(bin, "--verify", "--trusted-pem", certPath, MustWriteFile(tb, "signed.xml", doc)).CombinedOutput()
	return string(out), err == nil
}

func TestXmlsec1VerifiesSello(t *testing.T) {
	s := MustSigner(t)
	docs := map[string]string{"Items1000": ecfWithItems(1000)}
	for k, v := range roundTripDocs {
		docs[k] = v
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			signed := MustSign(t, s, doc)
			if out, ok := xmlsec1Verify(t, s, signed); !ok {
				t.Fatalf("xmlsec1 rejects Sello's signature:\n%s\n%s", out, signed)
			}
		})
	}
	t.Run("TamperedRejected", func(t *testing.T) {
		signed := replaceOnce(t, MustSign(t, s, smallECF), "1180.00", "1180.01")
		if out, ok := xmlsec1Verify(t, s, signed); ok {
			t.Fatalf("xmlsec1 accepts a tampered document:\n%s", out)
		}
	})
	t.Run("OtherCertificateRejected", func(t *testing.T) {
		signed := MustSign(t, MustOtherSigner(t), smallECF)
		if out, ok := xmlsec1Verify(t, s, signed); ok {
			t.Fatalf("xmlsec1 accepts an untrusted certificate:\n%s", out)
		}
	})
}

// template is an xmlsec1 signature template in DGII's shape; xmlsec1 fills
// DigestValue, SignatureValue and X509Data.
const template = `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>` +
	`<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>` +
	`<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
	`<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/></Transforms>` +
	`<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue/></Reference></SignedInfo>` +
	`<SignatureValue/><KeyInfo><X509Data/></KeyInfo></Signature>`

// xmlsec1Sign inserts tmpl before doc's last end tag and signs it with
// xmlsec1 --sign --privkey-pem key.pem,cert.pem.
func xmlsec1Sign(tb testing.TB, s *xmldsig.Signer, doc, tmpl string) []byte {
	tb.Helper()
	bin := oracle.Require(tb, "xmlsec1")
	keyPath, certPath := MustWritePEM(tb, s)
	i := strings.LastIndex(doc, "</")
	in := MustWriteFile(tb, "template.xml", []byte(doc[:i]+tmpl+doc[i:]))
	outPath := in + ".signed"
	if out, err := exec.Command(bin, "--sign", "--privkey-pem", keyPath+","+certPath, "--output", outPath, in).CombinedOutput(); err != nil {
		tb.Fatalf("xmlsec1 --sign: %v\n%s", err, out)
	}
	b, err := os.ReadFile(outPath)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestSelloVerifiesXmlsec1(t *testing.T) {
	s := MustSigner(t)
	for name, tc := range map[string]struct{ doc, tmpl string }{
		// xmlsec1 keeps the whitespace: Verify canonicalizes what it is given.
		"PrettySeed": {prettySeed, template},
		"ECF":        {smallECF, template},
		"Namespaces": {roundTripDocs["Namespaces"], template},
		"Items1000":  {ecfWithItems(1000), template},
		"Prefixed": {smallECF, `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">` +
			strings.NewReplacer(`</`, `</ds:`, `<`, `<ds:`).Replace(strings.TrimPrefix(template, `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">`))},
		"TwoTransforms": {smallECF, strings.Replace(template, `</Transforms>`, `<Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/></Transforms>`, 1)},
	} {
		t.Run(name, func(t *testing.T) {
			signed := xmlsec1Sign(t, s, tc.doc, tc.tmpl)
			cert, err := xmldsig.Verify(signed)
			if err != nil {
				t.Fatalf("Verify: %v\n%s", err, signed)
			}
			if !xmldsig.VerifyFast(signed) {
				t.Errorf("the fast path does not handle xmlsec1's output (whitespace kept):\n%s", signed)
			}
			if !cert.Equal(s.Cert) {
				t.Errorf("Verify returned %v, want the signer's certificate", cert.Subject)
			}
			code, err := xmldsig.SecurityCode(signed)
			if err != nil || len(code) != 6 {
				t.Errorf("SecurityCode: %q, %v", code, err)
			}
			old, new := "<Version>1.0", "<Version>1.1"
			if name == "PrettySeed" {
				old, new = "<fecha>2026", "<fecha>2027"
			}
			tampered := replaceOnce(t, signed, old, new)
			if _, err := xmldsig.Verify(tampered); !errorsIs(err, xmldsig.ErrDigestMismatch) {
				t.Errorf("tampered: got %v, want %v", err, xmldsig.ErrDigestMismatch)
			}
		})
	}

	t.Run("ErrAlgorithmSHA1", func(t *testing.T) {
		// A genuine RSA-SHA1/SHA-1 signature, valid for xmlsec1, is refused.
		tmpl := strings.NewReplacer(
			"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256", "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
			"http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2000/09/xmldsig#sha1").Replace(template)
		signed := xmlsec1Sign(t, s, smallECF, tmpl)
		if out, ok := xmlsec1Verify(t, s, signed); !ok {
			t.Fatalf("xmlsec1 rejects its own SHA-1 signature:\n%s", out)
		}
		_, err := xmldsig.Verify(signed)
		if !errorsIs(err, xmldsig.ErrAlgorithm) || !strings.Contains(err.Error(), "rsa-sha1") {
			t.Errorf("got %v, want %v for rsa-sha1", err, xmldsig.ErrAlgorithm)
		}
	})
}

// TestSeedSchema validates the signed seed against DGII's Semilla.xsd.
func TestSeedSchema(t *testing.T) {
	bin := oracle.Require(t, "xmllint")
	xsd := oracle.XSD(t, "Semilla.xsd")
	signed := MustSign(t, MustSigner(t), prettySeed)
	if out, err := exec.Command(bin, "--noout", "--schema", xsd, MustWriteFile(t, "seed.xml", signed)).CombinedOutput(); err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
}

// TestGoxmldsigVerifiesSello is a third opinion: goxmldsig's validator
// accepts Sello's signatures (on documents under its 1,000-element
// traversal limit).
//
// Not with xml:* attributes on the root: C14N 1.0 renders them on
// SignedInfo (xmlsec1 does, and verifies "Namespaces"), goxmldsig's
// validator does not. DGII's documents have none.
func TestGoxmldsigVerifiesSello(t *testing.T) {
	s := MustSigner(t)
	docs := map[string]string{"NamespacesNoXMLLang": strings.Replace(roundTripDocs["Namespaces"], ` xml:lang="es"`, "", 1)}
	for name, doc := range roundTripDocs {
		if name != "Namespaces" {
			docs[name] = doc
		}
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			d := etree.NewDocument()
			if err := d.ReadFromBytes(MustSign(t, s, doc)); err != nil {
				t.Fatal(err)
			}
			ctx := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: []*x509.Certificate{s.Cert}})
			if _, err := ctx.Validate(d.Root()); err != nil {
				t.Errorf("goxmldsig: %v", err)
			}
		})
	}
}
