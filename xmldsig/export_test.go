package xmldsig

import "crypto/x509"

// Verify's two paths, for tests that check they agree.

// VerifyFast reports whether Verify's fast path accepts signed.
func VerifyFast(signed []byte) bool {
	_, ok := verifyFast(signed)
	return ok
}

// VerifySlow is Verify without the fast path.
func VerifySlow(signed []byte) (*x509.Certificate, error) { return verifySlow(signed) }
