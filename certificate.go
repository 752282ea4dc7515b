package sello

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
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

// CheckNew refuses a certificate a store cannot keep: without a tenant, a
// known environment, the certificate or its sealed key (see
// NewCertificate). Returns INVALID_REQUEST.
func (c *Certificate) CheckNew() error {
	if c.TenantID == "" {
		return Errorf(CodeInvalidRequest, "Tenant required.")
	} else if _, err := ParseEnvironment(string(c.Environment)); err != nil {
		return err
	} else if c.Fingerprint == "" || len(c.DER) == 0 {
		return Errorf(CodeInvalidRequest, "Certificate required.")
	} else if len(c.SealedKey) == 0 {
		return Errorf(CodeInvalidRequest, "Sealed private key required.")
	}
	return nil
}

// NewCertificateExpiringEvent is the certificate.expiring event of c, whose
// holder is subject and whose validity ends at notAfter.
func NewCertificateExpiringEvent(c *Certificate, subject string, notAfter, now time.Time) *Event {
	return &Event{
		ID:          NewID(),
		Type:        EventCertificateExpiring,
		CreatedAt:   now,
		TenantID:    c.TenantID,
		Environment: c.Environment,
		Data: EventData{
			Severity: "warning",
			Message:  fmt.Sprintf("The signing certificate of %s expires on %s.", subject, notAfter.UTC().Format(time.DateOnly)),
			Payload:  map[string]any{"certificateId": c.ID, "notAfter": FormatTime(notAfter), "subject": subject},
		},
	}
}

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
		SelfSigned:   SelfSigned(cert),
		DER:          cert.Raw,
	}
	c.SealedKey = mk.Seal(der, CertificateKeyAAD(c))
	return c, nil
}

// SelfSigned reports whether cert is self-signed: its issuer is its subject
// and its own key verifies its signature. DGII accepts no self-signed
// certificate in eCF.
func SelfSigned(cert *x509.Certificate) bool {
	return bytes.Equal(cert.RawIssuer, cert.RawSubject) && cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature) == nil
}

// CheckCertificateHolder checks that cert may sign for the taxpayer rnc,
// as far as its subject tells. DGII's signing certificates belong to a
// natural person (the e-CF administrator or a delegate) and name that
// person's cédula or passport in the subject's serialNumber
// ("IDCDO-00100000001"), not the taxpayer's RNC; DGII checks the
// delegation itself (docs/lifecycle.md). So a certificate is refused when
// its subject names an RNC other than rnc, or names no identifier at all;
// one naming rnc, or only a person's identifier, passes. Identifiers are
// read from serialNumber and organizationIdentifier: an RNC is a 9-digit
// number, or one marked RNC, VAT, NTR or TAX ("RNC-131793916",
// "VATDO-131793916"); anything else is a person's id. Returns
// INVALID_REQUEST.
func CheckCertificateHolder(cert *x509.Certificate, rnc string) error {
	var rncs, persons []string
	for _, n := range cert.Subject.Names {
		if !n.Type.Equal(oidSerialNumber) && !n.Type.Equal(oidOrganizationIdentifier) {
			continue
		}
		v, ok := n.Value.(string)
		if !ok {
			continue
		}
		id, isRNC, ok := parseHolderID(v)
		switch {
		case !ok:
		case id == rnc:
			return nil
		case isRNC:
			rncs = append(rncs, id)
		default:
			persons = append(persons, id)
		}
	}
	switch {
	case len(rncs) > 0:
		return Errorf(CodeInvalidRequest, "The certificate names RNC %s, not the tenant's %s: it signs for another taxpayer.", strings.Join(rncs, ", "), rnc)
	case len(persons) == 0:
		return Errorf(CodeInvalidRequest, "The certificate's subject (%s) names no RNC, cédula or passport: DGII's signing certificates name their holder's (serialNumber IDCDO-…).", cert.Subject)
	}
	return nil
}

var (
	oidSerialNumber           = asn1.ObjectIdentifier{2, 5, 4, 5}
	oidOrganizationIdentifier = asn1.ObjectIdentifier{2, 5, 4, 97}
)

