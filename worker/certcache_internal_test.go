package worker

import (
	"context"
	"crypto/x509/pkix"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/xmldsig"
)

// certStore answers FindSigningCertificate with its current certificate
// and counts the calls; the rest of sello.Store is not used.
type certStore struct {
	sello.Store
	cert  *sello.Certificate
	calls int
}

func (s *certStore) FindSigningCertificate(_ context.Context, _ string, _ sello.Environment, now time.Time) (*sello.Certificate, error) {
	s.calls++
	if s.cert == nil || !s.cert.Valid(now) {
		return nil, sello.Errorf(sello.CodeNotFound, "no certificate")
	}
	return s.cert, nil
}

func mustCertificate(t *testing.T, mk *sello.MasterKey, id string, notAfter time.Time) *sello.Certificate {
	t.Helper()
	key, x, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: id}, notAfter)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sello.NewCertificate("t", sello.EnvTest, x, key, mk)
	if err != nil {
		t.Fatal(err)
	}
	c.ID = id
	return c
}

// TestCertificateKept checks that the worker reads a tenant's signing
// certificate once per certTTL, opens its key once per certificate, uses a
// new one after at most certTTL, never uses a kept one past its NotAfter,
// and keeps no "not found".
func TestCertificateKept(t *testing.T) {
	ctx := t.Context()
	mk, _ := sello.ParseMasterKey(sello.GenerateMasterKey())
	now := time.Now()
	st := &certStore{}
	w := New(Config{Store: st, MasterKey: mk, Now: func() time.Time { return now }})
	signer := func() (*sello.Certificate, *xmldsig.Signer, error) { return w.signer(ctx, "t", sello.EnvTest) }

	if _, _, err := signer(); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("no certificate: got %v, want NOT_FOUND", err)
	}
	st.cert = mustCertificate(t, mk, "old", now.Add(time.Hour))
	c, first, err := signer()
	if err != nil || c.ID != "old" {
		t.Fatalf("after one was added: %v, %v (a NOT_FOUND was kept?)", c, err)
	}
	calls := st.calls
	for range 10 {
		if c, _, _ := signer(); c.ID != "old" {
			t.Fatalf("got %s", c.ID)
		}
	}
	if st.calls != calls {
		t.Errorf("10 more documents within certTTL read the store %d more times, want 0", st.calls-calls)
	}
	now = now.Add(certTTL)
	if _, s, _ := signer(); s != first {
		t.Error("the same certificate read again after certTTL got a new signer: its key was opened again")
	}

	st.cert = mustCertificate(t, mk, "new", now.Add(48*time.Hour))
	now = now.Add(certTTL)
	if c, s, _ := signer(); c.ID != "new" || s == first {
		t.Errorf("certTTL after a new certificate was added: got %s (new signer: %v), want new", c.ID, s != first)
	}

	// A kept certificate that expires is not used a moment past NotAfter.
	now = st.cert.NotAfter.Add(-time.Second)
	signer()
	st.cert = nil
	now = now.Add(time.Second)
	if c, _, err := signer(); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Errorf("at NotAfter: got %v, %v, want NOT_FOUND", c, err)
	}
}
