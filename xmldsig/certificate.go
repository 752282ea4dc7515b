package xmldsig

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// ErrWrongPassword is returned by ParsePKCS12 when the password does not
// open the file.
var ErrWrongPassword = errors.New("wrong pkcs12 password")

// ParsePKCS12 reads a DER .p12/.pfx file encrypted with modern (PBES2,
// AES) or legacy (3DES, RC2) algorithms and returns its RSA key, the
// certificate of that key and the other certificates (the chain). Errors
// say whether the password is wrong (ErrWrongPassword), the key is not RSA
// or a certificate for the key is missing.
func ParsePKCS12(data []byte, password string) (key *rsa.PrivateKey, cert *x509.Certificate, chain []*x509.Certificate, err error) {
	priv, first, rest, err := pkcs12.DecodeChain(data, password)
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return nil, nil, nil, fmt.Errorf("parse pkcs12: %w", ErrWrongPassword)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parse pkcs12: %w", err)
	}
	key, ok := priv.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, nil, fmt.Errorf("parse pkcs12: %T key, DGII's profile needs RSA", priv)
	}
	// The leaf is the certificate of the key, wherever it sits in the file.
	for _, c := range append([]*x509.Certificate{first}, rest...) {
		if pub, ok := c.PublicKey.(*rsa.PublicKey); ok && cert == nil && pub.Equal(&key.PublicKey) {
			cert = c
			continue
		}
		chain = append(chain, c)
	}
	if cert == nil {
		return nil, nil, nil, errors.New("parse pkcs12: no certificate for the private key")
	}
	return key, cert, chain, nil
}

// EncodePKCS12 writes key and cert as a .p12 file protected by password
// with modern encryption (PBES2 with AES-256-CBC, HMAC-SHA-256 MAC), which
// OpenSSL 1.1.1+ and Java 12+ read. It is for tests and the CLI.
func EncodePKCS12(key *rsa.PrivateKey, cert *x509.Certificate, password string) ([]byte, error) {
	b, err := pkcs12.Modern.Encode(key, cert, nil, password)
	if err != nil {
		return nil, fmt.Errorf("encode pkcs12: %w", err)
	}
	return b, nil
}

// GenerateSelfSigned makes an RSA-2048 key and a self-signed certificate
// for it, valid from now (less a minute of clock skew) until notAfter,
// with KeyUsage digitalSignature and nonRepudiation like the certificates
// DGII accepts. It is for tests and the TesteCF/CerteCF environments.
func GenerateSelfSigned(subject pkix.Name, notAfter time.Time) (*rsa.PrivateKey, *x509.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               subject,
		Issuer:                subject,
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	return key, cert, nil
}
