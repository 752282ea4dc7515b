package xmldsig

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sello-do/sello/internal/xmlchar"
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
// doc is UTF-8 XML without a DOCTYPE; a byte order mark is skipped.
// Whitespace-only text nodes and comments are removed before signing (DGII
// signs without preserving whitespace). The output is doc's XML declaration, if any, followed by the
// canonical form of the signed document (compact, attributes and namespace
// declarations sorted, empty elements as <a></a>) with the Signature in
// it: the bytes written are the bytes digested. Errors (malformed XML, a
// DOCTYPE, a signer without key) are wrapped with "sign xml: ".
func (s *Signer) Sign(doc []byte) ([]byte, error) {
	signed, _, err := s.SignCode(doc)
	return signed, err
}

// SignCode is Sign that also returns the document's security code, the
// first six characters of its SignatureValue (see SecurityCode), without
// reading the signed document again.
func (s *Signer) SignCode(doc []byte) (signed []byte, securityCode string, err error) {
	if s.Key == nil || s.Cert == nil {
		return nil, "", errors.New("sign xml: signer needs a key and a certificate")
	}
	doc = xmlchar.TrimBOM(doc)
	// The Signature adds about 1.4 KB plus the certificate.
	extra := 1500 + base64.StdEncoding.EncodedLen(len(s.Cert.Raw))
	res, ok := fastCanonicalize(doc, extra)
	if !ok {
		if err := checkLimits(doc); err != nil {
			return nil, "", fmt.Errorf("sign xml: %w", err)
		}
		var err error
		if res, err = slowCanonicalize(doc, extra); err != nil {
			return nil, "", fmt.Errorf("sign xml: %w", err)
		}
	}
	return s.sign(res, extra)
}

// slowCanonicalize is fastCanonicalize for any XML etree reads.
func slowCanonicalize(doc []byte, extra int) (fastResult, error) {
	d, err := parseDocument(doc)
	if err != nil {
		return fastResult{}, err
	}
	var res fastResult
	if bytes.HasPrefix(doc, []byte("<?xml")) {
		res.decl = doc[:bytes.Index(doc, []byte("?>"))+2]
	}
	root := d.Root()
	compact(root)
	res.canon = canonicalize(root, nil, len(doc)+extra)
	for _, a := range root.Attr {
		switch {
		case a.Space == "xmlns" && a.Key != "xml":
			res.rootNS = append(res.rootNS, nsBinding{a.Key, a.Value})
		case a.Space == "xml":
			res.rootXML = append(res.rootXML, canonAttr{uri: nsXML, key: a.Key, name: a.FullKey(), value: a.Value})
		}
	}
	return res, nil
}

// Fixed parts of the Signature Sign writes.
const (
	signedInfoHead = `<CanonicalizationMethod Algorithm="` + algC14N10 + `"></CanonicalizationMethod>` +
		`<SignatureMethod Algorithm="` + algRSASHA256 + `"></SignatureMethod>` +
		`<Reference URI=""><Transforms><Transform Algorithm="` + algEnveloped + `"></Transform></Transforms>` +
		`<DigestMethod Algorithm="` + algSHA256 + `"></DigestMethod><DigestValue>`
	signedInfoTail = `</DigestValue></Reference></SignedInfo>`
)

// sign appends the Signature of the canonical document res to its root.
// The output is res's XML declaration and canonical root with the
// Signature before the root's end tag: the document digested is the
// document written; and the security code.
func (s *Signer) sign(res fastResult, extra int) ([]byte, string, error) {
	digest := sha256.Sum256(res.canon)
	var digestB64 [44]byte
	base64.StdEncoding.Encode(digestB64[:], digest[:])

	// SignedInfo in canonical form: as the apex of a document subset it
	// carries the namespaces in scope (Signature's default and the root's
	// prefixes) and the root's xml:* attributes (C14N 1.0 §2.4).
	si := make([]byte, 0, 1024)
	si = append(si, `<SignedInfo xmlns="`+nsDSig+`"`...)
	ns := slices.SortedFunc(slices.Values(res.rootNS), func(a, b nsBinding) int { return strings.Compare(a.prefix, b.prefix) })
	for _, b := range ns {
		si = append(si, " xmlns:"...)
		si = append(si, b.prefix...)
		si = append(si, '=', '"')
		si = appendEscapedAttr(si, b.uri)
		si = append(si, '"')
	}
	for _, a := range slices.SortedFunc(slices.Values(res.rootXML), compareAttr) {
		si = append(si, ' ')
		si = append(si, a.name...)
		si = append(si, '=', '"')
		si = appendEscapedAttr(si, a.value)
		si = append(si, '"')
	}
	si = append(si, '>')
	body := len(si)
	si = append(si, signedInfoHead...)
	si = append(si, digestB64[:]...)
	si = append(si, signedInfoTail...)

	h := sha256.Sum256(si)
	value, err := rsa.SignPKCS1v15(rand.Reader, s.Key, crypto.SHA256, h[:])
	if err != nil {
		return nil, "", fmt.Errorf("sign xml: %w", err)
	}

	end := bytes.LastIndex(res.canon, []byte("</"))
	out := make([]byte, 0, len(res.decl)+len(res.canon)+extra)
	out = append(out, res.decl...)
	out = append(out, res.canon[:end]...)
	out = append(out, `<Signature xmlns="`+nsDSig+`"><SignedInfo>`...)
	out = append(out, si[body:]...)
	out = append(out, "<SignatureValue>"...)
	codeAt := len(out)
	out = base64.StdEncoding.AppendEncode(out, value)
	code := string(out[codeAt : codeAt+6]) // 256 bytes encode to 344 characters
	out = append(out, "</SignatureValue><KeyInfo><X509Data><X509Certificate>"...)
	out = base64.StdEncoding.AppendEncode(out, s.Cert.Raw)
	out = append(out, "</X509Certificate></X509Data></KeyInfo></Signature>"...)
	out = append(out, res.canon[end:]...)
	return out, code, nil
}

// SecurityCode returns DGII's código de seguridad of a signed document: the
// first 6 characters of its SignatureValue, whitespace trimmed and "+", "/"
// and "=" kept (URL-encode it in the QR). It does not verify the signature.
func SecurityCode(signed []byte) (string, error) {
	signed, err := prepare(signed)
	if err != nil {
		return "", fmt.Errorf("security code: %w", err)
	}
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
