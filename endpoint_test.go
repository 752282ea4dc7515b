package sello_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func mustMasterKey(tb testing.TB, b byte) *sello.MasterKey {
	tb.Helper()
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	return mk
}

func TestWebhookSecret(t *testing.T) {
	mk := mustMasterKey(t, 1)
	t.Run("Generated", func(t *testing.T) {
		a, b := sello.GenerateWebhookSecret(), sello.GenerateWebhookSecret()
		if a == b || !strings.HasPrefix(a, sello.WebhookSecretPrefix) || len(a) != len(sello.WebhookSecretPrefix)+43 {
			t.Errorf("GenerateWebhookSecret: %q, %q", a, b)
		}
		if err := sello.CheckWebhookSecret(a); err != nil {
			t.Errorf("a generated secret is refused: %v", err)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) {
		plain := strings.Repeat("k", 32)
		s, err := sello.NewWebhookSecret(mk, "ep-1", plain)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID == "" || bytes.Contains(s.Sealed, []byte(plain)) {
			t.Fatalf("sealed secret: %+v", s)
		}
		got, err := mk.Open(s.Sealed, sello.WebhookSecretAAD("ep-1", s.ID))
		if err != nil || string(got) != plain {
			t.Errorf("Open: %q, %v", got, err)
		}
		if _, err := mk.Open(s.Sealed, sello.WebhookSecretAAD("ep-2", s.ID)); err == nil {
			t.Error("the secret opened for another endpoint")
		}
		if _, err := mk.Open(s.Sealed, sello.WebhookSecretAAD("ep-1", "other")); err == nil {
			t.Error("the secret opened under another id")
		}
	})
	t.Run("ErrTooShort", func(t *testing.T) {
		_, err := sello.NewWebhookSecret(mk, "ep-1", strings.Repeat("k", 31))
		wantCode(t, err, sello.CodeInvalidRequest, "at least 32 characters, not 31")
	})
	t.Run("ErrTooLong", func(t *testing.T) {
		_, err := sello.NewWebhookSecret(mk, "ep-1", strings.Repeat("k", 257))
		wantCode(t, err, sello.CodeInvalidRequest, "at most 256")
	})
	t.Run("ErrNotPrintable", func(t *testing.T) {
		for _, s := range []string{strings.Repeat("k", 32) + "\n", strings.Repeat("ñ", 20), strings.Repeat("k", 16) + " " + strings.Repeat("k", 16)} {
			wantCode(t, sello.CheckWebhookSecret(s), sello.CodeInvalidRequest, "printable")
		}
	})
	t.Run("ErrNoEndpoint", func(t *testing.T) {
		_, err := sello.NewWebhookSecret(mk, "", strings.Repeat("k", 32))
		wantCode(t, err, sello.CodeInvalidRequest, "Endpoint id")
	})
}

// wantCode fails unless err has code and a message containing msg.
func wantCode(tb testing.TB, err error, code sello.ErrorCode, msg string) {
	tb.Helper()
	if got := sello.ErrorCodeOf(err); got != code {
		tb.Fatalf("code: got %q (%v), want %q", got, err, code)
	}
	if !strings.Contains(sello.ErrorMessageOf(err), msg) {
		tb.Errorf("message %q: want it to contain %q", sello.ErrorMessageOf(err), msg)
	}
}

func TestActiveSecrets(t *testing.T) {
	mk := mustMasterKey(t, 2)
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ep := &sello.WebhookEndpoint{ID: "ep-1"}
	add := func(plain string, created time.Time, expires *time.Time) {
		s, err := sello.NewWebhookSecret(mk, ep.ID, plain)
		if err != nil {
			t.Fatal(err)
		}
		s.CreatedAt, s.ExpiresAt = created, expires
		ep.Secrets = append(ep.Secrets, s)
	}
	expired, later := now, now.Add(time.Hour)
	add(strings.Repeat("a", 32), now.Add(-48*time.Hour), &expired) // expires exactly now: skipped
	add(strings.Repeat("c", 32), now.Add(-time.Minute), nil)       // newest
	add(strings.Repeat("b", 32), now.Add(-24*time.Hour), &later)   // overlapping
	got, err := ep.ActiveSecrets(mk, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{strings.Repeat("c", 32), strings.Repeat("b", 32)}; !slices.Equal(got, want) {
		t.Errorf("ActiveSecrets: got %q, want %q", got, want)
	}
	if got, _ := ep.ActiveSecrets(mk, later); len(got) != 1 {
		t.Errorf("ActiveSecrets after the overlap: got %d, want 1", len(got))
	}
	if got := ep.SigningSecrets(now); len(got) != 2 || got[0].ID != ep.Secrets[1].ID || got[1].ID != ep.Secrets[2].ID {
		t.Errorf("SigningSecrets: got %d secrets, want the newest and the overlapping one", len(got))
	}
	if _, err := ep.ActiveSecrets(mustMasterKey(t, 3), now); err == nil {
		t.Error("ActiveSecrets with another master key: got no error")
	}
	if got, err := (&sello.WebhookEndpoint{}).ActiveSecrets(mk, now); err != nil || len(got) != 0 {
		t.Errorf("no secrets: got %q, %v", got, err)
	}
}

func TestWebhookEndpointSubscribes(t *testing.T) {
	all := &sello.WebhookEndpoint{}
	some := &sello.WebhookEndpoint{Events: []sello.EventType{sello.EventECFAccepted, sello.EventECFRejected}}
	for _, tc := range []struct {
		e    *sello.WebhookEndpoint
		t    sello.EventType
		want bool
	}{
		{all, sello.EventECFQueued, true},
		{all, sello.EventWebhookEndpointDisabled, true},
		{some, sello.EventECFAccepted, true},
		{some, sello.EventECFRejected, true},
		{some, sello.EventECFQueued, false},
		{some, sello.EventWebhookEndpointTest, false},
	} {
		if got := tc.e.Subscribes(tc.t); got != tc.want {
			t.Errorf("%v subscribes to %s: got %v", tc.e.Events, tc.t, got)
		}
	}
}

func TestWebhookEventTypes(t *testing.T) {
	// DESIGN §5's 15, issue 12's inbound.approval.sent and .failed,
	// issue 13's void.updated, dgii.unavailable and dgii.available, and
	// issue 20's ecf.commercial_approval.disputed.
	if len(sello.WebhookEventTypes) != 23 {
		t.Errorf("WebhookEventTypes: got %d, want the 15 of DESIGN §5, the 2 of issue 12, void.updated, the 2 of contingency, ecf.commercial_approval.disputed and the 2 of DGII's confirmation of inbound documents", len(sello.WebhookEventTypes))
	}
	if !slices.Contains(sello.WebhookEventTypes, sello.EventECFCommercialApprovalDisputed) {
		t.Error("ecf.commercial_approval.disputed must be subscribable")
	}
	if !slices.Contains(sello.WebhookEventTypes, sello.EventVoidUpdated) {
		t.Error("void.updated must be subscribable")
	}
	if slices.Contains(sello.WebhookEventTypes, sello.EventWebhookEndpointTest) {
		t.Error("the test event type must not be subscribable")
	}
}

func TestNewWebhookEndpoint(t *testing.T) {
	mk := mustMasterKey(t, 4)
	ep, err := sello.NewWebhookEndpoint(mk, "tn", sello.EnvProd, "https://erp.example.com:8443/hooks/sello?x=1", nil, strings.Repeat("s", 40))
	if err != nil {
		t.Fatal(err)
	}
	if ep.ID == "" || ep.Status != sello.WebhookEndpointActive || len(ep.Secrets) != 1 {
		t.Fatalf("endpoint: %+v", ep)
	}
	got, err := ep.ActiveSecrets(mk, time.Now())
	if err != nil || !slices.Equal(got, []string{strings.Repeat("s", 40)}) {
		t.Errorf("ActiveSecrets: %q, %v", got, err)
	}
	for _, tc := range []struct {
		env sello.Environment
		url string
		msg string
	}{
		{sello.EnvProd, "http://erp.example.com/x", "https:// in production"},
		{sello.EnvTest, "ws://erp.example.com/x", "https://"},
		{sello.EnvTest, "erp.example.com/x", "https://"},
		{sello.EnvTest, "https://erp.example.com/x#frag", "fragment"},
		{sello.EnvTest, "https://user@erp.example.com/x", "user name or password"},
		{sello.EnvTest, "https://:443/x", "host"},
		{sello.EnvTest, "https://erp.example.com/" + strings.Repeat("x", 2048), "2048"},
		{sello.EnvTest, "https://erp example.com/", "not a valid URL"},
		{sello.EnvProd, "https://127。0。0。1/", "ASCII"},
		{sello.EnvTest, "https://bücher.example/", "ASCII"},
	} {
		_, err := sello.NewWebhookEndpoint(mk, "tn", tc.env, tc.url, nil, strings.Repeat("s", 40))
		wantCode(t, err, sello.CodeInvalidRequest, tc.msg)
	}
	bad := &sello.WebhookEndpoint{TenantID: "tn", Environment: sello.EnvTest, URL: "https://a.example", Status: "broken"}
	wantCode(t, bad.Check(), sello.CodeInvalidRequest, "broken")
	bad.Status, bad.TenantID = "", ""
	wantCode(t, bad.Check(), sello.CodeInvalidRequest, "Tenant")
}

func TestApplyWebhookOutcome(t *testing.T) {
	next := time.Date(2026, 3, 10, 12, 0, 5, 123456789, time.UTC)
	retry := sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: next}
	ok := sello.WebhookOutcome{Status: sello.WebhookSucceeded}
	fail := sello.WebhookOutcome{Status: sello.WebhookFailed}
	http500 := &sello.WebhookAttempt{ResponseStatus: 500, ErrorClass: "http_status"}
	for _, tc := range []struct {
		name    string
		from    sello.WebhookDeliveryStatus
		a       *sello.WebhookAttempt
		o       sello.WebhookOutcome
		want    sello.WebhookDeliveryStatus
		next    bool
		lastErr string
	}{
		{"PendingRetry", sello.WebhookPending, http500, retry, sello.WebhookPending, true, "HTTP 500"},
		{"PendingSucceeded", sello.WebhookPending, &sello.WebhookAttempt{ResponseStatus: 204}, ok, sello.WebhookSucceeded, false, ""},
		{"PendingFailed", sello.WebhookPending, &sello.WebhookAttempt{Error: "dial tcp: refused"}, fail, sello.WebhookFailed, false, "dial tcp: refused"},
		{"HeldRetry", sello.WebhookHeld, http500, retry, sello.WebhookHeld, false, "HTTP 500"},
		{"HeldFailed", sello.WebhookHeld, http500, fail, sello.WebhookFailed, false, "HTTP 500"},
		{"FailedRetry", sello.WebhookFailed, &sello.WebhookAttempt{ErrorClass: "timeout"}, retry, sello.WebhookFailed, false, "timeout"},
		{"FailedSucceeded", sello.WebhookFailed, &sello.WebhookAttempt{ResponseStatus: 200}, ok, sello.WebhookSucceeded, false, ""},
		{"SucceededFailed", sello.WebhookSucceeded, http500, fail, sello.WebhookSucceeded, false, ""},
		{"NoDetail", sello.WebhookPending, &sello.WebhookAttempt{}, fail, sello.WebhookFailed, false, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, gotNext, lastErr := sello.ApplyWebhookOutcome(tc.from, tc.a, tc.o)
			if got != tc.want || (gotNext != nil) != tc.next || lastErr != tc.lastErr {
				t.Errorf("got %q, next %v, %q; want %q, next %v, %q", got, gotNext, lastErr, tc.want, tc.next, tc.lastErr)
			}
			if gotNext != nil && !gotNext.Equal(next.Truncate(time.Microsecond)) {
				t.Errorf("next: got %v, want %v to the microsecond", gotNext, next)
			}
		})
	}
	wantCode(t, sello.CheckWebhookOutcome(sello.WebhookOutcome{Status: sello.WebhookHeld}), sello.CodeInvalidRequest, "held")
	wantCode(t, sello.CheckWebhookOutcome(sello.WebhookOutcome{Status: sello.WebhookPending}), sello.CodeInvalidRequest, "next attempt")
	for _, o := range []sello.WebhookOutcome{retry, ok, fail} {
		if err := sello.CheckWebhookOutcome(o); err != nil {
			t.Errorf("CheckWebhookOutcome(%+v): %v", o, err)
		}
	}
}

