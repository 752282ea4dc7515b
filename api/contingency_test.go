package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
)

// dgiiStatus reads GET /{env}/estado-dgii with key, checked against the
// contract.
func dgiiStatus(tb testing.TB, f *fixture, key string, env sello.Environment) sello.ReachabilityResource {
	tb.Helper()
	resp, body := call(tb, f, key, "GET", "/"+string(env)+"/estado-dgii", nil)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("estado-dgii: %d %s", resp.StatusCode, body)
	}
	var got struct {
		OK   bool                       `json:"ok"`
		DGII sello.ReachabilityResource `json:"dgii"`
	}
	if err := json.Unmarshal(body, &got); err != nil || !got.OK {
		tb.Fatalf("estado-dgii: %v %s", err, body)
	}
	return got.DGII
}

// TestDGIIStatus reads DGII's state through the API on both engines:
// available, contingency with the tenant's waiting documents and their
// deadline, draining; the scope, the tenant and the environment isolated.
func TestDGIIStatus(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testDGIIStatus(t, mustFixture(t)) })
	t.Run("PostgreSQL", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		testDGIIStatus(t, mustFixtureOn(t, db, func(context.Context) error { return nil }))
	})
}

func testDGIIStatus(t *testing.T, f *fixture) {
	ctx := context.Background()

	got := dgiiStatus(t, f, f.key, sello.EnvTest)
	if got.State != sello.DGIIAvailable || got.Since != nil || got.Waiting != 0 || got.OldestWaiting != nil || got.Deadline != nil {
		t.Fatalf("before anything: %+v", got)
	}

	// DGII fails past a threshold of a nanosecond: contingency.
	for range 2 {
		if _, _, err := f.store.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, time.Nanosecond); err != nil {
			t.Fatal(err)
		}
	}
	first := create(t, f, f.key, sello.EnvTest, testRNC)
	create(t, f, f.key, sello.EnvTest, testRNC)
	got = dgiiStatus(t, f, f.key, sello.EnvTest)
	if got.State != sello.DGIIContingency || got.Since == nil || got.Until != nil || got.FailingSince == nil || got.LastFailure == nil {
		t.Fatalf("in contingency: %+v", got)
	}
	if got.Waiting != 2 || got.OldestWaiting == nil || *got.OldestWaiting != first.CreatedAt {
		t.Fatalf("waiting %d since %v, want 2 since %s", got.Waiting, got.OldestWaiting, first.CreatedAt)
	}
	created, _ := time.Parse(sello.TimeFormat, first.CreatedAt)
	if got.Deadline == nil || *got.Deadline != sello.FormatTime(created.Add(72*time.Hour)) {
		t.Fatalf("deadline %v, want 72 h after %s", got.Deadline, first.CreatedAt)
	}

	t.Run("ErrScope", func(t *testing.T) {
		key := mustKey(t, f, f.tenant.ID, sello.EnvTest, sello.ScopeCreate, sello.ScopeValidate, sello.ScopeStatusRead, sello.ScopeRead)
		resp, body := call(t, f, key, "GET", "/TesteCF/estado-dgii", nil)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeInsufficientScope, "tenant:admin")
	})

	t.Run("Isolation", func(t *testing.T) {
		// Another tenant sees DGII's state, which is the environment's,
		// and none of our documents.
		_, otherKey := mustTenant(t, f, "130000002", sello.EnvTest)
		if got := dgiiStatus(t, f, otherKey, sello.EnvTest); got.State != sello.DGIIContingency || got.Waiting != 0 || got.OldestWaiting != nil {
			t.Fatalf("the other tenant sees %+v, want contingency and nothing waiting", got)
		}
		// Another environment has its own state.
		certKey := mustKey(t, f, f.tenant.ID, sello.EnvCert, sello.ScopeAdmin)
		if got := dgiiStatus(t, f, certKey, sello.EnvCert); got.State != sello.DGIIAvailable || got.Waiting != 0 {
			t.Fatalf("CerteCF: %+v, want available and nothing waiting", got)
		}
		resp, body := call(t, f, f.key, "GET", "/CerteCF/estado-dgii", nil)
		wantCallError(t, resp, body, http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})

	t.Run("Draining", func(t *testing.T) {
		if _, _, err := f.store.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIISucceeded, time.Nanosecond); err != nil {
			t.Fatal(err)
		}
		got := dgiiStatus(t, f, f.key, sello.EnvTest)
		if got.State != sello.DGIIDraining || got.Until == nil || got.FailingSince != nil || got.LastSuccess == nil || got.Waiting != 2 {
			t.Fatalf("draining: %+v", got)
		}
	})
}
