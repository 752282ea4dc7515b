package sello_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
	"software.sslmate.com/src/go-pkcs12"
)

// issued is a key and a certificate for subject issued by a throwaway CA
// (not self-signed), valid from an hour ago to notAfter.
func issued(tb testing.TB, subject pkix.Name, notAfter time.Time) (*rsa.PrivateKey, *x509.Certificate) {
	tb.Helper()
	caKey, ca, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba CA"}, time.Now().Add(2*365*24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return key, cert
}

// TestOpenCertificateFile: the rules of a new signing certificate, as the
// CLI and the portal apply them through sello.OpenCertificateFile.
func TestOpenCertificateFile(t *testing.T) {
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	tenant := &sello.Tenant{ID: "t1", RNC: "131793916", Name: "Firma SRL"}
	year := time.Now().Add(365 * 24 * time.Hour)
	cedula := pkix.Name{CommonName: "Juan Pérez", SerialNumber: "IDCDO-00100000001"}
	key, cert := issued(t, cedula, year)
	const password = "s3creto ñ"

	// Modern files and the legacy ones older tools write (FACTS §4) open
	// alike, in every environment.
	for name, enc := range map[string]*pkcs12.Encoder{"Modern": pkcs12.Modern, "LegacyRC2": pkcs12.LegacyRC2, "LegacyDES": pkcs12.LegacyDES} {
		t.Run(name, func(t *testing.T) {
			p12, err := enc.Encode(key, cert, nil, password)
			if err != nil {
				t.Fatal(err)
			}
			c, overridden, err := sello.OpenCertificateFile(sello.CertificateFile{Tenant: tenant, Environment: sello.EnvProd, PKCS12: p12, Password: password}, mk, time.Now())
			if err != nil || overridden != nil {
				t.Fatalf("open: %v, %v", err, overridden)
			}
			if c.TenantID != "t1" || c.Environment != sello.EnvProd || !strings.Contains(c.Subject, "Juan Pérez") || c.SelfSigned || !c.NotAfter.Equal(cert.NotAfter.UTC()) {
				t.Fatalf("certificate %+v", c)
			}
			k, x, err := c.OpenKey(mk)
			if err != nil || !k.Equal(key) || !x.Equal(cert) {
				t.Fatalf("the sealed key does not open to the file's: %v", err)
			}
			if bytes.Contains(c.SealedKey, []byte(password)) {
				t.Fatal("the password is in the record")
			}
		})
	}

	modern, _ := xmldsig.EncodePKCS12(key, cert, password)
	selfKey, selfCert, _ := xmldsig.GenerateSelfSigned(cedula, year)
	selfSigned, _ := xmldsig.EncodePKCS12(selfKey, selfCert, password)
	oldKey, oldCert := issued(t, cedula, time.Now().Add(time.Hour))
	expiring, _ := xmldsig.EncodePKCS12(oldKey, oldCert, password)
	otherKey, otherCert := issued(t, pkix.Name{CommonName: "Otra SRL", SerialNumber: "RNC-130000002"}, year)
	other, _ := xmldsig.EncodePKCS12(otherKey, otherCert, password)
	for _, tt := range []struct {
		name     string
		env      sello.Environment
		p12      []byte
		password string
		now      time.Time
		code     sello.ErrorCode
		msg      string
	}{
		{"ErrWrongPassword", sello.EnvTest, modern, "otra", time.Now(), sello.CodeInvalidRequest, "The password does not open the .p12 file."},
		{"ErrNotPKCS12", sello.EnvTest, []byte("no soy un p12"), password, time.Now(), sello.CodeInvalidRequest, "does not open as a .p12"},
		{"ErrEmpty", sello.EnvTest, nil, password, time.Now(), sello.CodeInvalidRequest, "empty"},
		{"ErrTooLarge", sello.EnvTest, make([]byte, sello.MaxPKCS12Size+1), password, time.Now(), sello.CodePayloadTooLarge, "at most 65536"},
		{"ErrExpired", sello.EnvTest, expiring, password, time.Now().Add(2 * time.Hour), sello.CodeInvalidRequest, "The certificate expired on"},
		{"ErrSelfSignedInECF", sello.EnvProd, selfSigned, password, time.Now(), sello.CodeInvalidRequest, "self-signed certificate cannot sign in eCF"},
		{"ErrOtherRNC", sello.EnvTest, other, password, time.Now(), sello.CodeInvalidRequest, "names RNC 130000002, not the tenant's 131793916"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, force := range []bool{false, true} {
				c, _, err := sello.OpenCertificateFile(sello.CertificateFile{Tenant: tenant, Environment: tt.env, PKCS12: tt.p12, Password: tt.password, Force: force}, mk, tt.now)
				if tt.name == "ErrOtherRNC" && force {
					continue // below
				}
				if c != nil || sello.ErrorCodeOf(err) != tt.code || !strings.Contains(sello.ErrorMessageOf(err), tt.msg) {
					t.Fatalf("force %v: %v, %v; want %s saying %q", force, c, err, tt.code, tt.msg)
				}
				if sello.IsHolderRefusal(err) != (tt.name == "ErrOtherRNC") {
					t.Fatalf("IsHolderRefusal(%v) = %v", err, !sello.IsHolderRefusal(err))
				}
			}
		})
	}

	t.Run("ForceOverridesTheHolder", func(t *testing.T) {
		c, overridden, err := sello.OpenCertificateFile(sello.CertificateFile{Tenant: tenant, Environment: sello.EnvTest, PKCS12: other, Password: password, Force: true}, mk, time.Now())
		if err != nil || c == nil || !strings.Contains(sello.ErrorMessageOf(overridden), "names RNC 130000002") {
			t.Fatalf("forced: %v, %v, %v", c, overridden, err)
		}
	})

	t.Run("SelfSignedOutsideECF", func(t *testing.T) {
		c, _, err := sello.OpenCertificateFile(sello.CertificateFile{Tenant: tenant, Environment: sello.EnvCert, PKCS12: selfSigned, Password: password}, mk, time.Now())
		if err != nil || !c.SelfSigned {
			t.Fatalf("self-signed in CerteCF: %+v, %v", c, err)
		}
	})
}

