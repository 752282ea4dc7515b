package xmldsig

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/beevik/etree"
	"github.com/sello-do/sello/internal/xmlchar"
)

// minRSABits is the smallest RSA key Verify accepts.
const minRSABits = 2048

// Verify checks the enveloped signature of signed, made in DGII's profile by
// Sello, DGII, .NET's SignedXml or xmlsec1, and returns the certificate
// whose key made it. It does not check the certificate's validity period,
// chain or holder: that is the caller's decision.
//
// To resist signature wrapping Verify requires exactly one Signature, the
// last element child of the root; exactly one Reference, with URI="" (the
// whole document); the enveloped-signature transform, optionally followed
// by inclusive C14N 1.0 and nothing else; RSA-SHA256 and SHA-256. The
// digest is computed over signed itself, so every byte of signed except the
// Signature element, comments and the XML declaration is covered. A UTF-8
// byte order mark before the document is skipped. Before anything else,
// an element with more than xmlchar.MaxAttrs attributes or a document with
// more than xmlchar.MaxNamespaces namespace declarations is refused
// (ErrLimit), at a cost linear in its size. DOCTYPEs are refused. Errors
// wrap ErrLimit, ErrDoctype, ErrMalformed, ErrNoSignature,
// ErrMultipleSignatures, ErrSignaturePlacement, ErrStructure, ErrReference,
// ErrTransform, ErrAlgorithm, ErrCertificate, ErrDigestMismatch or
// ErrSignatureInvalid.
func Verify(signed []byte) (*x509.Certificate, error) {
	cert, err := verify(signed)
	if err != nil {
		return nil, fmt.Errorf("verify xml signature: %w", err)
	}
	return cert, nil
}

// signature is a parsed Signature element.
type signature struct {
	signedInfo  *etree.Element
	digestValue []byte
	value       []byte
	certs       []*x509.Certificate
}

// verify tries the fast path and, when it does not succeed, verifies
// again with the etree path, whose result, error included, is the one
// returned: the fast path only ever accepts what the etree path accepts
// (FuzzVerify checks that both give the same answers).
func verify(signed []byte) (*x509.Certificate, error) {
	signed = xmlchar.TrimBOM(signed)
	if cert, ok := verifyFast(signed); ok { // within the limits, which it checks as it reads
		return cert, nil
	}
	if err := checkLimits(signed); err != nil {
		return nil, err
	}
	return verifySlow(signed)
}

// verifySlow is verify over an etree of the whole document.
func verifySlow(signed []byte) (*x509.Certificate, error) {
	d, err := parseDocument(signed)
	if err != nil {
		return nil, err
	}
	root := d.Root()
	sig, sigEl, err := signatureOf(root)
	if err != nil {
		return nil, err
	}
	return sig.check(sha256.Sum256(canonicalize(root, sigEl, len(signed))))
}

// signatureOf finds root's Signature and reads it.
func signatureOf(root *etree.Element) (*signature, *etree.Element, error) {
	sigEl, err := findSignature(root)
	if err != nil {
		return nil, nil, err
	}
	sig, err := parseSignature(sigEl)
	return sig, sigEl, err
}

// verifyFast is verify for the documents the fast path reads (the compact
// XML Sign writes, and more), without a tree of the whole document: the
// scanner gives the canonical document, where its one Signature is and the
// root's start tag, from which only the root and the Signature are built
// as etree would read them, to be checked by the etree path's own code.
// It reports false when the document is outside the fast path or anything
// fails, errors included.
func verifyFast(signed []byte) (*x509.Certificate, bool) {
	res, ok := fastCanonicalizeSigned(signed)
	if !ok || res.sig.count != 1 || !res.sig.placed {
		return nil, false
	}
	root, ok := fastSignatureTree(signed, &res)
	if !ok {
		return nil, false
	}
	sig, _, err := signatureOf(root)
	if err != nil {
		return nil, false
	}
	h := sha256.New()
	h.Write(res.canon[:res.sig.out[0]])
	h.Write(res.canon[res.sig.out[1]:])
	var digest [sha256.Size]byte
	h.Sum(digest[:0])
	cert, err := sig.check(digest)
	return cert, err == nil
}

