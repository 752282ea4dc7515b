package dgiisim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
)

// The fake signature: an unprefixed XMLDSig-looking Signature element,
// inserted before the root's end tag, whose SignatureValue is the base64
// SHA-256 of the document without it. It proves nothing; it only lets tests
// tell a "signed" document from an altered or unsigned one.
const (
	fakeSigStart = `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignatureValue>`
	fakeSigEnd   = `</SignatureValue><KeyInfo>FAKE</KeyInfo></Signature>`
)

// FakeSign "signs" an XML document for tests, with the shape of a
// dgii.Signer. Verify it with FakeVerify. Production wires the real
// xmldsig signer and verifier instead.
func FakeSign(_ context.Context, doc []byte) ([]byte, error) {
	i := bytes.LastIndex(doc, []byte("</"))
	if i < 0 {
		return nil, errors.New("fake sign: no end tag")
	}
	sum := sha256.Sum256(doc)
	out := make([]byte, 0, len(doc)+200)
	out = append(out, doc[:i]...)
	out = append(out, fakeSigStart...)
	out = append(out, base64.StdEncoding.EncodeToString(sum[:])...)
	out = append(out, fakeSigEnd...)
	out = append(out, doc[i:]...)
	return out, nil
}

// FakeVerify checks a FakeSign signature, with the shape of
// Config.Verify. It returns a placeholder certificate.
func FakeVerify(signed []byte) (*x509.Certificate, error) {
	i := bytes.Index(signed, []byte(fakeSigStart))
	if i < 0 {
		return nil, errors.New("no signature")
	}
	rest := signed[i+len(fakeSigStart):]
	j := bytes.Index(rest, []byte(fakeSigEnd))
	if j < 0 {
		return nil, errors.New("malformed signature")
	}
	orig := make([]byte, 0, len(signed))
	orig = append(orig, signed[:i]...)
	orig = append(orig, rest[j+len(fakeSigEnd):]...)
	sum := sha256.Sum256(orig)
	if string(rest[:j]) != base64.StdEncoding.EncodeToString(sum[:]) {
		return nil, errors.New("signature does not match the document")
	}
	return &x509.Certificate{Subject: pkix.Name{CommonName: "FAKE SIGNER"}}, nil
}
