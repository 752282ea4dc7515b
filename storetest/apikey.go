package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testAPIKey(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		expires := time.Date(2027, 1, 2, 3, 4, 5, 678901000, time.UTC)
		k, plaintext := sello.NewAPIKey(tn.ID, sello.EnvCert, "ERP", []sello.Scope{sello.ScopeCreate, sello.ScopeRead}, &expires)
		start := e.clock.Peek()
		if err := e.s.CreateAPIKey(ctx, k); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		if k.ID == "" || !k.CreatedAt.Equal(start) {
			t.Errorf("ID, CreatedAt: got %q, %v; want an id and %v", k.ID, k.CreatedAt, start)
		}
		got, gotTenant, err := e.s.FindAPIKeyByHash(ctx, sello.HashAPIKey(plaintext))
		if err != nil {
			t.Fatalf("FindAPIKeyByHash: %v", err)
		}
		deepEqual(t, "key", got, k)
		deepEqual(t, "tenant", gotTenant, tn)
		if string(got.Hash) != string(k.Hash) {
			t.Errorf("Hash: got %x, want %x", got.Hash, k.Hash)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		_, _, err := e.s.FindAPIKeyByHash(t.Context(), sello.HashAPIKey("sk_testecf_nope"))
		wantError(t, err, sello.CodeNotFound, "API key")
	})
	t.Run("ErrTenantNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		k, _ := sello.NewAPIKey("no-such-tenant", sello.EnvTest, "x", sello.Scopes, nil)
		wantError(t, e.s.CreateAPIKey(t.Context(), k), sello.CodeNotFound, "no-such-tenant")
	})
	t.Run("ErrDuplicateHash", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		k, _ := sello.NewAPIKey(tn.ID, sello.EnvTest, "x", sello.Scopes, nil)
		if err := e.s.CreateAPIKey(t.Context(), k); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		dup := *k
		wantError(t, e.s.CreateAPIKey(t.Context(), &dup), sello.CodeConflict, "API key")
	})
	t.Run("ListNewestFirst", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		var want []string
		for _, name := range []string{"first", "second", "third"} {
			k, _ := sello.NewAPIKey(tn.ID, sello.EnvTest, name, sello.Scopes, nil)
			if err := e.s.CreateAPIKey(ctx, k); err != nil {
				t.Fatalf("CreateAPIKey: %v", err)
			}
			want = append([]string{name}, want...)
		}
		if err := e.s.RevokeAPIKey(ctx, tn.ID, mustKeys(t, e.s, tn.ID)[1].ID, e.clock.Now()); err != nil {
			t.Fatalf("RevokeAPIKey: %v", err)
		}
		var got []string
		for _, k := range mustKeys(t, e.s, tn.ID) {
			got = append(got, k.Name)
		}
		deepEqual(t, "names, revoked included", got, want)
	})
	t.Run("Revoke", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		k, plaintext := sello.NewAPIKey(tn.ID, sello.EnvTest, "pos", sello.Scopes, nil)
		if err := e.s.CreateAPIKey(ctx, k); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		first := e.clock.Now().Truncate(time.Microsecond)
		if err := e.s.RevokeAPIKey(ctx, tn.ID, k.ID, first); err != nil {
			t.Fatalf("RevokeAPIKey: %v", err)
		}
		if err := e.s.RevokeAPIKey(ctx, tn.ID, k.ID, first.Add(time.Hour)); err != nil {
			t.Fatalf("RevokeAPIKey again: %v", err)
		}
		got, _, err := e.s.FindAPIKeyByHash(ctx, sello.HashAPIKey(plaintext))
		if err != nil {
			t.Fatalf("FindAPIKeyByHash: %v", err)
		}
		if got.RevokedAt == nil || !got.RevokedAt.Equal(first) {
			t.Errorf("RevokedAt: got %v, want %v (the first revocation)", got.RevokedAt, first)
		}
		if got.Active(first.Add(time.Second)) {
			t.Error("revoked key is still active")
		}
		wantError(t, e.s.RevokeAPIKey(ctx, tn.ID, "no-such-key", first), sello.CodeNotFound, "no-such-key")
	})
	t.Run("ErrRevokeOtherTenant", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		k, plaintext := sello.NewAPIKey(a.ID, sello.EnvTest, "a", sello.Scopes, nil)
		if err := e.s.CreateAPIKey(ctx, k); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		wantError(t, e.s.RevokeAPIKey(ctx, b.ID, k.ID, e.clock.Now()), sello.CodeNotFound, k.ID)
		got, _, err := e.s.FindAPIKeyByHash(ctx, sello.HashAPIKey(plaintext))
		if err != nil {
			t.Fatalf("FindAPIKeyByHash: %v", err)
		}
		if got.RevokedAt != nil {
			t.Errorf("RevokedAt: got %v, want nil: another tenant revoked the key", got.RevokedAt)
		}
	})
}

func mustKeys(tb testing.TB, s sello.Store, tenantID string) []*sello.APIKey {
	tb.Helper()
	keys, err := s.FindAPIKeys(tb.Context(), tenantID)
	if err != nil {
		tb.Fatalf("FindAPIKeys: %v", err)
	}
	return keys
}
