package sello_test

import (
	"crypto/x509/pkix"
	"errors"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// TestTrustRootsRemember: the roots remember a certificate that chained
// to them, and still judge each use at its own signing time: a chain whose
// CA expired before the signature is not trusted because the certificate
// was trusted before; other roots do not share what these remember; a
// remembered certificate costs a fraction of a path validation.
func TestTrustRootsRemember(t *testing.T) {
	now := time.Now()
	// The CA expires in two hours, before the certificate it issued.
	caKey, ca, err := xmldsig.GenerateCA(pkix.Name{CommonName: "CA de corta vida"}, now.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	_, cert, err := xmldsig.IssueCertificate(caKey, ca, pkix.Name{CommonName: "Persona", SerialNumber: "IDCDO-00100000001"}, now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	_, otherCA, err := xmldsig.GenerateCA(pkix.Name{CommonName: "Otra CA"}, now.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	roots := sello.NewTrustRoots(ca)
	check := func(t *testing.T, r *sello.TrustRoots, at time.Time, trusted bool) {
		t.Helper()
		s, err := r.CheckSigner(cert, sello.EnvProd, at, at)
		if trusted && (err != nil || !s.Trusted) {
			t.Fatalf("signed at %s: got trusted %v, %v; want trusted", at, s.Trusted, err)
		}
		var refused *sello.SignerRefused
		if !trusted && (s.Trusted || !errors.As(err, &refused)) {
			t.Fatalf("signed at %s: got trusted %v, %v; want refused in eCF", at, s.Trusted, err)
		}
	}
	t.Run("OK", func(t *testing.T) {
		check(t, roots, now, true)
		check(t, roots, now.Add(time.Hour), true)
	})
	t.Run("ErrChainExpiredAfterRemembered", func(t *testing.T) {
		check(t, roots, now, true)
		// The certificate is still valid in three hours, its CA not.
		check(t, roots, now.Add(3*time.Hour), false)
		check(t, roots, now, true)
	})
	t.Run("ErrOtherRoots", func(t *testing.T) {
		check(t, roots, now, true)
		check(t, sello.NewTrustRoots(otherCA), now, false)
	})
	t.Run("Cheaper", func(t *testing.T) {
		fresh := testing.AllocsPerRun(20, func() {
			if _, err := sello.NewTrustRoots(ca).CheckSigner(cert, sello.EnvProd, now, now); err != nil {
				t.Fatal(err)
			}
		})
		remembered := testing.AllocsPerRun(20, func() {
			if _, err := roots.CheckSigner(cert, sello.EnvProd, now, now); err != nil {
				t.Fatal(err)
			}
		})
		// NewTrustRoots itself allocates a few; path validation many.
		if remembered*2 > fresh {
			t.Errorf("a remembered certificate: %v allocations, a path validation %v", remembered, fresh)
		}
	})
}

// BenchmarkCheckSigner is CheckSigner of a certificate issued by the
// trusted CA: by roots that validate its path (new roots each time), and
// by roots that remember it.
func BenchmarkCheckSigner(b *testing.B) {
	now := time.Now()
	caKey, ca, err := xmldsig.GenerateCA(pkix.Name{CommonName: "CA"}, now.AddDate(1, 0, 0))
	if err != nil {
		b.Fatal(err)
	}
	_, cert, err := xmldsig.IssueCertificate(caKey, ca, pkix.Name{CommonName: "Persona", SerialNumber: "IDCDO-00100000001"}, now.AddDate(1, 0, 0))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		roots func() *sello.TrustRoots
	}{
		{"Validated", func() *sello.TrustRoots { return sello.NewTrustRoots(ca) }},
		{"Remembered", func() func() *sello.TrustRoots {
			r := sello.NewTrustRoots(ca)
			return func() *sello.TrustRoots { return r }
		}()},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.roots().CheckSigner(cert, sello.EnvProd, now, now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
