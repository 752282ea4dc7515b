package storetest

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// newCertificate is a certificate record valid from notBefore to notAfter
// with random bytes for its DER and sealed key (the store never looks
// inside them).
func newCertificate(tenantID string, en sello.Environment, subject string, notBefore, notAfter time.Time) *sello.Certificate {
	der := []byte("0\x82" + rand.Text())
	sum := sha256.Sum256(der)
	return &sello.Certificate{
		TenantID: tenantID, Environment: en,
		Subject: "CN=" + subject + ",O=Comercial Ejemplo SRL,C=DO", Issuer: "CN=Avansi CA,O=Avansi,C=DO",
		SerialNumber: "1234567890123456789", Fingerprint: hex.EncodeToString(sum[:]),
		NotBefore: notBefore, NotAfter: notAfter, SelfSigned: subject == "self",
		DER: der, SealedKey: append([]byte{1, 0, 0xff}, rand.Text()...),
	}
}

// MustAddCertificate stores c and fails the test on error.
func MustAddCertificate(tb testing.TB, s sello.Store, c *sello.Certificate) *sello.Certificate {
	tb.Helper()
	if err := s.AddCertificate(tb.Context(), c); err != nil {
		tb.Fatalf("AddCertificate %s: %v", c.Subject, err)
	}
	return c
}

func mustCertificates(tb testing.TB, s sello.Store, tenantID string, en sello.Environment) []*sello.Certificate {
	tb.Helper()
	cs, err := s.FindCertificates(tb.Context(), tenantID, en)
	if err != nil {
		tb.Fatalf("FindCertificates: %v", err)
	}
	return cs
}

func subjects(cs []*sello.Certificate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Subject
	}
	return out
}