// parseHolderID reads an identifier of a certificate's subject: an
// optional prefix of letters (ETSI EN 319 412-1's "IDCDO-", "VATDO-", or
// "RNC-") and a number, which may be written with dashes or spaces
// ("001-0000000-1"). It reports the digits and whether they are an RNC.
func parseHolderID(v string) (id string, isRNC, ok bool) {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' })
	if i < 0 {
		return "", false, false
	}
	prefix := strings.ToUpper(strings.TrimRight(v[:i], "-: "))
	digits := strings.NewReplacer("-", "", " ", "").Replace(v[i:])
	for _, r := range digits {
		if r < '0' || r > '9' {
			return "", false, false
		}
	}
	for _, mark := range []string{"RNC", "VAT", "NTR", "TAX"} {
		if strings.HasPrefix(prefix, mark) {
			return digits, true, true
		}
	}
	return digits, prefix == "" && len(digits) == 9, true
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	ea, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ea.Equal(b)
}

// OpenKey opens c's sealed private key with mk and parses c's certificate:
// what a signer needs.
func (c *Certificate) OpenKey(mk *MasterKey) (*rsa.PrivateKey, *x509.Certificate, error) {
	der, err := mk.Open(c.SealedKey, CertificateKeyAAD(c))
	if err != nil {
		return nil, nil, fmt.Errorf("certificate %s: %w", c.ID, err)
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, nil, fmt.Errorf("certificate %s: parse key: %w", c.ID, err)
	}
	key, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("certificate %s: key is %T, not RSA", c.ID, k)
	}
	x, err := x509.ParseCertificate(c.DER)
	if err != nil {
		return nil, nil, fmt.Errorf("certificate %s: %w", c.ID, err)
	}
	return key, x, nil
}

// KeyCache keeps certificates' opened keys by certificate id, so that a
// signer on a hot path (a receiver's acuse) opens and parses each key once,
// not on every request. A certificate's row never changes under its id, so
// an entry never goes stale; the cache holds one entry per certificate
// used. The zero value is ready; it is safe for concurrent use.
type KeyCache struct {
	m sync.Map // certificate id → *openedKey
	// signing is the certificate each tenant signs with in each
	// environment, as last found: tenantID + "\x00" + env → *foundSigning.
	signing sync.Map
}

type foundSigning struct {
	cert *Certificate
	at   time.Time
}

// SigningCertificateReuse is how long KeyCache.SigningCertificate answers
// with the certificate it found, while that certificate is valid: a
// certificate added since (by another process, the CLI) signs the
// tenant's acuses at most this late.
const SigningCertificateReuse = 5 * time.Second

// SigningCertificate returns the tenant's certificate that signs in env at
// now, as find (CertificateStore.FindSigningCertificate) does, and
// remembers it for SigningCertificateReuse: a hot signer (a receiver's
// acuses) reads it once in that time, not on every request. The
// certificate remembered is used only while it is valid at now. A nil
// cache finds every time.
func (kc *KeyCache) SigningCertificate(ctx context.Context, find func(ctx context.Context, tenantID string, env Environment, now time.Time) (*Certificate, error),
	tenantID string, env Environment, now time.Time) (*Certificate, error) {
	if kc == nil {
		return find(ctx, tenantID, env, now)
	}
	k := tenantID + "\x00" + string(env)
	if v, ok := kc.signing.Load(k); ok {
		f := v.(*foundSigning)
		if !now.Before(f.at) && now.Before(f.at.Add(SigningCertificateReuse)) && f.cert.Valid(now) {
			return f.cert, nil
		}
	}
	c, err := find(ctx, tenantID, env, now)
	if err != nil {
		return nil, err
	}
	kc.signing.Store(k, &foundSigning{cert: c, at: now})
	return c, nil
}

type openedKey struct {
	key  *rsa.PrivateKey
	cert *x509.Certificate
}

// Open returns c's key and certificate as c.OpenKey(mk) does, from the
// cache when c was opened before. A nil cache opens every time.
func (kc *KeyCache) Open(c *Certificate, mk *MasterKey) (*rsa.PrivateKey, *x509.Certificate, error) {
	if kc == nil {
		return c.OpenKey(mk)
	}
	if v, ok := kc.m.Load(c.ID); ok {
		o := v.(*openedKey)
		return o.key, o.cert, nil
	}
	key, x, err := c.OpenKey(mk)
	if err != nil {
		return nil, nil, err
	}
	kc.m.Store(c.ID, &openedKey{key, x})
	return key, x, nil
}
