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
	return generate(&x509.Certificate{
		Subject:  subject,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}, notAfter, nil, nil)
}

// GenerateCA makes an RSA-2048 key and a self-signed CA certificate for
// it (basicConstraints CA, keyCertSign), valid from now (less a minute)
// until notAfter, to issue signing certificates with IssueCertificate. It
// is for tests and demos (sello serve --demo's demo CA).
func GenerateCA(subject pkix.Name, notAfter time.Time) (*rsa.PrivateKey, *x509.Certificate, error) {
	return generate(&x509.Certificate{
		Subject:  subject,
		IsCA:     true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}, notAfter, nil, nil)
}

// IssueCertificate makes an RSA-2048 key and a signing certificate for it
// issued by ca (whose key is caKey), valid from now (less a minute) until
// notAfter, with KeyUsage digitalSignature and nonRepudiation like the
// certificates DGII accepts. It is for tests and demos.
func IssueCertificate(caKey *rsa.PrivateKey, ca *x509.Certificate, subject pkix.Name, notAfter time.Time) (*rsa.PrivateKey, *x509.Certificate, error) {
	return generate(&x509.Certificate{
		Subject:  subject,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
	}, notAfter, caKey, ca)
}

// generate makes a key and a certificate of tmpl for it, valid from now
// (less a minute) until notAfter, issued by parent (self-signed when nil).
func generate(tmpl *x509.Certificate, notAfter time.Time, parentKey *rsa.PrivateKey, parent *x509.Certificate) (*rsa.PrivateKey, *x509.Certificate, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Minute), notAfter
	tmpl.BasicConstraintsValid = true
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("generate certificate: %w", err)
	}
	return key, cert, nil
}
