package xmldsig_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/oracle"
	"github.com/sello-do/sello/xmldsig"
	"software.sslmate.com/src/go-pkcs12"
)

// opensslExport runs openssl pkcs12 -export with args and returns the file.
func opensslExport(tb testing.TB, args ...string) []byte {
	tb.Helper()
	bin := oracle.Require(tb, "openssl")
	out := filepath.Join(tb.TempDir(), "cert.p12")
	cmd := exec.Command(bin, append([]string{"pkcs12", "-export", "-out", out, "-passout", "pass:s3cr3to ñ"}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("openssl %v: %v\n%s", args, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestParsePKCS12(t *testing.T) {
	s := MustSigner(t)
	keyPath, certPath := MustWritePEM(t, s)
	ca := MustOtherSigner(t)
	_, caPath := MustWritePEM(t, ca)

	for name, tc := range map[string]struct {
		args  []string
		chain int
	}{
		// OpenSSL 3 default: PBES2, AES-256-CBC, HMAC-SHA-256.
		"Modern": {[]string{"-inkey", keyPath, "-in", certPath}, 0},
		// -legacy: RC2-40 for certificates, 3DES for the key, SHA-1 MAC.
		"Legacy": {[]string{"-legacy", "-inkey", keyPath, "-in", certPath}, 0},
		"3DES":   {[]string{"-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1", "-inkey", keyPath, "-in", certPath}, 0},
		"Chain":  {[]string{"-inkey", keyPath, "-in", certPath, "-certfile", caPath}, 1},
	} {
		t.Run(name, func(t *testing.T) {
			key, cert, chain, err := xmldsig.ParsePKCS12(opensslExport(t, tc.args...), "s3cr3to ñ")
			if err != nil {
				t.Fatal(err)
			}
			if !key.Equal(s.Key) || !cert.Equal(s.Cert) || len(chain) != tc.chain {
				t.Errorf("got key %v, cert %v, %d chain certificates; want the signer's and %d", key.Equal(s.Key), cert.Subject, len(chain), tc.chain)
			}
			if tc.chain == 1 && !chain[0].Equal(ca.Cert) {
				t.Errorf("chain[0] = %v, want %v", chain[0].Subject, ca.Cert.Subject)
			}
		})
	}

	t.Run("EncodePKCS12", func(t *testing.T) {
		p12, err := xmldsig.EncodePKCS12(s.Key, s.Cert, "clave")
		if err != nil {
			t.Fatal(err)
		}
		key, cert, chain, err := xmldsig.ParsePKCS12(p12, "clave")
		if err != nil || !key.Equal(s.Key) || !cert.Equal(s.Cert) || len(chain) != 0 {
			t.Fatalf("round trip: %v", err)
		}
		// OpenSSL reads it too.
		bin := oracle.Require(t, "openssl")
		p := MustWriteFile(t, "enc.p12", p12)
		if out, err := exec.Command(bin, "pkcs12", "-in", p, "-info", "-noout", "-passin", "pass:clave").CombinedOutput(); err != nil || !strings.Contains(string(out), "AES-256-CBC") {
			t.Errorf("openssl pkcs12 -info: %v\n%s", err, out)
		}
	})

	t.Run("ErrWrongPassword", func(t *testing.T) {
		for _, args := range [][]string{{"-inkey", keyPath, "-in", certPath}, {"-legacy", "-inkey", keyPath, "-in", certPath}} {
			_, _, _, err := xmldsig.ParsePKCS12(opensslExport(t, args...), "otra")
			if !errors.Is(err, xmldsig.ErrWrongPassword) || err.Error() != "parse pkcs12: wrong pkcs12 password" {
				t.Errorf("%v: got %v, want %v", args, err, xmldsig.ErrWrongPassword)
			}
		}
	})

	t.Run("ErrNotRSA", func(t *testing.T) {
		bin := oracle.Require(t, "openssl")
		dir := t.TempDir()
		ecKey, ecCert := filepath.Join(dir, "ec.pem"), filepath.Join(dir, "eccert.pem")
		if out, err := exec.Command(bin, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
			"-keyout", ecKey, "-out", ecCert, "-subj", "/CN=ec", "-days", "1").CombinedOutput(); err != nil {
			t.Fatalf("openssl req: %v\n%s", err, out)
		}
		_, _, _, err := xmldsig.ParsePKCS12(opensslExport(t, "-inkey", ecKey, "-in", ecCert), "s3cr3to ñ")
		if err == nil || !strings.Contains(err.Error(), "ecdsa.PrivateKey key, DGII's profile needs RSA") {
			t.Errorf("got %v, want a non-RSA key error", err)
		}
	})

	t.Run("ErrNoCertificate", func(t *testing.T) {
		_, _, _, err := xmldsig.ParsePKCS12(opensslExport(t, "-inkey", keyPath, "-nocerts"), "s3cr3to ñ")
		if err == nil || !strings.Contains(err.Error(), "certificate missing") {
			t.Errorf("got %v, want a missing certificate error", err)
		}
	})

	t.Run("ErrKeyCertificateMismatch", func(t *testing.T) {
		// openssl refuses to write this; go-pkcs12 does not check.
		p12, err := pkcs12.Modern.Encode(s.Key, ca.Cert, nil, "x")
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, err = xmldsig.ParsePKCS12(p12, "x")
		if err == nil || !strings.Contains(err.Error(), "no certificate for the private key") {
			t.Errorf("got %v, want a key/certificate mismatch error", err)
		}
	})

	t.Run("ErrGarbage", func(t *testing.T) {
		if _, _, _, err := xmldsig.ParsePKCS12([]byte("not a p12"), "x"); err == nil || !strings.HasPrefix(err.Error(), "parse pkcs12: ") {
			t.Errorf("got %v", err)
		}
	})
}

func TestGenerateSelfSigned(t *testing.T) {
	notAfter := time.Now().AddDate(0, 6, 0).Truncate(time.Second)
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Juan Pérez", SerialNumber: "IDCDO-00100000001"}, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	if key.N.BitLen() != 2048 {
		t.Errorf("key is %d bits, want 2048", key.N.BitLen())
	}
	if want := x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment; cert.KeyUsage != want {
		t.Errorf("KeyUsage = %v, want %v", cert.KeyUsage, want)
	}
	if cert.Subject.SerialNumber != "IDCDO-00100000001" || cert.Subject.CommonName != "Juan Pérez" {
		t.Errorf("subject = %v", cert.Subject)
	}
	if !cert.NotAfter.Equal(notAfter) || cert.NotBefore.After(time.Now()) {
		t.Errorf("validity %v – %v, want until %v", cert.NotBefore, cert.NotAfter, notAfter)
	}
	if err := cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
}