// TestNewSelfSignedCertificate: a generated certificate names the tenant
// and its RNC, lasts a year, signs in TesteCF and CerteCF, never in eCF.
func TestNewSelfSignedCertificate(t *testing.T) {
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	tenant := &sello.Tenant{ID: "t1", RNC: "131793916", Name: "Firma SRL"}
	c, err := sello.NewSelfSignedCertificate(tenant, sello.EnvCert, mk)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SelfSigned || c.Environment != sello.EnvCert || !strings.Contains(c.Subject, "SERIALNUMBER=RNC-131793916") || c.State(time.Now()) != sello.CertificateValid {
		t.Fatalf("generated %+v", c)
	}
	if d := c.NotAfter.Sub(time.Now()); d < sello.SelfSignedValidity-time.Minute || d > sello.SelfSignedValidity {
		t.Fatalf("valid for %s", d)
	}
	if _, _, err := c.OpenKey(mk); err != nil {
		t.Fatal(err)
	}
	if _, err := sello.NewSelfSignedCertificate(tenant, sello.EnvProd, mk); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
		t.Fatalf("generated for eCF: %v", err)
	}
}

// TestCertificateState: valid, expiring within CertificateExpiryWarning,
// expired from its NotAfter on, not yet valid before its NotBefore.
func TestCertificateState(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c := &sello.Certificate{NotBefore: now.Add(-time.Hour), NotAfter: now.Add(sello.CertificateExpiryWarning + time.Hour)}
	for _, tt := range []struct {
		at   time.Time
		want sello.CertificateState
	}{
		{now, sello.CertificateValid},
		{now.Add(2 * time.Hour), sello.CertificateExpiring},
		{c.NotAfter, sello.CertificateExpired},
		{now.Add(-2 * time.Hour), sello.CertificateNotYetValid},
	} {
		if got := c.State(tt.at); got != tt.want {
			t.Errorf("State(%s) = %s, want %s", tt.at, got, tt.want)
		}
	}
}
