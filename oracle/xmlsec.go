package oracle

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// dgiiTemplate is an xmlsec1 signature template in DGII's profile;
// xmlsec1 fills DigestValue, SignatureValue and X509Data.
const dgiiTemplate = `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo>` +
	`<CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>` +
	`<SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>` +
	`<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/></Transforms>` +
	`<DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><DigestValue/></Reference></SignedInfo>` +
	`<SignatureValue/><KeyInfo><X509Data/></KeyInfo></Signature>`

// writePEM writes cert (and key, when not nil) as PEM files in a temporary
// directory and returns their paths.
func writePEM(tb testing.TB, key *rsa.PrivateKey, cert *x509.Certificate) (keyPath, certPath string) {
	tb.Helper()
	dir := tb.TempDir()
	keyPath, certPath = filepath.Join(dir, "key.pem"), filepath.Join(dir, "cert.pem")
	if key != nil {
		mustWrite(tb, keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	}
	mustWrite(tb, certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))
	return keyPath, certPath
}

func mustWrite(tb testing.TB, path string, b []byte) {
	tb.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// Xmlsec1Sign signs doc with xmlsec1 in DGII's profile (enveloped, the
// Signature last in the root), with key and its certificate.
func Xmlsec1Sign(tb testing.TB, key *rsa.PrivateKey, cert *x509.Certificate, doc []byte) []byte {
	tb.Helper()
	bin := Require(tb, "xmlsec1")
	keyPath, certPath := writePEM(tb, key, cert)
	i := strings.LastIndex(string(doc), "</")
	in := filepath.Join(tb.TempDir(), "template.xml")
	mustWrite(tb, in, []byte(string(doc[:i])+dgiiTemplate+string(doc[i:])))
	out := in + ".signed"
	if b, err := exec.Command(bin, "--sign", "--privkey-pem", keyPath+","+certPath, "--output", out, in).CombinedOutput(); err != nil {
		tb.Fatalf("xmlsec1 --sign: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Xmlsec1Verify runs xmlsec1 --verify on doc trusting cert (self-signed)
// and returns its output and whether it verified.
func Xmlsec1Verify(tb testing.TB, cert *x509.Certificate, doc []byte) (string, bool) {
	tb.Helper()
	bin := Require(tb, "xmlsec1")
	_, certPath := writePEM(tb, nil, cert)
	in := filepath.Join(tb.TempDir(), "signed.xml")
	mustWrite(tb, in, doc)
	out, err := exec.Command(bin, "--verify", "--trusted-pem", certPath, in).CombinedOutput()
	return string(out), err == nil
}

// Xmllint validates doc against DGII's schema xsd (e.g. "ARECF.xsd") and
// returns xmllint's output and whether it is valid.
func Xmllint(tb testing.TB, xsd string, doc []byte) (string, bool) {
	tb.Helper()
	bin := Require(tb, "xmllint")
	in := filepath.Join(tb.TempDir(), "doc.xml")
	mustWrite(tb, in, doc)
	out, err := exec.Command(bin, "--noout", "--schema", XSD(tb, xsd), in).CombinedOutput()
	return string(out), err == nil
}
