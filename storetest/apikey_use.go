package storetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testAPIKeyUse: a key's first and last use and its address, written at
// most once per interval, the first never overwritten; APIKeyUses in
// front of the store; and the rotation check that reads them.
func testAPIKeyUse(t *testing.T, open Open) {
	const every = time.Minute
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		k, plaintext := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp")
		if got := mustKeyByHash(t, e.s, plaintext); got.FirstUsedAt != nil || got.LastUsedAt != nil || got.LastUsedAddress != "" {
			t.Fatalf("a new key: used %v, %v from %q; want never", got.FirstUsedAt, got.LastUsedAt, got.LastUsedAddress)
		}
		t1 := e.clock.Now().Truncate(time.Microsecond)
		mustRecordUse(t, e.s, tn.ID, k.ID, t1, "192.0.2.10", every, true)
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t1, t1, "192.0.2.10")

		// Within the interval: nothing changes, the address neither.
		mustRecordUse(t, e.s, tn.ID, k.ID, t1.Add(every-time.Microsecond), "192.0.2.11", every, false)
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t1, t1, "192.0.2.10")

		// A full interval later: the last use moves, the first stays.
		t2 := t1.Add(every)
		mustRecordUse(t, e.s, tn.ID, k.ID, t2, "2001:db8::7", every, true)
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t1, t2, "2001:db8::7")

		// A node whose clock is behind never moves it back.
		mustRecordUse(t, e.s, tn.ID, k.ID, t1.Add(-time.Hour), "192.0.2.12", every, false)
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t1, t2, "2001:db8::7")

		// Every read shows the same.
		got, err := e.s.FindAPIKey(ctx, tn.ID, k.ID)
		if err != nil {
			t.Fatalf("FindAPIKey: %v", err)
		}
		wantUse(t, got, t1, t2, "2001:db8::7")
		wantUse(t, mustKeys(t, e.s, tn.ID)[0], t1, t2, "2001:db8::7")
	})
	t.Run("FirstUseNeverOverwritten", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		k, plaintext := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp")
		t1 := e.clock.Now().Truncate(time.Microsecond)
		mustRecordUse(t, e.s, tn.ID, k.ID, t1, "192.0.2.10", 0, true)
		// No interval at all: every later use writes, the first stays.
		for i := range 3 {
			at := t1.Add(time.Duration(i+1) * time.Second)
			mustRecordUse(t, e.s, tn.ID, k.ID, at, "192.0.2.20", 0, true)
			wantUse(t, mustKeyByHash(t, e.s, plaintext), t1, at, "192.0.2.20")
		}
	})
	t.Run("ConcurrentFirstUse", func(t *testing.T) {
		// Sixteen nodes see the key's first use at once: one writes.
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		k, plaintext := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp")
		t0 := e.clock.Now().Truncate(time.Microsecond)
		var wrote atomic.Int32
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				ok, err := e.s.RecordAPIKeyUse(t.Context(), tn.ID, k.ID, t0.Add(time.Duration(i)*time.Millisecond), "192.0.2.1", every)
				if err != nil {
					t.Errorf("RecordAPIKeyUse: %v", err)
				} else if ok {
					wrote.Add(1)
				}
			})
		}
		wg.Wait()
		if n := wrote.Load(); n != 1 {
			t.Fatalf("%d of 16 concurrent first uses wrote, want 1", n)
		}
		got := mustKeyByHash(t, e.s, plaintext)
		if got.FirstUsedAt == nil || !got.FirstUsedAt.Equal(*got.LastUsedAt) {
			t.Errorf("first use %v, last %v: want one write setting both", got.FirstUsedAt, got.LastUsedAt)
		}
	})
	t.Run("ErrOtherTenant", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		k, plaintext := mustCreateKey(t, e.s, a.ID, sello.EnvTest, "a")
		mustRecordUse(t, e.s, b.ID, k.ID, e.clock.Now(), "192.0.2.66", every, false)
		if got := mustKeyByHash(t, e.s, plaintext); got.FirstUsedAt != nil || got.LastUsedAddress != "" {
			t.Errorf("another tenant recorded a use of A's key: %v from %q", got.FirstUsedAt, got.LastUsedAddress)
		}
		_, err := e.s.FindAPIKey(ctx, b.ID, k.ID)
		wantError(t, err, sello.CodeNotFound, k.ID)
		_, err = e.s.FindAPIKey(ctx, a.ID, "no-such-key")
		wantError(t, err, sello.CodeNotFound, "no-such-key")
	})
	t.Run("Uses", func(t *testing.T) {
		// Two processes (two APIKeyUses) in front of one store: each
		// writes once per interval at most, the store's condition keeps
		// the second from writing again.
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		_, plaintext := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp")
		cs := &countingStore{Store: e.s}
		var node1, node2 sello.APIKeyUses
		stale := mustKeyByHash(t, e.s, plaintext) // as both nodes read it before the first use
		t0 := e.clock.Now().Truncate(time.Microsecond)
		for i := range 100 {
			if err := node1.Record(ctx, cs, stale, t0.Add(time.Duration(i)*time.Millisecond), "192.0.2.1"); err != nil {
				t.Fatalf("Record: %v", err)
			}
		}
		if got := cs.calls.Load(); got != 1 {
			t.Fatalf("node 1: %d writes for 100 uses within the interval, want 1", got)
		}
		if err := node2.Record(ctx, cs, stale, t0.Add(time.Second), "192.0.2.2"); err != nil {
			t.Fatalf("Record: %v", err)
		}
		if got := cs.wrote.Load(); got != 1 {
			t.Fatalf("node 2 wrote over node 1 within the interval (%d rows written)", got)
		}
		// A node that reads the row after the write does not even try.
		fresh := mustKeyByHash(t, e.s, plaintext)
		var node3 sello.APIKeyUses
		if err := node3.Record(ctx, cs, fresh, t0.Add(2*time.Second), "192.0.2.3"); err != nil {
			t.Fatalf("Record: %v", err)
		}
		if got := cs.calls.Load(); got != 2 {
			t.Fatalf("%d calls to the store, want 2 (node 3 read a use less than an interval old)", got)
		}
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t0, t0, "192.0.2.1")
		// An interval later, node 1 writes again.
		t1 := t0.Add(sello.APIKeyUseInterval)
		if err := node1.Record(ctx, cs, fresh, t1, "192.0.2.4"); err != nil {
			t.Fatalf("Record: %v", err)
		}
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t0, t1, "192.0.2.4")
	})
	t.Run("UsesRetryAfterError", func(t *testing.T) {
		// A write that failed is tried again by the next request, within
		// the interval.
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		k, plaintext := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp")
		cs := &countingStore{Store: e.s}
		cs.fail.Store(true)
		var u sello.APIKeyUses
		t0 := e.clock.Now().Truncate(time.Microsecond)
		if err := u.Record(ctx, cs, k, t0, "192.0.2.1"); err == nil {
			t.Fatal("Record: got no error from a failing store")
		}
		cs.fail.Store(false)
		if err := u.Record(ctx, cs, k, t0.Add(time.Second), "192.0.2.1"); err != nil {
			t.Fatalf("Record: %v", err)
		}
		wantUse(t, mustKeyByHash(t, e.s, plaintext), t0.Add(time.Second), t0.Add(time.Second), "192.0.2.1")
	})
	t.Run("Rotation", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		old, _ := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp 2026")
		t0 := e.clock.Now().Truncate(time.Microsecond)
		mustRecordUse(t, e.s, tn.ID, old.ID, t0, "192.0.2.10", every, true)
		nw, _ := mustCreateKey(t, e.s, tn.ID, sello.EnvTest, "erp 2027")
		check := func(now time.Time, want sello.APIKeyRotationState) *sello.APIKeyRotation {
			t.Helper()
			r, err := sello.CheckAPIKeyRotation(ctx, e.s, tn.ID, old.ID, nw.ID, now)
			if err != nil {
				t.Fatalf("CheckAPIKeyRotation: %v", err)
			}
			if r.State != want {
				t.Fatalf("state at %v: got %s, want %s", now, r.State, want)
			}
			return r
		}
		// 1. The new key exists; the clients still send the old one.
		r := check(t0.Add(time.Minute), sello.RotationNewUnused)
		if r.NewInUse || r.Old.LastUsedAt == nil || !r.Old.LastUsedAt.Equal(t0) || r.Old.LastUsedAddress != "192.0.2.10" {
			t.Fatalf("before the switch: new in use %v, old last used %v from %q", r.NewInUse, r.Old.LastUsedAt, r.Old.LastUsedAddress)
		}
		// 2. One client switches; another still sends the old key.
		t1 := t0.Add(10 * time.Minute)
		mustRecordUse(t, e.s, tn.ID, nw.ID, t1, "192.0.2.10", every, true)
		mustRecordUse(t, e.s, tn.ID, old.ID, t1.Add(time.Second), "192.0.2.20", every, true)
		r = check(t1.Add(time.Minute), sello.RotationOldInUse)
		if !r.NewInUse || !r.New.FirstUsedAt.Equal(t1) || !r.OldUsedSinceNew || r.Old.LastUsedAddress != "192.0.2.20" {
			t.Fatalf("mid-switch: %+v; want the new key in use since %v and the old one used after, from 192.0.2.20", r, t1)
		}
		// 3. The old key has been quiet for long enough.
		r = check(t1.Add(time.Second+sello.APIKeyRotationQuiet), sello.RotationReady)
		if !r.OldUsedSinceNew {
			t.Error("OldUsedSinceNew: got false; the old key was used after the new one's first use")
		}
		// 4. Revoked.
		if err := e.s.RevokeAPIKey(ctx, tn.ID, old.ID, t1.Add(time.Hour)); err != nil {
			t.Fatalf("RevokeAPIKey: %v", err)
		}
		check(t1.Add(time.Hour+time.Second), sello.RotationDone)
	})
	t.Run("ErrRotation", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		old, _ := mustCreateKey(t, e.s, a.ID, sello.EnvTest, "old")
		nw, _ := mustCreateKey(t, e.s, a.ID, sello.EnvTest, "new")
		cert, _ := mustCreateKey(t, e.s, a.ID, sello.EnvCert, "cert")
		other, _ := mustCreateKey(t, e.s, b.ID, sello.EnvTest, "b's")
		now := e.clock.Now()
		_, err := sello.CheckAPIKeyRotation(ctx, e.s, b.ID, old.ID, nw.ID, now)
		wantError(t, err, sello.CodeNotFound, old.ID)
		_, err = sello.CheckAPIKeyRotation(ctx, e.s, a.ID, old.ID, other.ID, now)
		wantError(t, err, sello.CodeNotFound, other.ID)
		_, err = sello.CheckAPIKeyRotation(ctx, e.s, a.ID, old.ID, old.ID, now)
		wantError(t, err, sello.CodeInvalidRequest, "itself")
		_, err = sello.CheckAPIKeyRotation(ctx, e.s, a.ID, old.ID, cert.ID, now)
		wantError(t, err, sello.CodeInvalidRequest, "CerteCF", "TesteCF")
		if err := e.s.RevokeAPIKey(ctx, a.ID, nw.ID, now); err != nil {
			t.Fatalf("RevokeAPIKey: %v", err)
		}
		_, err = sello.CheckAPIKeyRotation(ctx, e.s, a.ID, old.ID, nw.ID, now.Add(time.Second))
		wantError(t, err, sello.CodeInvalidRequest, "revoked")
	})
}

