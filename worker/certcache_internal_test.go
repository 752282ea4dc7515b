package worker

import (
	"context"
	"testing"
	"time"

	"github.com/sello-do/sello"
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

// TestCertificateKept checks that the worker reads a tenant's signing
// certificate once per certTTL, uses a new one after at most certTTL, never
// uses a kept one past its NotAfter, and keeps no "not found".
func TestCertificateKept(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	old := &sello.Certificate{ID: "old", NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour)}
	st := &certStore{}
	w := New(Config{Store: st, Now: func() time.Time { return now }})

	if _, err := w.certificate(ctx, "t", sello.EnvTest); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("no certificate: got %v, want NOT_FOUND", err)
	}
	st.cert = old
	if c, err := w.certificate(ctx, "t", sello.EnvTest); err != nil || c.ID != "old" {
		t.Fatalf("after one was added: %v, %v (a NOT_FOUND was kept?)", c, err)
	}
	calls := st.calls
	for range 10 {
		if c, _ := w.certificate(ctx, "t", sello.EnvTest); c.ID != "old" {
			t.Fatalf("got %s", c.ID)
		}
	}
	if st.calls != calls {
		t.Errorf("10 more documents within certTTL read the store %d more times, want 0", st.calls-calls)
	}

	st.cert = &sello.Certificate{ID: "new", NotBefore: now.Add(-time.Hour), NotAfter: now.Add(48 * time.Hour)}
	now = now.Add(certTTL)
	if c, _ := w.certificate(ctx, "t", sello.EnvTest); c.ID != "new" {
		t.Errorf("certTTL after a new certificate was added: got %s, want new", c.ID)
	}

	// A kept certificate that expires is not used a moment past NotAfter.
	now = st.cert.NotAfter.Add(-time.Second)
	w.certificate(ctx, "t", sello.EnvTest)
	st.cert = nil
	now = now.Add(time.Second)
	if c, err := w.certificate(ctx, "t", sello.EnvTest); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Errorf("at NotAfter: got %v, %v, want NOT_FOUND", c, err)
	}
}