// check compares digest, the document's, with the signed one and returns
// the certificate whose key signed SignedInfo.
func (sig *signature) check(digest [sha256.Size]byte) (*x509.Certificate, error) {
	if subtle.ConstantTimeCompare(digest[:], sig.digestValue) != 1 {
		return nil, ErrDigestMismatch
	}
	h := sha256.Sum256(canonicalizeSubtree(sig.signedInfo))
	for _, c := range sig.certs {
		if rsa.VerifyPKCS1v15(c.PublicKey.(*rsa.PublicKey), crypto.SHA256, h[:], sig.value) == nil {
			return c, nil
		}
	}
	return nil, ErrSignatureInvalid
}

// findSignature returns root's one XMLDSig Signature element, which must be
// root's last element child.
func findSignature(root *etree.Element) (*etree.Element, error) {
	var found []*etree.Element
	var walk func(el *etree.Element)
	walk = func(el *etree.Element) {
		if el.Tag == "Signature" && el.NamespaceURI() == nsDSig {
			found = append(found, el)
		}
		for _, t := range el.Child {
			if c, ok := t.(*etree.Element); ok {
				walk(c)
			}
		}
	}
	walk(root)
	switch {
	case len(found) == 0:
		return nil, ErrNoSignature
	case len(found) > 1:
		return nil, fmt.Errorf("%w: found %d", ErrMultipleSignatures, len(found))
	}
	sig := found[0]
	if sig == root || sig.Parent() != root {
		return nil, fmt.Errorf("%w: it is not a direct child of the root", ErrSignaturePlacement)
	}
	for _, t := range root.Child[sig.Index()+1:] {
		if _, ok := t.(*etree.Element); ok {
			return nil, ErrSignaturePlacement
		}
	}
	return sig, nil
}

// dsigChildren returns el's child elements, requiring them to be in the
// XMLDSig namespace and el to have no text other than whitespace.
func dsigChildren(el *etree.Element) ([]*etree.Element, error) {
	var out []*etree.Element
	for _, t := range el.Child {
		switch t := t.(type) {
		case *etree.Element:
			if t.NamespaceURI() != nsDSig {
				return nil, fmt.Errorf("%w: %s in %s", ErrStructure, t.FullTag(), el.Tag)
			}
			out = append(out, t)
		case *etree.CharData:
			if !isWhitespace(t.Data) {
				return nil, fmt.Errorf("%w: text in %s", ErrStructure, el.Tag)
			}
		}
	}
	return out, nil
}

// expect checks that els are exactly the elements named in tags, in order;
// a tag ending in "?" is optional.
func expect(parent string, els []*etree.Element, tags ...string) error {
	i := 0
	for _, tag := range tags {
		optional := strings.HasSuffix(tag, "?")
		tag = strings.TrimSuffix(tag, "?")
		if i < len(els) && els[i].Tag == tag {
			i++
			continue
		}
		if !optional {
			return fmt.Errorf("%w: %s has no %s", ErrStructure, parent, tag)
		}
	}
	if i < len(els) {
		return fmt.Errorf("%w: unexpected %s in %s", ErrStructure, els[i].Tag, parent)
	}
	return nil
}

// algorithm checks that el's Algorithm attribute is want and el has no
// content.
func algorithm(el *etree.Element, want string, errKind error) error {
	got := el.SelectAttrValue("Algorithm", "")
	if got != want {
		return fmt.Errorf("%w: %s %q", errKind, el.Tag, got)
	}
	if len(el.ChildElements()) > 0 || strings.Trim(el.Text(), xmlWhitespaceSet) != "" {
		return fmt.Errorf("%w: %s has content", errKind, el.Tag)
	}
	return nil
}

