package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

func TestCertificatesCLI(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SELLO_MASTER_KEY": sello.GenerateMasterKey(), "P12PASS": "s3creto ñ"}
	sh := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir), func(k string) string { return env[k] }, &out, &errOut)
		return out.String(), err
	}
	if _, err := sh("tenants", "create", "--rnc", "131793916", "--name", "Firma SRL"); err != nil {
		t.Fatal(err)
	}

	t.Run("Generate", func(t *testing.T) {
		out, err := sh("certificates", "generate", "--tenant", "131793916", "--env", "TesteCF")
		if err != nil || len(strings.TrimSpace(out)) != 36 {
			t.Fatalf("generate printed %q, %v; want the certificate id", out, err)
		}
		_, err = sh("certificates", "generate", "--tenant", "131793916", "--env", "eCF")
		if err == nil || !strings.Contains(describe(err), "self-signed certificate cannot sign in eCF") {
			t.Fatalf("generate for eCF: %v", err)
		}
	})

	t.Run("AddPKCS12", func(t *testing.T) {
		key, cert, _ := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Juan Pérez", SerialNumber: "IDCDO-00100000001"}, time.Now().Add(90*24*time.Hour))
		p12, err := xmldsig.EncodePKCS12(key, cert, env["P12PASS"])
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "firma.p12")
		os.WriteFile(file, p12, 0o600)
		// Self-signed: CerteCF (never eCF, see TestCertificatesChecks).
		out, err := sh("certificates", "add", "--tenant", "131793916", "--env", "CerteCF", "--p12", file, "--password-env", "P12PASS")
		if err != nil || len(strings.TrimSpace(out)) != 36 {
			t.Fatalf("add printed %q, %v", out, err)
		}
		env["WRONG"] = "nope"
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "CerteCF", "--p12", file, "--password-env", "WRONG"); err == nil {
			t.Fatal("a wrong password was accepted")
		}
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "CerteCF", "--p12", file, "--password-env", "UNSET"); err == nil || !strings.Contains(err.Error(), "UNSET is not set") {
			t.Fatalf("unset password variable: %v", err)
		}
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "CerteCF", "--p12", file, "--password-env", "P12PASS"); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("the same certificate twice: %v", err)
		}
		out, err = sh("certificates", "list", "--tenant", "131793916", "--env", "CerteCF")
		if err != nil || !strings.Contains(out, "Juan Pérez") || !strings.Contains(out, "valid") {
			t.Fatalf("list: %q, %v", out, err)
		}
	})

	t.Run("KeysSealedAtRest", func(t *testing.T) {
		raw, err := os.ReadFile(filepath.Join(dir, "sello.db"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("PRIVATE KEY")) || bytes.Contains(raw, []byte(env["P12PASS"])) {
			t.Fatal("a private key or the .p12 password is stored in the clear")
		}
	})

	t.Run("ErrNoMasterKey", func(t *testing.T) {
		delete(env, "SELLO_MASTER_KEY")
		_, err := sh("certificates", "generate", "--tenant", "131793916", "--env", "CerteCF")
		if err == nil || !strings.Contains(err.Error(), "SELLO_MASTER_KEY is not set") {
			t.Fatalf("without a master key: %v", err)
		}
	})
}

// mustIssuedP12 writes a .p12 (password "pw") of a certificate for subject
// issued by a throwaway CA, not self-signed, valid from an hour ago to
// notAfter.
func mustIssuedP12(tb testing.TB, subject pkix.Name, notAfter time.Time) string {
	tb.Helper()
	caKey, ca, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba CA"}, time.Now().Add(2*365*24*time.Hour))
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
	cert, _ := x509.ParseCertificate(der)
	p12, err := xmldsig.EncodePKCS12(key, cert, "pw")
	if err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(tb.TempDir(), "firma.p12")
	if err := os.WriteFile(file, p12, 0o600); err != nil {
		tb.Fatal(err)
	}
	return file
}