// countingStore counts the calls to RecordAPIKeyUse that reach the store
// and the rows they wrote; fail stands for a database that is away.
type countingStore struct {
	sello.Store
	calls, wrote atomic.Int32
	// fail makes RecordAPIKeyUse fail without reaching the store.
	fail atomic.Bool
}

func (s *countingStore) RecordAPIKeyUse(ctx context.Context, tenantID, keyID string, at time.Time, addr string, every time.Duration) (bool, error) {
	s.calls.Add(1)
	if s.fail.Load() {
		return false, errors.New("the database is away")
	}
	ok, err := s.Store.RecordAPIKeyUse(ctx, tenantID, keyID, at, addr, every)
	if ok {
		s.wrote.Add(1)
	}
	return ok, err
}

func mustCreateKey(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, name string) (*sello.APIKey, string) {
	tb.Helper()
	k, plaintext := sello.NewAPIKey(tenantID, env, name, sello.Scopes, nil)
	if err := s.CreateAPIKey(tb.Context(), k); err != nil {
		tb.Fatalf("CreateAPIKey: %v", err)
	}
	return k, plaintext
}

func mustKeyByHash(tb testing.TB, s sello.Store, plaintext string) *sello.APIKey {
	tb.Helper()
	k, _, err := s.FindAPIKeyByHash(tb.Context(), sello.HashAPIKey(plaintext))
	if err != nil {
		tb.Fatalf("FindAPIKeyByHash: %v", err)
	}
	return k
}

func mustRecordUse(tb testing.TB, s sello.Store, tenantID, keyID string, at time.Time, addr string, every time.Duration, want bool) {
	tb.Helper()
	got, err := s.RecordAPIKeyUse(tb.Context(), tenantID, keyID, at, addr, every)
	if err != nil {
		tb.Fatalf("RecordAPIKeyUse: %v", err)
	} else if got != want {
		tb.Fatalf("RecordAPIKeyUse at %v from %s: wrote %v, want %v", at, addr, got, want)
	}
}

func wantUse(tb testing.TB, k *sello.APIKey, first, last time.Time, addr string) {
	tb.Helper()
	if k.FirstUsedAt == nil || !k.FirstUsedAt.Equal(first) || k.LastUsedAt == nil || !k.LastUsedAt.Equal(last) || k.LastUsedAddress != addr {
		tb.Errorf("key %s: first used %v, last %v from %q; want %v, %v from %q", k.Name, k.FirstUsedAt, k.LastUsedAt, k.LastUsedAddress, first, last, addr)
	}
}
