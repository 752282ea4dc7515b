package xmldsig

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"
)

// Signer signs XML documents in DGII's profile with Key; Cert is the
// certificate of Key embedded in KeyInfo.
type Signer struct {
	Key  *rsa.PrivateKey
	Cert *x509.Certificate
}

// Sign returns doc with an enveloped XMLDSig Signature appended as the last
// child of the root element: one Reference URI="" with the single
// enveloped-signature transform, inclusive C14N 1.0, RSA-SHA256, SHA-256,
// an unprefixed <Signature xmlns="http://www.w3.org/2000/09/xmldsig#"> and
// KeyInfo/X509Data/X509Certificate (base64 DER of Cert).
//
// doc is UTF-8 XML without a BOM or DOCTYPE. Whitespace-only text nodes and
// comments are removed before signing (DGII signs without preserving
// whitespace); the output is compact, with empty elements written as
// <a></a>, and keeps doc's XML declaration if it has one.
func (s *Signer) Sign(doc []byte) ([]byte, error) {
	if s.Key == nil || s.Cert == nil {
		return nil, errors.New("sign xml: signer needs a key and a certificate")
	}
	d, err := parseDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("sign xml: %w", err)
	}
	root := d.Root()
	compact(root)
	n := 0
	for _, t := range d.Child {
		if c, ok := t.(*etree.CharData); ok && isWhitespace(c.Data) {
			continue
		}
		if _, ok := t.(*etree.Comment); ok {
			continue
		}
		d.Child[n] = t
		n++
	}
	d.Child = d.Child[:n]
	d.ReindexChildren()

	c14n := dsig.MakeC14N10RecCanonicalizer()
	canon, err := c14n.Canonicalize(root)
	if err != nil {
		return nil, fmt.Errorf("sign xml: canonicalize: %w", err)
	}
	digest := sha256.Sum256(canon)

	sig := root.CreateElement("Signature")
	sig.CreateAttr("xmlns", nsDSig)
	si := sig.CreateElement("SignedInfo")
	si.CreateElement("CanonicalizationMethod").CreateAttr("Algorithm", algC14N10)
	si.CreateElement("SignatureMethod").CreateAttr("Algorithm", algRSASHA256)
	ref := si.CreateElement("Reference")
	ref.CreateAttr("URI", "")
	ref.CreateElement("Transforms").CreateElement("Transform").CreateAttr("Algorithm", algEnveloped)
	ref.CreateElement("DigestMethod").CreateAttr("Algorithm", algSHA256)
	ref.CreateElement("DigestValue").SetText(base64.StdEncoding.EncodeToString(digest[:]))

	// SignedInfo is canonicalized in place: the canonicalizer renders the
	// namespaces in scope from Signature and the root on it.
	canonSI, err := c14n.Canonicalize(si)
	if err != nil {
		return nil, fmt.Errorf("sign xml: canonicalize signed info: %w", err)
	}
	h := sha256.Sum256(canonSI)
	value, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:])
	if err != nil {
		return nil, fmt.Errorf("sign xml: %w", err)
	}
	sig.CreateElement("SignatureValue").SetText(base64.StdEncoding.EncodeToString(value))
	sig.CreateElement("KeyInfo").CreateElement("X509Data").CreateElement("X509Certificate").
		SetText(base64.StdEncoding.EncodeToString(s.Cert.Raw))

	d.WriteSettings = etree.WriteSettings{CanonicalEndTags: true, CanonicalText: true, CanonicalAttrVal: true}
	out, err := d.WriteToBytes()
	if err != nil {
		return nil, fmt.Errorf("sign xml: %w", err)
	}
	return out, nil
}

// SecurityCode returns DGII's código de seguridad of a signed document: the
// first 6 characters of its SignatureValue, whitespace trimmed and "+", "/"
// and "=" kept (URL-encode it in the QR). It does not verify the signature.
func SecurityCode(signed []byte) (string, error) {
	d, err := parseDocument(signed)
	if err != nil {
		return "", fmt.Errorf("security code: %w", err)
	}
	sig, err := findSignature(d.Root())
	if err != nil {
		return "", fmt.Errorf("security code: %w", err)
	}
	var value string
	for _, c := range sig.ChildElements() {
		if c.Tag == "SignatureValue" && c.NamespaceURI() == nsDSig {
			value = strings.Map(dropSpace, c.Text())
			break
		}
	}
	if len(value) < 6 {
		return "", fmt.Errorf("security code: %w: SignatureValue is missing or shorter than 6 characters", ErrStructure)
	}
	return value[:6], nil
}

// dropSpace is a strings.Map function removing XML whitespace.
func dropSpace(r rune) rune {
	if strings.ContainsRune(xmlWhitespaceSet, r) {
		return -1
	}
	return r
}
