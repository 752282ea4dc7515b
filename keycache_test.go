package sello_test

import (
	"context"
	"crypto/x509/pkix"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// TestKeyCache: a certificate's key is opened once and then served from
// the cache; a nil cache opens every time; a wrong master key is an error
// and caches nothing.
func TestKeyCache(t *testing.T) {
	mk, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	key, x, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: "Prueba"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sello.NewCertificate("t1", sello.EnvTest, x, key, mk)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sello.ParseMasterKey(sello.GenerateMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	var kc sello.KeyCache
	if _, _, err := kc.Open(c, other); err == nil {
		t.Fatal("opened with another master key")
	}
	k1, x1, err := kc.Open(c, mk)
	if err != nil {
		t.Fatal(err)
	}
	if !k1.Equal(key) || !x1.Equal(x) {
		t.Fatal("opened another key or certificate")
	}
	k2, x2, err := kc.Open(c, other) // cached: the master key is not asked again
	if err != nil || k2 != k1 || x2 != x1 {
		t.Fatalf("second open: %p %p %v; want the cached %p %p", k2, x2, err, k1, x1)
	}
	var none *sello.KeyCache
	k3, _, err := none.Open(c, mk)
	if err != nil || k3 == k1 || !k3.Equal(key) {
		t.Fatalf("nil cache: %p, %v; want a key opened anew", k3, err)
	}
}

// TestSigningCertificateReuse: the certificate found is answered again
// for SigningCertificateReuse while it is valid, then found again (a newer
// one is taken); an expired one, or a failed find, is not answered from
// the cache; a nil cache finds every time.
func TestSigningCertificateReuse(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	older := &sello.Certificate{ID: "c1", NotBefore: start.Add(-time.Hour), NotAfter: start.Add(3 * time.Second)}
	newer := &sello.Certificate{ID: "c2", NotBefore: start.Add(-time.Hour), NotAfter: start.Add(time.Hour)}
	current, finds := older, 0
	find := func(_ context.Context, tenantID string, env sello.Environment, now time.Time) (*sello.Certificate, error) {
		finds++
		if current == nil || !current.Valid(now) {
			return nil, sello.Errorf(sello.CodeNotFound, "none")
		}
		return current, nil
	}
	var kc sello.KeyCache
	for _, c := range []struct {
		name  string
		at    time.Duration
		set   *sello.Certificate // the store's certificate from then on
		want  string             // "" for NOT_FOUND
		finds int
	}{
		{"Found", 0, older, "c1", 1},
		{"Reused", time.Second, newer, "c1", 1},
		{"ExpiredNotReused", 3 * time.Second, newer, "c2", 2},
		{"ReusedAgain", 4 * time.Second, newer, "c2", 2},
		{"FoundAgainAfter", 3*time.Second + sello.SigningCertificateReuse, nil, "", 3},
		{"FailureNotKept", 3*time.Second + sello.SigningCertificateReuse + time.Second, nil, "", 4},
	} {
		current = c.set
		got, err := kc.SigningCertificate(t.Context(), find, "t1", sello.EnvTest, start.Add(c.at))
		switch {
		case c.want == "" && sello.ErrorCodeOf(err) != sello.CodeNotFound:
			t.Errorf("%s: got %v, %v; want NOT_FOUND", c.name, got, err)
		case c.want != "" && (err != nil || got.ID != c.want):
			t.Errorf("%s: got %v, %v; want %s", c.name, got, err, c.want)
		}
		if finds != c.finds {
			t.Errorf("%s: %d finds, want %d", c.name, finds, c.finds)
		}
	}
	var none *sello.KeyCache
	current = newer
	for range 2 {
		if _, err := none.SigningCertificate(t.Context(), find, "t1", sello.EnvTest, start); err != nil {
			t.Fatal(err)
		}
	}
	if finds != 6 {
		t.Errorf("a nil cache: %d finds in all, want 6", finds)
	}
}
