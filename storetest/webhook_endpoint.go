package storetest

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookEndpoint(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		ep, err := sello.NewWebhookEndpoint(webhookKey, tn.ID, sello.EnvProd, "https://erp.example.com/hooks?src=sello",
			[]sello.EventType{sello.EventECFAccepted, sello.EventECFRejected}, secretN(1))
		if err != nil {
			t.Fatalf("NewWebhookEndpoint: %v", err)
		}
		if bytes.Contains(ep.Secrets[0].Sealed, []byte(secretN(1))) {
			t.Fatal("the sealed secret contains the plaintext")
		}
		before := e.clock.Peek()
		if err := e.s.CreateWebhookEndpoint(t.Context(), ep); err != nil {
			t.Fatalf("CreateWebhookEndpoint: %v", err)
		}
		if ep.Status != sello.WebhookEndpointActive || ep.CreatedAt.Before(before) || !ep.UpdatedAt.Equal(ep.CreatedAt) ||
			!ep.Secrets[0].CreatedAt.Equal(ep.CreatedAt) {
			t.Errorf("after create: status %q, times %v %v %v; want active at the store's time", ep.Status, ep.CreatedAt, ep.UpdatedAt, ep.Secrets[0].CreatedAt)
		}
		got := mustEndpoint(t, e.s, ep)
		deepEqual(t, "endpoint", got, ep)
		if !slices.Equal(got.Secrets[0].Sealed, ep.Secrets[0].Sealed) {
			t.Error("sealed secret changed in the store")
		}
		secrets, err := got.ActiveSecrets(webhookKey, e.clock.Peek())
		if err != nil || !slices.Equal(secrets, []string{secretN(1)}) {
			t.Errorf("ActiveSecrets: got %q, %v; want the plaintext", secrets, err)
		}
		all, err := e.s.FindWebhookEndpoints(t.Context(), tn.ID, sello.EnvProd)
		if err != nil {
			t.Fatalf("FindWebhookEndpoints: %v", err)
		}
		deepEqual(t, "endpoints", all, []*sello.WebhookEndpoint{ep})
		if other, err := e.s.FindWebhookEndpoints(t.Context(), tn.ID, sello.EnvTest); err != nil || len(other) != 0 {
			t.Errorf("FindWebhookEndpoints in TesteCF: got %d, %v; want none", len(other), err)
		}
	})
	// FindByID: the endpoint of any tenant, with its TenantID, as
	// FindWebhookEndpoint reads it.
	t.Run("FindByID", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		for _, ep := range []*sello.WebhookEndpoint{
			MustCreateWebhookEndpoint(t, e.s, a.ID, sello.EnvTest),
			MustCreateWebhookEndpoint(t, e.s, b.ID, sello.EnvProd, sello.EventECFAccepted),
		} {
			got, err := e.s.FindWebhookEndpointByID(t.Context(), ep.ID)
			if err != nil {
				t.Fatalf("FindWebhookEndpointByID: %v", err)
			}
			deepEqual(t, "endpoint by id", got, mustEndpoint(t, e.s, ep))
		}
	})
	t.Run("SecretBoundToRow", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		a := MustCreateWebhookEndpoint(t, e.s, tn.ID, sello.EnvTest)
		b := MustCreateWebhookEndpoint(t, e.s, tn.ID, sello.EnvTest)
		moved := mustEndpoint(t, e.s, b)
		moved.Secrets = mustEndpoint(t, e.s, a).Secrets
		if _, err := moved.ActiveSecrets(webhookKey, e.clock.Peek()); err == nil {
			t.Error("a sealed secret opened on another endpoint")
		}
		other, _ := sello.NewMasterKey(bytes.Repeat([]byte{8}, 32))
		if _, err := mustEndpoint(t, e.s, a).ActiveSecrets(other, e.clock.Peek()); err == nil {
			t.Error("a sealed secret opened with another master key")
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		for _, tc := range []struct {
			name   string
			env    sello.Environment
			url    string
			events []sello.EventType
			secret string
			msg    string
		}{
			{"ShortSecret", sello.EnvTest, "https://a.example", nil, strings.Repeat("x", 31), "at least 32"},
			{"SpaceInSecret", sello.EnvTest, "https://a.example", nil, strings.Repeat("x", 31) + " ", "printable"},
			{"NoURL", sello.EnvTest, "", nil, secretN(0), "required"},
			{"FTP", sello.EnvTest, "ftp://a.example/x", nil, secretN(0), "https"},
			{"HTTPInProduction", sello.EnvProd, "http://a.example/x", nil, secretN(0), "https:// in production"},
			{"Credentials", sello.EnvTest, "https://u:p@a.example/x", nil, secretN(0), "user name or password"},
			{"NoHost", sello.EnvTest, "https:///x", nil, secretN(0), "host"},
			{"UnknownEvent", sello.EnvTest, "https://a.example", []sello.EventType{"ecf.exploded"}, secretN(0), "ecf.exploded"},
			{"UnknownEnvironment", "prod", "https://a.example", nil, secretN(0), "prod"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := sello.NewWebhookEndpoint(webhookKey, tn.ID, tc.env, tc.url, tc.events, tc.secret)
				wantError(t, err, sello.CodeInvalidRequest, tc.msg)
			})
		}
		// http is allowed outside production (local receivers in TesteCF).
		if _, err := sello.NewWebhookEndpoint(webhookKey, tn.ID, sello.EnvTest, "http://localhost:8080/x", nil, secretN(0)); err != nil {
			t.Errorf("http in TesteCF: %v", err)
		}
		ep, _ := sello.NewWebhookEndpoint(webhookKey, tn.ID, sello.EnvTest, "https://a.example", nil, secretN(0))
		noSecret := *ep
		noSecret.Secrets = nil
		wantError(t, e.s.CreateWebhookEndpoint(t.Context(), &noSecret), sello.CodeInvalidRequest, "secret")
		noID := *ep
		noID.ID = ""
		wantError(t, e.s.CreateWebhookEndpoint(t.Context(), &noID), sello.CodeInvalidRequest, "id")
		if got, _ := e.s.FindWebhookEndpoints(t.Context(), tn.ID, sello.EnvTest); len(got) != 0 {
			t.Errorf("endpoints after refused creates: got %d, want none", len(got))
		}
	})
	t.Run("ErrNoTenant", func(t *testing.T) {
		e := newEnv(t, open)
		ep, _ := sello.NewWebhookEndpoint(webhookKey, sello.NewID(), sello.EnvTest, "https://a.example", nil, secretN(0))
		wantError(t, e.s.CreateWebhookEndpoint(t.Context(), ep), sello.CodeNotFound)
	})
	t.Run("ErrDuplicate", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		ep := MustCreateWebhookEndpoint(t, e.s, tn.ID, sello.EnvTest)
		again := *ep
		wantError(t, e.s.CreateWebhookEndpoint(t.Context(), &again), sello.CodeConflict, ep.ID)
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		id := sello.NewID()
		_, err := e.s.FindWebhookEndpoint(t.Context(), tn.ID, id)
		wantError(t, err, sello.CodeNotFound, id)
		_, err = e.s.FindWebhookEndpointByID(t.Context(), id)
		wantError(t, err, sello.CodeNotFound, id)
	})
}

