package main

import (
	"bytes"
	"context"
	"crypto/x509/pkix"
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
		out, err := sh("certificates", "add", "--tenant", "131793916", "--env", "eCF", "--p12", file, "--password-env", "P12PASS")
		if err != nil || len(strings.TrimSpace(out)) != 36 {
			t.Fatalf("add printed %q, %v", out, err)
		}
		env["WRONG"] = "nope"
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "eCF", "--p12", file, "--password-env", "WRONG"); err == nil {
			t.Fatal("a wrong password was accepted")
		}
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "eCF", "--p12", file, "--password-env", "UNSET"); err == nil || !strings.Contains(err.Error(), "UNSET is not set") {
			t.Fatalf("unset password variable: %v", err)
		}
		if _, err := sh("certificates", "add", "--tenant", "131793916", "--env", "eCF", "--p12", file, "--password-env", "P12PASS"); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("the same certificate twice: %v", err)
		}
		out, err = sh("certificates", "list", "--tenant", "131793916", "--env", "eCF")
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
