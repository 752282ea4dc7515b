package sello

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Who signed what a tenant's receiver services receive (docs/receptor.md,
// "Trust"): the signed seed that buys a token, a supplier's e-CF, a buyer's
// ACECF. DGII's signing certificates belong to a natural person (the
// taxpayer's e-CF administrator or a delegate), named in the subject's
// serialNumber (IDCDO-<cédula>), issued by a CA INDOTEL accredits (FACTS
// §4). Which taxpayer that person signs for is known only to DGII: Sello
// checks what the certificate itself proves, and records the rest.

// Signer is the certificate that signed a document a tenant's receiver
// received, as recorded with it.
type Signer struct {
	// Subject is the certificate's subject (RFC 2253).
	Subject string `json:"subject"`
	// SerialNumber is the subject's serialNumber attribute, the holder's
	// identity (IDCDO-<cédula> for a DGII signing certificate), "" when
	// the subject has none. It is not the certificate's serial.
	SerialNumber string `json:"serialNumber"`
	// Issuer is the issuing CA's name (RFC 2253).
	Issuer    string    `json:"issuer"`
	NotBefore time.Time `json:"notBefore"`
	NotAfter  time.Time `json:"notAfter"`
	// Fingerprint is the SHA-256 of the DER certificate, hex.
	Fingerprint string `json:"fingerprint"`
	// Trusted says the certificate chains to the receiver's trust roots
	// (serve --receiver-trust-roots); false when it does not or none are
	// configured.
	Trusted bool `json:"trusted"`
}

// NewSigner reads cert into a Signer, not trusted.
func NewSigner(cert *x509.Certificate) *Signer {
	sum := sha256.Sum256(cert.Raw)
	return &Signer{
		Subject:      cert.Subject.String(),
		SerialNumber: cert.Subject.SerialNumber,
		Issuer:       cert.Issuer.String(),
		NotBefore:    cert.NotBefore.UTC(),
		NotAfter:     cert.NotAfter.UTC(),
		Fingerprint:  hex.EncodeToString(sum[:]),
	}
}

// Holder is who holds the certificate: its subject's serialNumber, or,
// when it names none, the certificate itself (its fingerprint). Two
// certificates of one person (a renewal) have the same holder.
func (s *Signer) Holder() string {
	if s == nil {
		return ""
	}
	if s.SerialNumber != "" {
		return "serialNumber:" + s.SerialNumber
	}
	return "sha256:" + s.Fingerprint
}

// SignerResource is the public form of a Signer: times in UTC ISO 8601.
type SignerResource struct {
	Subject      string  `json:"subject"`
	SerialNumber *string `json:"serialNumber"`
	Issuer       string  `json:"issuer"`
	NotBefore    string  `json:"notBefore"`
	NotAfter     string  `json:"notAfter"`
	Fingerprint  string  `json:"fingerprint"`
	Trusted      bool    `json:"trusted"`
}

// Resource returns the public form of s, nil when s is nil.
func (s *Signer) Resource() *SignerResource {
	if s == nil {
		return nil
	}
	return &SignerResource{
		Subject: s.Subject, SerialNumber: nullable(s.SerialNumber), Issuer: s.Issuer,
		NotBefore: FormatTime(s.NotBefore), NotAfter: FormatTime(s.NotAfter),
		Fingerprint: s.Fingerprint, Trusted: s.Trusted,
	}
}

// ReceiverClockSkew is how far in the future a received document's signing
// time (FechaHoraFirma, FechaHoraAprobacionComercial) may be: the sender's
// clock may run ahead of Sello's.
const ReceiverClockSkew = 5 * time.Minute

// TrustRoots are the certificate authorities whose certificates a tenant's
// receiver trusts (serve --receiver-trust-roots): the CAs INDOTEL accredits
// for DGII's signing certificates, their issuing (subordinate) CAs
// included. Every certificate of the bundle is an anchor, so an issuing CA
// in it needs no root above it. A nil *TrustRoots trusts nobody and
// refuses nobody (CheckSigner).
type TrustRoots struct {
	pool  *x509.CertPool
	names []string
	certs []*x509.Certificate

	// chained remembers, by fingerprint, the certificates that chained to
	// pool, with the span in which every certificate of their chain is
	// valid: a supplier signs its documents with one certificate, whose
	// path validation need not run for each. What else path validation
	// checks (signatures, usages, constraints) does not change with the
	// time, and pool changes only by Add, which forgets them all.
	mu      sync.Mutex
	chained map[string]chainSpan
}

// chainSpan is when a chain is valid: every certificate of it from its
// NotBefore to its NotAfter.
type chainSpan struct{ from, until time.Time }

// maxChained bounds TrustRoots.chained: past it, the remembered chains are
// forgotten and remembered again as they are used. Only certificates that
// chain to the roots are remembered, so a flood of strangers' does not
// fill it.
const maxChained = 4096

// NewTrustRoots trusts certs (CA certificates).
func NewTrustRoots(certs ...*x509.Certificate) *TrustRoots {
	r := &TrustRoots{pool: x509.NewCertPool()}
	for _, c := range certs {
		r.Add(c)
	}
	return r
}

// ParseTrustRoots reads a PEM bundle of CA certificates. It refuses a
// bundle without one, or with a block that is not a certificate.
func ParseTrustRoots(bundle []byte) (*TrustRoots, error) {
	r := NewTrustRoots()
	for n := 1; ; n++ {
		var b *pem.Block
		b, bundle = pem.Decode(bundle)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("PEM block %d is a %q, not a CERTIFICATE", n, b.Type)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		r.Add(c)
	}
	if len(r.names) == 0 {
		return nil, errors.New("no PEM certificate in it")
	}
	return r, nil
}

