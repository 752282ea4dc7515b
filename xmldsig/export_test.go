package xmldsig

import "crypto/x509"

// Verify's two paths, for tests that check they agree.

// VerifyFast reports whether Verify's fast path accepts signed.
func VerifyFast(signed []byte) bool {
	signed, err := prepare(signed)
	if err != nil {
		return false
	}
	_, ok := verifyFast(signed)
	return ok
}

// VerifySlow is Verify without the fast path.
func VerifySlow(signed []byte) (*x509.Certificate, error) {
	signed, err := prepare(signed)
	if err != nil {
		return nil, err
	}
	return verifySlow(signed)
}

// Sign's canonicalizers without the signature, for the benchmarks.

// CanonicalizeTree parses doc with etree and compacts it, as Sign's etree
// path does, and returns c14n.go's canonicalizer over that tree alone.
func CanonicalizeTree(doc []byte) (canon func() []byte, err error) {
	d, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	root := d.Root()
	compact(root)
	return func() []byte { return canonicalize(root, nil, len(doc)) }, nil
}

// CanonicalizeETree is Sign's etree path without the signature: parse,
// compact, canonicalize (c14n.go).
func CanonicalizeETree(doc []byte) ([]byte, error) {
	res, err := slowCanonicalize(doc, 0)
	return res.canon, err
}

// CanonicalizeOnePass is Sign's one-pass path without the signature
// (fastpath.go); false when doc is outside what it reads.
func CanonicalizeOnePass(doc []byte) ([]byte, bool) {
	res, ok := fastCanonicalize(doc, 0)
	return res.canon, ok
}
