package sello_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
)

// TestIssueAPIKey: the rules the CLI and the portal share when they issue
// a key, each refusal with its code and message; a key issued works
// through its last day in the Dominican Republic.
func TestIssueAPIKey(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "sello.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tenant := &sello.Tenant{RNC: "130000001", Name: "Prueba SRL", Plan: sello.DefaultRatePlan}
	if err := db.CreateTenant(t.Context(), tenant); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 23, 30, 0, 0, sello.DRZone)
	today, yesterday := sello.TodayInDR(now), sello.TodayInDR(now.AddDate(0, 0, -1))
	for _, tt := range []struct {
		name string
		req  sello.APIKeyRequest
		code sello.ErrorCode
		msg  string
	}{
		{"ErrEnvironment", sello.APIKeyRequest{Environment: "Prod", Scopes: []sello.Scope{sello.ScopeCreate}}, sello.CodeInvalidRequest, `Unknown environment "Prod"`},
		{"ErrNoScope", sello.APIKeyRequest{Environment: sello.EnvTest}, sello.CodeInvalidRequest, "A key needs at least one scope: ecf:validate,ecf:create,ecf:read,status:read,tenant:admin."},
		{"ErrScope", sello.APIKeyRequest{Environment: sello.EnvTest, Scopes: []sello.Scope{"ecf:delete"}}, sello.CodeInvalidRequest, `Unknown scope "ecf:delete"`},
		{"ErrName", sello.APIKeyRequest{Environment: sello.EnvTest, Scopes: []sello.Scope{sello.ScopeCreate}, Name: strings.Repeat("ñ", 101)}, sello.CodeInvalidRequest, "at most 100 characters (got 101)"},
		{"ErrExpired", sello.APIKeyRequest{Environment: sello.EnvTest, Scopes: []sello.Scope{sello.ScopeCreate}, ExpiresOn: &yesterday}, sello.CodeInvalidRequest, "Expiry " + yesterday.String() + " is in the past."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := sello.IssueAPIKey(t.Context(), db, tenant.ID, tt.req, now)
			if sello.ErrorCodeOf(err) != tt.code || !strings.Contains(sello.ErrorMessageOf(err), tt.msg) {
				t.Errorf("got %v, want %s saying %q", err, tt.code, tt.msg)
			}
		})
	}
	if keys, _ := db.FindAPIKeys(t.Context(), tenant.ID); len(keys) != 0 {
		t.Fatalf("refused requests stored %d keys", len(keys))
	}

	t.Run("OK", func(t *testing.T) {
		k, plaintext, err := sello.IssueAPIKey(t.Context(), db, tenant.ID, sello.APIKeyRequest{
			Environment: sello.EnvProd, Name: "  ERP  ", Scopes: []sello.Scope{sello.ScopeRead, sello.ScopeCreate, sello.ScopeRead}, ExpiresOn: &today,
		}, now)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(plaintext, "sk_ecf_") || k.Name != "ERP" || sello.JoinScopes(k.Scopes) != "ecf:read,ecf:create" {
			t.Errorf("key %+v, %s", k, plaintext)
		}
		// Through the last day, Dominican time: until midnight, 04:00 UTC.
		if want := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC); k.ExpiresAt == nil || !k.ExpiresAt.Equal(want) {
			t.Errorf("expires %v, want %v", k.ExpiresAt, want)
		}
		got, _, err := db.FindAPIKeyByHash(t.Context(), sello.HashAPIKey(plaintext))
		if err != nil || got.ID != k.ID {
			t.Errorf("stored %+v, %v", got, err)
		}
	})
}

// TestRotateAPIKey: the new key of a rotation has the old one's
// environment, name, scopes and expiry, and a plaintext of its own; the
// old key stays active. A revoked key, or another tenant's, has none.
func TestRotateAPIKey(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "sello.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var tenants []*sello.Tenant
	for _, rnc := range []string{"130000001", "130000002"} {
		tn := &sello.Tenant{RNC: rnc, Name: "Prueba SRL", Plan: sello.DefaultRatePlan}
		if err := db.CreateTenant(t.Context(), tn); err != nil {
			t.Fatal(err)
		}
		tenants = append(tenants, tn)
	}
	now := time.Now()
	last := sello.TodayInDR(now.AddDate(1, 0, 0))
	old, oldPlain, err := sello.IssueAPIKey(t.Context(), db, tenants[0].ID, sello.APIKeyRequest{
		Environment: sello.EnvCert, Name: "Tienda", Scopes: []sello.Scope{sello.ScopeValidate, sello.ScopeStatusRead}, ExpiresOn: &last}, now)
	if err != nil {
		t.Fatal(err)
	}
	nw, plain, err := sello.RotateAPIKey(t.Context(), db, tenants[0].ID, old.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	if nw.ID == old.ID || plain == oldPlain || nw.Environment != old.Environment || nw.Name != old.Name ||
		sello.JoinScopes(nw.Scopes) != sello.JoinScopes(old.Scopes) || !nw.ExpiresAt.Equal(*old.ExpiresAt) {
		t.Errorf("new key %+v from old %+v", nw, old)
	}
	if got, err := db.FindAPIKey(t.Context(), tenants[0].ID, old.ID); err != nil || !got.Active(now) {
		t.Errorf("the old key after the rotation: %+v, %v", got, err)
	}
	if _, _, err := sello.RotateAPIKey(t.Context(), db, tenants[1].ID, old.ID, now); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Errorf("another tenant's key: %v, want NOT_FOUND", err)
	}
	if err := db.RevokeAPIKey(t.Context(), tenants[0].ID, old.ID, now); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sello.RotateAPIKey(t.Context(), db, tenants[0].ID, old.ID, now); sello.ErrorCodeOf(err) != sello.CodeConflict ||
		!strings.Contains(sello.ErrorMessageOf(err), "is revoked or expired: there is nothing to rotate") {
		t.Errorf("a revoked key: %v, want CONFLICT", err)
	}
}