// Add trusts cert (a CA's certificate) as well.
func (r *TrustRoots) Add(cert *x509.Certificate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pool.AddCert(cert)
	r.names = append(r.names, cert.Subject.String())
	r.certs = append(r.certs, cert)
	r.chained = nil
}

// Certificates are the trusted certificates, in the bundle's order: what
// the portal's Receptor page shows (subject, expiry, fingerprint). The
// slice is a copy; the certificates are shared and must not be changed.
func (r *TrustRoots) Certificates() []*x509.Certificate {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*x509.Certificate(nil), r.certs...)
}

// verify is cert's path validation to r at the time at (the signer s
// read from it gives its fingerprint): from the chains remembered when at
// is within the span of cert's, else x509's, whose success it remembers.
func (r *TrustRoots) verify(cert *x509.Certificate, s *Signer, at time.Time) error {
	r.mu.Lock()
	span, ok := r.chained[s.Fingerprint]
	r.mu.Unlock()
	if ok && !at.Before(span.from) && !at.After(span.until) {
		return nil
	}
	chains, err := cert.Verify(x509.VerifyOptions{Roots: r.pool, CurrentTime: at, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}})
	if err != nil {
		return err
	}
	span = chainSpan{from: cert.NotBefore, until: cert.NotAfter}
	for _, c := range chains[0] {
		if c.NotBefore.After(span.from) {
			span.from = c.NotBefore
		}
		if c.NotAfter.Before(span.until) {
			span.until = c.NotAfter
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chained == nil || len(r.chained) >= maxChained {
		r.chained = map[string]chainSpan{}
	}
	r.chained[s.Fingerprint] = span
	return nil
}

// Names are the subjects of the trusted certificates, in the bundle's
// order.
func (r *TrustRoots) Names() []string {
	if r == nil {
		return nil
	}
	return r.names
}

// SignerRefused is why a receiver refused a document's signer. Its text is
// for the log; the caller's answer does not carry it.
type SignerRefused struct{ Reason string }

func (e *SignerRefused) Error() string { return "signer refused: " + e.Reason }

// refuseSigner is a SignerRefused.
func refuseSigner(format string, args ...any) error {
	return &SignerRefused{Reason: fmt.Sprintf(format, args...)}
}

// CheckSigner judges the certificate that signed a document received in
// env at signedAt (the document's FechaHoraFirma, an ACECF's
// FechaHoraAprobacionComercial, now for a seed), at now. The certificate
// must be valid at signedAt, which may not be later than now plus
// ReceiverClockSkew, and allow digitalSignature or nonRepudiation. It is
// trusted when it chains to r (x509 path validation at signedAt, which r
// remembers for the certificate while signedAt is within its chain's
// validity). In eCF, with roots configured, an untrusted certificate is
// refused; without (r nil) every signer is recorded untrusted, as in
// TesteCF and CerteCF, whose certification traffic DGII signs with test
// certificates of its own. It returns the signer, with Trusted set, and a *SignerRefused when
// it is refused.
func (r *TrustRoots) CheckSigner(cert *x509.Certificate, env Environment, signedAt, now time.Time) (*Signer, error) {
	s := NewSigner(cert)
	switch {
	case signedAt.After(now.Add(ReceiverClockSkew)):
		return s, refuseSigner("signed at %s, in the future (now %s)", FormatTime(signedAt), FormatTime(now))
	case signedAt.Before(cert.NotBefore):
		return s, refuseSigner("certificate %s not valid until %s, signed at %s", s.Subject, FormatTime(cert.NotBefore), FormatTime(signedAt))
	case signedAt.After(cert.NotAfter):
		return s, refuseSigner("certificate %s expired on %s, signed at %s", s.Subject, FormatTime(cert.NotAfter), FormatTime(signedAt))
	case cert.KeyUsage&(x509.KeyUsageDigitalSignature|x509.KeyUsageContentCommitment) == 0:
		return s, refuseSigner("certificate %s allows neither digitalSignature nor nonRepudiation", s.Subject)
	}
	var why error
	if r == nil {
		why = errors.New("no trust roots are configured")
	} else {
		why = r.verify(cert, s, signedAt)
	}
	s.Trusted = why == nil
	if !s.Trusted && env == EnvProd && r != nil {
		return s, refuseSigner("certificate %s (issuer %s) does not chain to the trust roots: %v", s.Subject, s.Issuer, why)
	}
	return s, nil
}

// CheckTokenHolder refuses, in eCF, a document signed by another holder
// than the certificate that bought tok (the signed seed): a token belongs
// to its signer. tok nil (the tenant's receiver takes calls without a
// token) checks nothing; elsewhere than eCF nothing is checked either
// (DGII's certification signs with test certificates of its own). Returns
// a *SignerRefused.
func CheckTokenHolder(tok *ReceiverToken, env Environment, s *Signer) error {
	if tok == nil || env != EnvProd {
		return nil
	}
	if tok.Signer == nil || tok.Signer.Holder() != s.Holder() {
		return refuseSigner("signed by %s (%s), but the token was issued to %s", s.Subject, s.Holder(), tokenHolder(tok))
	}
	return nil
}

// tokenHolder names who a token was issued to, for a log.
func tokenHolder(tok *ReceiverToken) string {
	if tok.Signer == nil {
		return "an unknown signer"
	}
	return tok.Signer.Subject + " (" + tok.Signer.Holder() + ")"
}
