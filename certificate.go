package sello

import (
	"bytes"
	"context"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"time"
)

// Certificate is a tenant's signing certificate for one environment. The
// certificate is public and stored as is; the private key is stored sealed
// with the master key (see MasterKey), never in the clear. The PKCS#12
// password is used once, to open the file, and never stored.
type Certificate struct {
	ID           string      `json:"id"`
	TenantID     string      `json:"tenantId"`
	Environment  Environment `json:"environment"`
	Subject      string      `json:"subject"`
	Issuer       string      `json:"issuer"`
	SerialNumber string      `json:"serialNumber"`
	// Fingerprint is the SHA-256 of the DER certificate, hex.
	Fingerprint string    `json:"fingerprint"`
	NotBefore   time.Time `json:"notBefore"`
	NotAfter    time.Time `json:"notAfter"`
	SelfSigned  bool      `json:"selfSigned"`
	CreatedAt   time.Time `json:"createdAt"`
	// DER is the X.509 certificate.
	DER []byte `json:"-"`
	// SealedKey is the PKCS#8 private key sealed by MasterKey.Seal with
	// CertificateKeyAAD as additional data.
	SealedKey []byte `json:"-"`
}

// CertificateKeyAAD binds a sealed key to its tenant, environment and
// certificate, so a sealed key copied onto another row does not open.
func CertificateKeyAAD(c *Certificate) []byte {
	return []byte("sello/certificate-key/v1\x00" + c.TenantID + "\x00" + string(c.Environment) + "\x00" + c.Fingerprint)
}

// Valid reports whether the certificate may sign at now.
func (c *Certificate) Valid(now time.Time) bool {
	return !now.Before(c.NotBefore) && now.Before(c.NotAfter)
}

// CertificateExpiryWarning is how long before expiry certificate.expiring
// is emitted.
const CertificateExpiryWarning = 30 * 24 * time.Hour

// CertificateStore keeps signing certificates.
type CertificateStore interface {
	// AddCertificate stores c and sets its ID and CreatedAt. Returns
	// NOT_FOUND if the tenant does not exist, CONFLICT if the same
	// certificate (fingerprint) is already stored for the tenant and
	// environment.
	AddCertificate(ctx context.Context, c *Certificate) error
	// FindCertificates lists the tenant's certificates in env, newest first.
	FindCertificates(ctx context.Context, tenantID string, env Environment) ([]*Certificate, error)
	// FindSigningCertificate returns the certificate to sign with at now:
	// the valid one added last. Returns NOT_FOUND when none is valid.
	FindSigningCertificate(ctx context.Context, tenantID string, env Environment, now time.Time) (*Certificate, error)
	// WarnCertificateExpiring writes a certificate.expiring event for c
	// once: it returns false, writing nothing, when it was already written.
	WarnCertificateExpiring(ctx context.Context, c *Certificate, now time.Time) (bool, error)
}

// NewCertificate builds the record of cert and its private key for a tenant
// in env, sealing the key with mk. Returns INVALID_REQUEST when the key does
// not match the certificate.
func NewCertificate(tenantID string, env Environment, cert *x509.Certificate, key crypto.Signer, mk *MasterKey) (*Certificate, error) {
	if !publicKeysEqual(cert.PublicKey, key.Public()) {
		return nil, Errorf(CodeInvalidRequest, "The private key does not belong to the certificate.")
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal private key: %w", err)
	}
	sum := sha256.Sum256(cert.Raw)
	c := &Certificate{
		TenantID:     tenantID,
		Environment:  env,
		Subject:      cert.Subject.String(),
		Issuer:       cert.Issuer.String(),
		SerialNumber: cert.SerialNumber.String(),
		Fingerprint:  hex.EncodeToString(sum[:]),
		NotBefore:    cert.NotBefore.UTC(),
		NotAfter:     cert.NotAfter.UTC(),
		SelfSigned:   bytes.Equal(cert.RawIssuer, cert.RawSubject) && cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil,
		DER:          cert.Raw,
	}
	c.SealedKey = mk.Seal(der, CertificateKeyAAD(c))
	return c, nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	ea, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ea.Equal(b)
}