func testWebhookRotate(t *testing.T, open Open) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	now := w.clock.Peek().Add(time.Second)
	active := func(at time.Time) []string {
		t.Helper()
		s, err := mustEndpoint(t, w.s, ep).ActiveSecrets(webhookKey, at)
		if err != nil {
			t.Fatalf("ActiveSecrets: %v", err)
		}
		return s
	}
	rotate := func(n int, overlap time.Duration, at time.Time) {
		t.Helper()
		s, err := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(n))
		if err != nil {
			t.Fatalf("NewWebhookSecret: %v", err)
		}
		if err := w.s.RotateWebhookSecret(ctx, w.tn.ID, ep.ID, s, overlap, at); err != nil {
			t.Fatalf("RotateWebhookSecret: %v", err)
		}
	}
	rotate(1, 24*time.Hour, now)
	deepEqual(t, "secrets during the overlap", active(now), []string{secretN(1), secretN(0)})
	deepEqual(t, "secrets at its last instant", active(now.Add(24*time.Hour-time.Microsecond)), []string{secretN(1), secretN(0)})
	deepEqual(t, "secrets after the overlap", active(now.Add(24*time.Hour)), []string{secretN(1)})

	// A second rotation within the overlap shortens nothing it need not:
	// secret 0 keeps its expiry, secret 1 expires an hour later.
	later := now.Add(time.Hour)
	rotate(2, 24*time.Hour, later)
	deepEqual(t, "secrets after two rotations", active(later), []string{secretN(2), secretN(1), secretN(0)})
	deepEqual(t, "secrets after the first overlap", active(now.Add(24*time.Hour)), []string{secretN(2), secretN(1)})

	// Overlap 0: only the new secret signs, and expired secrets are gone.
	end := now.Add(30 * time.Hour)
	rotate(3, 0, end)
	deepEqual(t, "secrets after a rotation without overlap", active(end), []string{secretN(3)})
	if got := mustEndpoint(t, w.s, ep).Secrets; len(got) != 1 {
		t.Errorf("stored secrets: got %d, want 1 (expired ones deleted)", len(got))
	}

	s, _ := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(4))
	wantError(t, w.s.RotateWebhookSecret(ctx, w.tn.ID, ep.ID, s, -time.Second, end), sello.CodeInvalidRequest, "negative")
	wantError(t, w.s.RotateWebhookSecret(ctx, w.tn.ID, ep.ID, sello.WebhookSecret{}, 0, end), sello.CodeInvalidRequest)
	wantError(t, w.s.RotateWebhookSecret(ctx, w.tn.ID, "no-such-endpoint", s, 0, end), sello.CodeNotFound, "no-such-endpoint")
	deepEqual(t, "secrets after refused rotations", active(end), []string{secretN(3)})
}