// TestCertificatesChecks: certificates add refuses a certificate whose
// subject names another RNC or no identifier (unless --force), and a
// self-signed one in eCF (always); list shows the one that signs.
func TestCertificatesChecks(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SELLO_MASTER_KEY": sello.GenerateMasterKey(), "P12PASS": "pw"}
	sh := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir, "--tenant", "131793916"), func(k string) string { return env[k] }, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	if _, _, err := runCLI("tenants", "create", "--rnc", "131793916", "--name", "Firma SRL", "--data", dir); err != nil {
		t.Fatal(err)
	}
	year := time.Now().Add(365 * 24 * time.Hour)
	cedula := pkix.Name{CommonName: "Juan Pérez", SerialNumber: "IDCDO-00100000001"}
	selfSigned := func(subject pkix.Name) string {
		key, cert, _ := xmldsig.GenerateSelfSigned(subject, year)
		p12, _ := xmldsig.EncodePKCS12(key, cert, "pw")
		file := filepath.Join(t.TempDir(), "self.p12")
		os.WriteFile(file, p12, 0o600)
		return file
	}
	added := func(t *testing.T, out string, err error) string {
		t.Helper()
		if err != nil || len(strings.TrimSpace(out)) != 36 {
			t.Fatalf("add printed %q, %v", out, err)
		}
		return strings.TrimSpace(out)
	}

	var first, second string
	t.Run("OKCedulaInECF", func(t *testing.T) {
		out, _, err := sh("certificates", "add", "--password-env", "P12PASS", "--env", "eCF", "--p12", mustIssuedP12(t, cedula, year))
		first = added(t, out, err)
	})
	t.Run("OKSameRNC", func(t *testing.T) {
		out, _, err := sh("certificates", "add", "--password-env", "P12PASS", "--env", "eCF", "--p12", mustIssuedP12(t, pkix.Name{CommonName: "Firma SRL", SerialNumber: "RNC-131793916"}, year))
		second = added(t, out, err)
	})
	t.Run("ListSigns", func(t *testing.T) {
		out, _, err := sh("certificates", "list", "--env", "eCF")
		if err != nil {
			t.Fatal(err)
		}
		rows := deliveryRows(out)
		if !strings.HasPrefix(out, "id  ") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "signs") || len(rows) != 2 {
			t.Fatalf("list:\n%s", out)
		}
		signs := map[string]string{rows[0][0]: rows[0][1], rows[1][0]: rows[1][1]}
		if signs[second] != "yes" || signs[first] != "-" {
			t.Fatalf("SIGNS: %v; want the one added last (%s) only:\n%s", signs, second, out)
		}
		out, errOut, err := sh("certificates", "list", "--env", "TesteCF")
		if err != nil || len(deliveryRows(out)) != 0 || !strings.Contains(errOut, "no certificate can sign in TesteCF") {
			t.Fatalf("list without certificates: %q %q %v", out, errOut, err)
		}
	})
	t.Run("OKSelfSignedOutsideECF", func(t *testing.T) {
		out, _, err := sh("certificates", "add", "--password-env", "P12PASS", "--env", "TesteCF", "--p12", selfSigned(cedula))
		added(t, out, err)
	})

	for _, tt := range []struct {
		name  string
		env   string
		p12   string
		msg   string
		force bool // --force adds it
	}{
		{"ErrSelfSignedInECF", "eCF", selfSigned(cedula), "self-signed certificate cannot sign in eCF", false},
		{"ErrSelfSignedSameRNCInECF", "eCF", selfSigned(pkix.Name{CommonName: "Firma SRL", SerialNumber: "RNC-131793916"}), "self-signed certificate cannot sign in eCF", false},
		{"ErrOtherRNC", "eCF", mustIssuedP12(t, pkix.Name{CommonName: "Otra SRL", SerialNumber: "RNC-130000002"}, year), "names RNC 130000002, not the tenant's 131793916", true},
		{"ErrOtherRNCOrganizationIdentifier", "CerteCF", mustIssuedP12(t, pkix.Name{CommonName: "Otra", ExtraNames: []pkix.AttributeTypeAndValue{{Type: []int{2, 5, 4, 97}, Value: "VATDO-130000002"}}}, year), "names RNC 130000002", true},
		{"ErrNoIdentifier", "CerteCF", mustIssuedP12(t, pkix.Name{CommonName: "Alguien", Organization: []string{"Firma SRL"}}, year), "names no RNC, cédula or passport", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh("certificates", "add", "--password-env", "P12PASS", "--env", tt.env, "--p12", tt.p12)
			if err == nil || out != "" || sello.ErrorCodeOf(err) != sello.CodeInvalidRequest || !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("add: %q, %v; want INVALID_REQUEST with %q", out, err, tt.msg)
			}
			if wantHint := "add --force"; tt.force && !strings.Contains(describe(err), wantHint) {
				t.Fatalf("add: %q does not say %q", describe(err), wantHint)
			}
			out, errOut, err := sh("certificates", "add", "--password-env", "P12PASS", "--env", tt.env, "--p12", tt.p12, "--force")
			if !tt.force {
				if err == nil || !strings.Contains(describe(err), "self-signed certificate cannot sign in eCF") {
					t.Fatalf("add --force: %q, %v; want the refusal", out, err)
				}
				return
			}
			added(t, out, err)
			if !strings.Contains(errOut, "added with --force: ") || !strings.Contains(errOut, tt.msg) {
				t.Fatalf("add --force said %q; want what it overrode", errOut)
			}
		})
	}
}

func TestDGIISimCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := ioPipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"dgii-sim", "--addr", "127.0.0.1:0"}, noEnv, pw, &bytes.Buffer{}) }()
	line, err := readLine(pr)
	if err != nil || !strings.HasPrefix(line, "dgii simulator listening on http://127.0.0.1:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp, err := httpGet(strings.TrimPrefix(line, "dgii simulator listening on ") + "/testecf/autenticacion/api/autenticacion/semilla")
	if err != nil || !strings.Contains(resp, "<valor>") {
		t.Fatalf("semilla: %q, %v", resp, err)
	}
	cancel()
	err = <-done
	pw.Close()
	if err != nil {
		t.Fatalf("dgii-sim stopped with %v", err)
	}
}