func parseSignature(sigEl *etree.Element) (*signature, error) {
	sig := &signature{}
	kids, err := dsigChildren(sigEl)
	if err != nil {
		return nil, err
	}
	if err := expect("Signature", kids, "SignedInfo", "SignatureValue", "KeyInfo"); err != nil {
		return nil, err
	}
	sig.signedInfo = kids[0]
	if sig.value, err = base64Text(kids[1]); err != nil {
		return nil, err
	}
	if sig.certs, err = parseKeyInfo(kids[2]); err != nil {
		return nil, err
	}

	si, err := dsigChildren(sig.signedInfo)
	if err != nil {
		return nil, err
	}
	refs := 0
	for _, e := range si {
		if e.Tag == "Reference" {
			refs++
		}
	}
	if refs != 1 {
		return nil, fmt.Errorf("%w: found %d references", ErrReference, refs)
	}
	if err := expect("SignedInfo", si, "CanonicalizationMethod", "SignatureMethod", "Reference"); err != nil {
		return nil, err
	}
	if err := algorithm(si[0], algC14N10, ErrAlgorithm); err != nil {
		return nil, err
	}
	if err := algorithm(si[1], algRSASHA256, ErrAlgorithm); err != nil {
		return nil, err
	}

	ref := si[2]
	uri := ref.SelectAttr("URI")
	if uri == nil || uri.Value != "" {
		return nil, fmt.Errorf("%w: URI %q", ErrReference, ref.SelectAttrValue("URI", "(absent)"))
	}
	rk, err := dsigChildren(ref)
	if err != nil {
		return nil, err
	}
	if err := expect("Reference", rk, "Transforms", "DigestMethod", "DigestValue"); err != nil {
		return nil, err
	}
	transforms, err := dsigChildren(rk[0])
	if err != nil {
		return nil, err
	}
	if len(transforms) == 0 || len(transforms) > 2 {
		return nil, fmt.Errorf("%w: %d transforms", ErrTransform, len(transforms))
	}
	for i, t := range transforms {
		if t.Tag != "Transform" {
			return nil, fmt.Errorf("%w: unexpected %s in Transforms", ErrStructure, t.Tag)
		}
		want := algEnveloped
		if i == 1 {
			want = algC14N10
		}
		if err := algorithm(t, want, ErrTransform); err != nil {
			return nil, err
		}
	}
	if err := algorithm(rk[1], algSHA256, ErrAlgorithm); err != nil {
		return nil, err
	}
	if sig.digestValue, err = base64Text(rk[2]); err != nil {
		return nil, err
	}
	if len(sig.digestValue) != sha256.Size {
		return nil, fmt.Errorf("%w: DigestValue is %d bytes", ErrStructure, len(sig.digestValue))
	}
	return sig, nil
}

// base64Text decodes el's text, ignoring whitespace.
func base64Text(el *etree.Element) ([]byte, error) {
	if len(el.ChildElements()) > 0 {
		return nil, fmt.Errorf("%w: %s has child elements", ErrStructure, el.Tag)
	}
	text := el.Text()
	if strings.ContainsAny(text, xmlWhitespaceSet) { // rarely: Sign writes none
		text = strings.Map(dropSpace, text)
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("%w: %s is not base64", ErrStructure, el.Tag)
	}
	return b, nil
}

// parseKeyInfo returns the RSA certificates in KeyInfo's X509Data elements.
func parseKeyInfo(ki *etree.Element) ([]*x509.Certificate, error) {
	kids, err := dsigChildren(ki)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for _, k := range kids {
		if k.Tag != "X509Data" {
			continue // KeyValue, KeyName...: only the certificate is used
		}
		xd, err := dsigChildren(k)
		if err != nil {
			return nil, err
		}
		for _, x := range xd {
			if x.Tag != "X509Certificate" {
				continue
			}
			der, err := base64Text(x)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrCertificate, err)
			}
			c, err := x509.ParseCertificate(der)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrCertificate, err)
			}
			pub, ok := c.PublicKey.(*rsa.PublicKey)
			if !ok {
				return nil, fmt.Errorf("%w: %T key, want RSA", ErrCertificate, c.PublicKey)
			}
			if pub.N.BitLen() < minRSABits {
				return nil, fmt.Errorf("%w: %d-bit RSA key, want at least %d", ErrCertificate, pub.N.BitLen(), minRSABits)
			}
			certs = append(certs, c)
		}
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%w: no X509Certificate in KeyInfo", ErrCertificate)
	}
	return certs, nil
}
