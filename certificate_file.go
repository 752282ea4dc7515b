package sello

import (
	"crypto/x509/pkix"
	"errors"
	"time"

	"github.com/sello-do/sello/xmldsig"
)

// MaxPKCS12Size bounds a .p12 file: a signing certificate, its key and
// its chain take a few KiB.
const MaxPKCS12Size = 64 << 10

// SelfSignedValidity is how long a generated test certificate lasts.
const SelfSignedValidity = 365 * 24 * time.Hour

// CertificateFile is a .p12 (PKCS#12, .pfx) to add as a tenant's signing
// certificate in one environment: what the operator CLI's certificates
// add and the portal's Certificados page take.
type CertificateFile struct {
	Tenant      *Tenant
	Environment Environment
	// PKCS12 is the file. Password opens it: it is used once, here, and
	// never kept, logged or audited.
	PKCS12   []byte
	Password string
	// Force adds a certificate whose subject names another RNC, or no RNC
	// or cédula (CheckCertificateHolder refuses it otherwise); it never
	// adds a self-signed one in eCF.
	Force bool
}

// OpenCertificateFile opens f and applies the rules of a new signing
// certificate at now: the file opens with its password, whether its
// encryption is modern (PBES2, AES) or legacy (3DES, RC2: FACTS §4), and
// holds an RSA key with its certificate; the certificate has not expired;
// it is not self-signed in eCF; its subject may sign for the tenant
// (CheckCertificateHolder) unless f.Force. It returns the certificate with
// its key sealed by mk, ready for CertificateStore.AddCertificate, and,
// when f.Force overrode the holder check, the refusal it overrode (a
// refusal Force would override is IsHolderRefusal). Returns
// INVALID_REQUEST (PAYLOAD_TOO_LARGE above MaxPKCS12Size).
func OpenCertificateFile(f CertificateFile, mk *MasterKey, now time.Time) (c *Certificate, overridden error, err error) {
	if _, err := ParseEnvironment(string(f.Environment)); err != nil {
		return nil, nil, err
	}
	switch {
	case len(f.PKCS12) == 0:
		return nil, nil, Errorf(CodeInvalidRequest, "The .p12 file is empty.")
	case len(f.PKCS12) > MaxPKCS12Size:
		return nil, nil, Errorf(CodePayloadTooLarge, "The .p12 file has %d bytes; a signing certificate's file has at most %d.", len(f.PKCS12), MaxPKCS12Size)
	}
	key, cert, _, err := xmldsig.ParsePKCS12(f.PKCS12, f.Password)
	if errors.Is(err, xmldsig.ErrWrongPassword) {
		return nil, nil, Errorf(CodeInvalidRequest, "The password does not open the .p12 file.")
	} else if err != nil {
		return nil, nil, Errorf(CodeInvalidRequest, "The file does not open as a .p12 (PKCS#12) signing certificate: %v.", err)
	}
	if now.After(cert.NotAfter) {
		return nil, nil, Errorf(CodeInvalidRequest, "The certificate expired on %s.", FormatTime(cert.NotAfter))
	}
	if f.Environment == EnvProd && SelfSigned(cert) {
		return nil, nil, errSelfSignedInECF()
	}
	if err := CheckCertificateHolder(cert, f.Tenant.RNC); err != nil {
		if !f.Force {
			return nil, nil, holderRefusal{err}
		}
		overridden = err
	}
	c, err = NewCertificate(f.Tenant.ID, f.Environment, cert, key, mk)
	if err != nil {
		return nil, nil, err
	}
	return c, overridden, nil
}

// holderRefusal is CheckCertificateHolder's refusal in OpenCertificateFile:
// the one refusal CertificateFile.Force overrides.
type holderRefusal struct{ error }

func (h holderRefusal) Unwrap() error { return h.error }

// IsHolderRefusal reports whether err is OpenCertificateFile's refusal of
// the certificate's holder (CheckCertificateHolder), which
// CertificateFile.Force overrides.
func IsHolderRefusal(err error) bool {
	var h holderRefusal
	return errors.As(err, &h)
}

// NewSelfSignedCertificate generates a self-signed signing certificate
// for the tenant in env, valid SelfSignedValidity, its key sealed by mk:
// for TesteCF and CerteCF, whose simulator (and DGII's test environments'
// data tests) need a signature, not a CA. Its subject names the tenant and
// its RNC. Returns INVALID_REQUEST in eCF.
func NewSelfSignedCertificate(t *Tenant, env Environment, mk *MasterKey) (*Certificate, error) {
	if _, err := ParseEnvironment(string(env)); err != nil {
		return nil, err
	} else if env == EnvProd {
		return nil, errSelfSignedInECF()
	}
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{
		CommonName:   t.Name + " (prueba Sello)",
		SerialNumber: "RNC-" + t.RNC,
		Organization: []string{t.Name},
		Country:      []string{"DO"},
	}, time.Now().Add(SelfSignedValidity))
	if err != nil {
		return nil, err
	}
	return NewCertificate(t.ID, env, cert, key, mk)
}

// errSelfSignedInECF refuses a self-signed certificate in eCF.
func errSelfSignedInECF() error {
	return Errorf(CodeInvalidRequest, "A self-signed certificate cannot sign in eCF: DGII requires a certificate issued by an authorized CA (%s).",
		Textf("a self-signed one serves TesteCF and CerteCF only"))
}

// CertificateState is where a certificate stands at a time: valid,
// expiring (within CertificateExpiryWarning of its end), expired, or not
// yet valid.
type CertificateState string

// The states of a certificate.
const (
	CertificateValid       CertificateState = "valid"
	CertificateExpiring    CertificateState = "expiring"
	CertificateExpired     CertificateState = "expired"
	CertificateNotYetValid CertificateState = "not_yet_valid"
)

// State returns the certificate's state at now.
func (c *Certificate) State(now time.Time) CertificateState {
	switch {
	case !now.Before(c.NotAfter):
		return CertificateExpired
	case now.Before(c.NotBefore):
		return CertificateNotYetValid
	case c.NotAfter.Sub(now) < CertificateExpiryWarning:
		return CertificateExpiring
	}
	return CertificateValid
}