func testCertificates(t *testing.T, open Open) {
	year := 365 * 24 * time.Hour
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		c := newCertificate(tn.ID, sello.EnvTest, "self", now.Add(-time.Hour).Truncate(time.Second), now.Add(year).Truncate(time.Second))
		want := *c
		MustAddCertificate(t, e.s, c)
		if c.ID == "" || c.CreatedAt.Before(now) {
			t.Errorf("ID, CreatedAt: got %q, %v; want an id and the store's time", c.ID, c.CreatedAt)
		}
		want.ID, want.CreatedAt = c.ID, c.CreatedAt
		deepEqual(t, "certificates", mustCertificates(t, e.s, tn.ID, sello.EnvTest), []*sello.Certificate{&want})
	})
	t.Run("NewestFirst", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		for _, s := range []string{"first", "second", "third"} {
			MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, s, now, now.Add(year)))
		}
		got := subjects(mustCertificates(t, e.s, tn.ID, sello.EnvTest))
		for i, s := range []string{"third", "second", "first"} {
			if i >= len(got) || !strings.Contains(got[i], s) {
				t.Fatalf("subjects: got %q, want third, second, first", got)
			}
		}
	})
	t.Run("SigningCertificate", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek().Truncate(time.Second)
		_, err := e.s.FindSigningCertificate(ctx, tn.ID, sello.EnvTest, now)
		wantError(t, err, sello.CodeNotFound, "TesteCF")

		older := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "older", now.Add(-year), now.Add(year)))
		newer := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "newer", now.Add(-time.Hour), now.Add(2*year)))
		MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "expired", now.Add(-3*year), now.Add(-2*year)))
		future := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "future", now.Add(time.Hour), now.Add(3*year)))
		MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvCert, "other environment", now.Add(-year), now.Add(5*year)))

		for _, tc := range []struct {
			at   time.Time
			want *sello.Certificate
		}{
			{now, newer},                      // expired and not-yet-valid skipped, newest valid wins
			{now.Add(-time.Hour), newer},      // NotBefore is valid
			{now.Add(-time.Hour - 1), older},  // just before it
			{now.Add(time.Hour), future},      // future now valid and newest
			{now.Add(3*year - 1), future},     // last instant
			{now.Add(3 * year), nil},          // NotAfter is not valid
			{now.Add(-year - time.Hour), nil}, // before all
		} {
			got, err := e.s.FindSigningCertificate(ctx, tn.ID, sello.EnvTest, tc.at)
			if tc.want == nil {
				if sello.ErrorCodeOf(err) != sello.CodeNotFound {
					t.Errorf("at %v: got %v, %v; want NOT_FOUND", tc.at, got, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("at %v: %v", tc.at, err)
				continue
			}
			deepEqual(t, "signing certificate at "+tc.at.String(), got, tc.want)
		}
	})
	t.Run("ErrDuplicate", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		c := MustAddCertificate(t, e.s, newCertificate(a.ID, sello.EnvTest, "dup", now, now.Add(year)))
		again := *c
		again.ID = ""
		err := e.s.AddCertificate(t.Context(), &again)
		wantError(t, err, sello.CodeConflict, c.Fingerprint)
		if got := mustCertificates(t, e.s, a.ID, sello.EnvTest); len(got) != 1 {
			t.Errorf("certificates: got %d, want 1", len(got))
		}
		// The same certificate in another environment or tenant is another record.
		for _, other := range []struct {
			tenant string
			en     sello.Environment
		}{{a.ID, sello.EnvProd}, {b.ID, sello.EnvTest}} {
			c2 := *c
			c2.ID, c2.TenantID, c2.Environment = "", other.tenant, other.en
			MustAddCertificate(t, e.s, &c2)
		}
	})
	t.Run("ErrNoTenant", func(t *testing.T) {
		e := newEnv(t, open)
		now := e.clock.Peek()
		err := e.s.AddCertificate(t.Context(), newCertificate(sello.NewID(), sello.EnvTest, "orphan", now, now.Add(year)))
		wantError(t, err, sello.CodeNotFound)
	})
	t.Run("WarnOnce", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek().Truncate(time.Millisecond)
		notAfter := time.Date(2026, time.April, 2, 15, 4, 5, 0, time.UTC)
		c := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "expiring", now.Add(-year), notAfter))
		other := MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "other", now.Add(-year), notAfter))

		const goroutines = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		var warned int
		for range goroutines {
			wg.Go(func() {
				ok, err := e.s.WarnCertificateExpiring(ctx, c, now)
				if err != nil {
					t.Errorf("WarnCertificateExpiring: %v", err)
				}
				if ok {
					mu.Lock()
					warned++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if warned != 1 {
			t.Errorf("warned: got %d of %d calls, want exactly 1", warned, goroutines)
		}
		if ok, err := e.s.WarnCertificateExpiring(ctx, c, now.Add(time.Hour)); ok || err != nil {
			t.Errorf("warn again: got %v, %v; want false, nil", ok, err)
		}
		evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 1)
		if len(evs) != 1 {
			t.Fatalf("events: got %d, want 1", len(evs))
		}
		ev := evs[0]
		if ev.Type != sello.EventCertificateExpiring || ev.ID == "" || ev.Document != nil || ev.TenantID != tn.ID ||
			ev.Environment != sello.EnvTest || !ev.CreatedAt.Equal(now) {
			t.Errorf("event: got %+v, want certificate.expiring of %s at %v without a document", ev, tn.ID, now)
		}
		if ev.Data.Severity != "warning" || !strings.Contains(ev.Data.Message, c.Subject) || !strings.Contains(ev.Data.Message, "2026-04-02") {
			t.Errorf("event data: got %+v, want a warning naming %s and 2026-04-02", ev.Data, c.Subject)
		}
		deepEqual(t, "payload", ev.Data.Payload, map[string]any{"certificateId": c.ID, "notAfter": "2026-04-02T15:04:05.000Z", "subject": c.Subject})
		if r := ev.Resource(); r.Document != nil || r.Environment != "testecf" {
			t.Errorf("resource: got %+v", r)
		}
		// Another certificate is warned on its own.
		if ok, err := e.s.WarnCertificateExpiring(ctx, other, now); !ok || err != nil {
			t.Errorf("warn the other: got %v, %v; want true", ok, err)
		}
	})
	t.Run("ErrWarnUnknown", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		c := newCertificate(tn.ID, sello.EnvTest, "never added", now, now.Add(year))
		c.ID = sello.NewID()
		_, err := e.s.WarnCertificateExpiring(t.Context(), c, now)
		wantError(t, err, sello.CodeNotFound, c.ID)
		if evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 0); len(evs) != 0 {
			t.Errorf("events: got %d, want none", len(evs))
		}
	})
}