func TestTruncateWebhookBody(t *testing.T) {
	long := bytes.Repeat([]byte("x"), sello.WebhookResponseBodyLimit+1)
	got := sello.TruncateWebhookBody(long)
	if len(got) != sello.WebhookResponseBodyLimit || cap(got) != sello.WebhookResponseBodyLimit {
		t.Errorf("truncated: len %d cap %d", len(got), cap(got))
	}
	if got := sello.TruncateWebhookBody([]byte("ok")); string(got) != "ok" {
		t.Errorf("short body: %q", got)
	}
}

func TestWebhookJob(t *testing.T) {
	var j sello.Job = sello.WebhookJob{DeliveryID: "d-1"}
	if j.Kind() != "sello.webhook" {
		t.Errorf("Kind: %q", j.Kind())
	}
	b, _ := json.Marshal(j)
	if string(b) != `{"delivery_id":"d-1"}` {
		t.Errorf("args: %s", b)
	}
}

func TestTestWebhookEvent(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	r := sello.NewTestWebhookEvent("tn", sello.EnvCert, "ep-1", now).Resource()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(b, &got)
	id, _ := got["id"].(string)
	delete(got, "id")
	want := map[string]any{
		"type": "webhook_endpoint.test", "createdAt": "2026-03-10T12:00:00.000Z", "tenantId": "tn", "environment": "certecf",
		"document": nil, "data": map[string]any{"severity": "info", "message": "A test event from Sello.", "payload": map[string]any{"endpointId": "ep-1"}},
	}
	if id == "" || !jsonEqual(got, want) {
		t.Errorf("test event body: %s", b)
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// FuzzWebhookEndpoint checks that endpoint URLs and secrets from the portal
// never panic the checks, and that whatever is accepted is an absolute
// http(s) URL with a host and no credentials, and a printable secret.
func FuzzWebhookEndpoint(f *testing.F) {
	for _, s := range []string{
		"https://erp.example.com/hooks", "http://localhost:8080/x", "https://[::1]:443/", "https://user:pw@x.example/",
		"https://x.example/#f", "javascript:alert(1)", "https://%zz", "https://x.example\x00/", "//x.example/", "",
	} {
		f.Add(s, strings.Repeat("k", 32), true)
		f.Add(s, "short", false)
	}
	mk := mustMasterKey(f, 5)
	f.Fuzz(func(t *testing.T, raw, secret string, prod bool) {
		env := sello.EnvTest
		if prod {
			env = sello.EnvProd
		}
		ep, err := sello.NewWebhookEndpoint(mk, "tn", env, raw, nil, secret)
		if err != nil {
			if sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
				t.Fatalf("error %v: want INVALID_REQUEST", err)
			}
			return
		}
		u, err := url.Parse(ep.URL)
		if err != nil || (u.Scheme != "https" && (prod || u.Scheme != "http")) || u.Hostname() == "" || u.User != nil || u.Fragment != "" {
			t.Fatalf("accepted %q", raw)
		}
		if len(secret) < sello.MinWebhookSecretLen || strings.ContainsFunc(secret, func(r rune) bool { return r <= ' ' || r > '~' }) {
			t.Fatalf("accepted secret %q", secret)
		}
		got, err := ep.ActiveSecrets(mk, time.Now())
		if err != nil || len(got) != 1 || got[0] != secret {
			t.Fatalf("secret round trip: %q, %v", got, err)
		}
	})
}

func TestNewEventDelivery(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ev := &sello.Event{ID: "evt_1", Type: sello.EventECFAccepted, TenantID: "ten_1", Environment: sello.EnvTest, CreatedAt: now}
	tests := []struct {
		name       string
		endpoint   sello.WebhookEndpoint
		wantStatus sello.WebhookDeliveryStatus // "" for no delivery
		wantJob    bool
	}{
		{"active, all events", sello.WebhookEndpoint{ID: "we_1", Status: sello.WebhookEndpointActive}, sello.WebhookPending, true},
		{"active, subscribed", sello.WebhookEndpoint{ID: "we_1", Status: sello.WebhookEndpointActive, Events: []sello.EventType{sello.EventECFAccepted}}, sello.WebhookPending, true},
		{"active, other events", sello.WebhookEndpoint{ID: "we_1", Status: sello.WebhookEndpointActive, Events: []sello.EventType{sello.EventECFRejected}}, "", false},
		{"paused", sello.WebhookEndpoint{ID: "we_1", Status: sello.WebhookEndpointPaused}, sello.WebhookHeld, false},
		{"disabled", sello.WebhookEndpoint{ID: "we_1", Status: sello.WebhookEndpointDisabled}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, job := sello.NewEventDelivery(ev, &tt.endpoint)
			if tt.wantStatus == "" {
				if d != nil || job != nil {
					t.Fatalf("NewEventDelivery = %+v, %v; want none", d, job)
				}
				return
			}
			if d == nil {
				t.Fatal("NewEventDelivery = nil; want a delivery")
			}
			if d.Status != tt.wantStatus || d.EndpointID != "we_1" || d.EventID != "evt_1" || d.EventType != ev.Type ||
				d.TenantID != "ten_1" || d.Environment != sello.EnvTest || d.Trigger != sello.WebhookTriggerEvent || !d.CreatedAt.Equal(now) {
				t.Errorf("delivery = %+v", d)
			}
			if tt.wantJob {
				if job != (sello.WebhookJob{DeliveryID: d.ID}) || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(now) {
					t.Errorf("job = %v, next attempt %v; want the delivery's job due now", job, d.NextAttemptAt)
				}
			} else if job != nil || d.NextAttemptAt != nil {
				t.Errorf("job = %v, next attempt %v; want none (held)", job, d.NextAttemptAt)
			}
		})
	}
}

func TestDocumentChangeCheck(t *testing.T) {
	for _, ch := range []sello.DocumentChange{{}, {Status: sello.StatusSigned, From: []sello.Status{sello.StatusQueuedForSigning}, Severity: "warning"}} {
		if err := ch.Check(); err != nil {
			t.Errorf("Check(%+v) = %v", ch, err)
		}
	}
	for _, ch := range []sello.DocumentChange{{Status: "nope"}, {From: []sello.Status{"nope"}}, {Severity: "loud"}} {
		if got := sello.ErrorCodeOf(ch.Check()); got != sello.CodeInvalidRequest {
			t.Errorf("Check(%+v) code = %q; want INVALID_REQUEST", ch, got)
		}
	}
	if got := (sello.DocumentChange{}).EventSeverity(); got != "info" {
		t.Errorf("EventSeverity of unset = %q; want info", got)
	}
}
