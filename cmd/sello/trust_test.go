package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// TestReceiverTrustRootsFlag checks serve's --receiver-trust-roots (and
// SELLO_RECEIVER_TRUST_ROOTS): refused at start when the file cannot be
// read or holds no certificate, named in the log when it does, and a
// warning without it.
func TestReceiverTrustRootsFlag(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, ca, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Prueba CA Acreditada"}, time.Now().AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	good := write("roots.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})))
	for _, tt := range []struct {
		name   string
		args   []string
		getenv func(string) string
		want   string
	}{
		{"ErrMissing", []string{"--receiver-trust-roots", filepath.Join(dir, "none.pem")}, noEnv, "--receiver-trust-roots: cannot read " + filepath.Join(dir, "none.pem") + ": no such file or directory"},
		{"ErrEmpty", []string{"--receiver-trust-roots", write("empty.pem", "")}, noEnv, "empty.pem: no PEM certificate in it"},
		{"ErrKey", []string{"--receiver-trust-roots", write("key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")}, noEnv, `PEM block 1 is a "PRIVATE KEY", not a CERTIFICATE`},
		{"ErrEnv", nil, func(k string) string {
			if k == "SELLO_RECEIVER_TRUST_ROOTS" {
				return filepath.Join(dir, "none.pem")
			}
			return ""
		}, "--receiver-trust-roots: cannot read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := run(t.Context(), append([]string{"serve", "--data", t.TempDir()}, tt.args...), tt.getenv, io.Discard, io.Discard)
			var usage usageError
			if !errors.As(err, &usage) || !strings.Contains(usage.msg, tt.want) {
				t.Fatalf("got %v, want a usage error with %q", err, tt.want)
			}
		})
	}
	key := make([]byte, 32)
	rand.Read(key)
	getenv := func(k string) string {
		if k == "SELLO_MASTER_KEY" {
			return base64.StdEncoding.EncodeToString(key)
		}
		return ""
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"OK", []string{"--receiver-trust-roots", good}, `msg="receiver trust roots" count=1`},
		{"WarnWithout", nil, "eCF receivers cannot tell a stranger from a supplier"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var stderr syncBuffer
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tt.args...), getenv, pw, &stderr)
				pw.Close()
			}()
			if line, err := readLine(pr); !strings.HasPrefix(line, "listening on ") {
				cancel()
				t.Fatalf("first line %q (%v); server: %v\n%s", line, err, <-done, stderr.String())
			}
			cancel()
			go io.Copy(io.Discard, pr)
			if err := <-done; err != nil {
				t.Fatalf("serve: %v", err)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("the log does not say %q:\n%s", tt.want, stderr.String())
			}
		})
	}
}

// TestDemoCA checks that --demo keeps its CA in the data folder, issues
// the demo tenants' certificates from it in every environment, and reuses
// it after a restart.
func TestDemoCA(t *testing.T) {
	s := MustRunServer(t)
	path := filepath.Join(s.Data, demoCAFile)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != keyFileMode {
		t.Fatalf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, keyFileMode)
	}
	blk, _ := pem.Decode(before)
	ca, err := x509.ParseCertificate(blk.Bytes)
	if err != nil || !ca.IsCA {
		t.Fatalf("the demo CA: %v (CA %v)", err, ca != nil && ca.IsCA)
	}
	s.Stop(t)
	s = s.Restart(t)
	after, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(after, before) {
		t.Fatalf("the demo CA changed across the restart (%v)", err)
	}
	s.Stop(t)
	db := mustOpenStore(t, s)
	for _, rnc := range []string{demoRNC, demoBuyerRNC} {
		tn, err := db.FindTenantByRNC(t.Context(), rnc)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range sello.Environments {
			certs, err := db.FindCertificates(t.Context(), tn.ID, env)
			if err != nil || len(certs) != 1 {
				t.Fatalf("%s %s: %d certificates (%v), want one (none added by the restart)", rnc, env, len(certs), err)
			}
			x, err := x509.ParseCertificate(certs[0].DER)
			if err != nil || x.CheckSignatureFrom(ca) != nil || certs[0].SelfSigned {
				t.Errorf("%s %s: the certificate %s is not issued by the demo CA", rnc, env, certs[0].Subject)
			}
		}
	}
}
