package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello/client"
)

const testKey = "sk_testecf_0123456789abcdefghijABCDEFGHIJkl"

// fakeAPI is an httptest server answering each attempt with the next of its
// answers (the last one repeats), recording every request.
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	answers []func(w http.ResponseWriter, r *http.Request)
	reqs    []*http.Request
	bodies  []string
}

func newFakeAPI(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, r)
		f.bodies = append(f.bodies, string(body))
		a := f.answers[min(n, len(f.answers)-1)]
		f.mu.Unlock()
		a(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

// answer writes status with a JSON body and headers in pairs.
func answer(status int, body string, headers ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Correlation-Id", fmt.Sprintf("cid-%d", status))
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func apiError(code string, status int) func(w http.ResponseWriter, r *http.Request) {
	return answer(status, fmt.Sprintf(`{"ok":false,"error":{"code":%q,"message":"m"},"correlationId":"cid-%d"}`, code, status))
}

// hangUp closes the connection without answering: a network error after
// the request arrived.
func hangUp(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

const docJSON = `{"id":"0193a000-0000-7000-8000-000000000001","type":"E31","encf":"E310000000001","status":"queued_for_signing",
	"trackId":null,"securityCode":null,"signedAt":null,"qrUrl":null,"buyerRnc":"131880681","total":"1180.00","dgii":null,
	"delivery":{"status":"not_sent"},"commercialApproval":null,
	"createdAt":"2026-11-22T14:03:07.123Z","updatedAt":"2026-11-22T14:03:07.123Z"}`

var created = answer(http.StatusAccepted, `{"ok":true,"document":`+docJSON+`,"correlationId":"cid-202"}`)

// sleeps records the client's waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func mustClient(t *testing.T, base string, opts ...client.Option) (*client.Client, *sleeps) {
	t.Helper()
	s := &sleeps{}
	c, err := client.New(base, testKey, append([]client.Option{client.WithSleep(s.sleep)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

var invoice = map[string]any{"ECF": map[string]any{"Encabezado": map[string]any{"IdDoc": map[string]any{"TipoeCF": "31"}}}}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNew(t *testing.T) {
	for _, tt := range []struct {
		base string
		key  string
		opts []client.Option
		want client.Environment
		err  string
	}{
		{"http://localhost:8080", "sk_testecf_x", nil, client.EnvTest, ""},
		{"http://localhost:8080", "sk_certecf_x", nil, client.EnvCert, ""},
		{"http://localhost:8080", "sk_ecf_x", nil, client.EnvProd, ""},
		{"http://localhost:8080", "sk_ecf_x", []client.Option{client.WithEnvironment(client.EnvTest)}, client.EnvTest, ""},
		{"http://localhost:8080", "custom", []client.Option{client.WithEnvironment(client.EnvCert)}, client.EnvCert, ""},
		{"http://localhost:8080", "custom", nil, "", "environment"},
		{"http://localhost:8080", "", nil, "", "empty API key"},
		{"http://localhost:8080", "sk_ecf_x", []client.Option{client.WithEnvironment("Produccion")}, "", "unknown environment"},
		{"ftp://x", "sk_ecf_x", nil, "", "base URL"},
		{"", "sk_ecf_x", nil, "", "empty base URL: pass your Sello service's address to New"},
		{"http://localhost:8080", "sk_ecf_x", []client.Option{client.WithRetryPolicy(client.RetryPolicy{})}, "", "retry policy"},
		{"http://localhost:8080", "sk_ecf_x", []client.Option{client.WithHTTPClient(nil)}, "", "nil http.Client"},
	} {
		c, err := client.New(tt.base, tt.key, tt.opts...)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("New(%q): error %v, want one mentioning %q", tt.key, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q): %v", tt.key, err)
		} else if c.Environment() != tt.want {
			t.Errorf("New(%q): environment %s, want %s", tt.key, c.Environment(), tt.want)
		}
	}
}

func TestRequestShape(t *testing.T) {
	api := newFakeAPI(t, created)
	c, _ := mustClient(t, api.srv.URL+"/base/", client.WithUserAgent("erp/2.1"))
	doc, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Document.BuyerRNC == nil || *doc.Document.BuyerRNC != "131880681" || doc.Document.TrackID != nil {
		t.Errorf("the answer's document: buyerRnc %v, trackId %v", doc.Document.BuyerRNC, doc.Document.TrackID)
	}
	r := api.requests()[0]
	for h, want := range map[string]string{
		"X-Api-Key": testKey, "Content-Type": "application/json", "Accept": "application/json",
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if got := r.Header.Get("User-Agent"); !strings.HasPrefix(got, "erp/2.1 sello-go/") {
		t.Errorf("User-Agent %q", got)
	}
	if r.Method != "POST" || r.URL.Path != "/base/TesteCF/documentos-ecf" {
		t.Errorf("request %s %s, want POST /base/TesteCF/documentos-ecf", r.Method, r.URL.Path)
	}
	if got, want := api.bodies[0], `{"ECF":{"Encabezado":{"IdDoc":{"TipoeCF":"31"}}}}`; got != want {
		t.Errorf("body %s, want %s", got, want)
	}
}

func TestRetry(t *testing.T) {
	t.Run("RateLimitedHonoursRetryAfter", func(t *testing.T) {
		api := newFakeAPI(t,
			answer(429, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"slow down","retryAfterSeconds":3},"correlationId":"c"}`, "Retry-After", "3"),
			created)
		c, s := mustClient(t, api.srv.URL)
		res, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice})
		if err != nil {
			t.Fatal(err)
		}
		if res.Document.ENCF != "E310000000001" || res.CorrelationID != "cid-202" {
			t.Errorf("result %+v", res)
		}
		if got := s.got(); len(got) != 1 || got[0] < 3*time.Second || got[0] > 3*time.Second+client.DefaultRetryPolicy.BaseDelay {
			t.Fatalf("waits %v, want one of 3 s (Retry-After) plus at most the jitter", got)
		}
		if n := len(api.requests()); n != 2 {
			t.Fatalf("%d attempts, want 2", n)
		}
	})

	t.Run("RetryAfterBeyondMaxDelayStops", func(t *testing.T) {
		api := newFakeAPI(t, answer(429, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"m","retryAfterSeconds":60},"correlationId":"c"}`, "Retry-After", "60"))
		c, s := mustClient(t, api.srv.URL)
		_, err := c.GetDocument(t.Context(), "E310000000001")
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeRateLimited || e.RetryAfter != time.Minute {
			t.Fatalf("error %v, want RATE_LIMITED with RetryAfter 1m", err)
		}
		if len(s.got()) != 0 || len(api.requests()) != 1 {
			t.Fatalf("%d waits, %d attempts; want 0, 1", len(s.got()), len(api.requests()))
		}
	})

	t.Run("ServerErrorsBackOff", func(t *testing.T) {
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503), apiError("INTERNAL", 500), answer(200, `{"ok":true,"document":`+docJSON+`,"correlationId":"x"}`))
		p := client.RetryPolicy{MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 150 * time.Millisecond}
		c, s := mustClient(t, api.srv.URL, client.WithRetryPolicy(p))
		if _, err := c.GetDocument(t.Context(), "E310000000001"); err != nil {
			t.Fatal(err)
		}
		got := s.got()
		if len(got) != 2 {
			t.Fatalf("waits %v, want 2", got)
		}
		for i, ceiling := range []time.Duration{100 * time.Millisecond, 150 * time.Millisecond} {
			if got[i] < 0 || got[i] > ceiling {
				t.Errorf("wait %d = %v, want within [0, %v]", i, got[i], ceiling)
			}
		}
	})

	t.Run("GiveUpAfterMaxAttempts", func(t *testing.T) {
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503))
		c, s := mustClient(t, api.srv.URL)
		_, err := c.StatusBatch(t.Context(), []string{"E310000000001"})
		if !client.IsCode(err, client.CodeUnavailable) {
			t.Fatalf("error %v, want UNAVAILABLE", err)
		}
		if n := len(api.requests()); n != 4 {
			t.Fatalf("%d attempts, want 4 (the default)", n)
		}
		if n := len(s.got()); n != 3 {
			t.Fatalf("%d waits, want 3", n)
		}
	})

	t.Run("NetworkErrorClosedListener", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		c, s := mustClient(t, "http://"+addr)
		_, err = c.ListEvents(t.Context(), client.ListEventsParams{})
		var e *client.Error
		if err == nil || errors.As(err, &e) {
			t.Fatalf("error %v, want a network error, not an API error", err)
		}
		if !client.IsRetryable(err) {
			t.Errorf("a network error is retryable: %v", err)
		}
		if n := len(s.got()); n != 3 {
			t.Fatalf("%d waits, want 3 (4 attempts)", n)
		}
	})

	t.Run("NoRetryOn4xx", func(t *testing.T) {
		for _, code := range []struct {
			code   string
			status int
		}{{"VALIDATION_FAILED", 422}, {"INVALID_REQUEST", 400}, {"UNAUTHENTICATED", 401}, {"INSUFFICIENT_SCOPE", 403}, {"NOT_FOUND", 404}, {"CONFLICT", 409}} {
			api := newFakeAPI(t, apiError(code.code, code.status))
			c, s := mustClient(t, api.srv.URL)
			_, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice})
			if !client.IsCode(err, client.ErrorCode(code.code)) {
				t.Errorf("%d: error %v", code.status, err)
			}
			if len(api.requests()) != 1 || len(s.got()) != 0 {
				t.Errorf("%d %s: %d attempts, %d waits; want 1, 0", code.status, code.code, len(api.requests()), len(s.got()))
			}
		}
	})

	t.Run("IdempotencyKeyReusedAcrossRetries", func(t *testing.T) {
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503), hangUp, answer(429, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"m","retryAfterSeconds":1},"correlationId":"c"}`, "Retry-After", "1"), created)
		c, _ := mustClient(t, api.srv.URL)
		if _, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice}); err != nil {
			t.Fatal(err)
		}
		reqs := api.requests()
		if len(reqs) != 4 {
			t.Fatalf("%d attempts, want 4", len(reqs))
		}
		key := reqs[0].Header.Get("Idempotency-Key")
		if !uuidV4.MatchString(key) {
			t.Fatalf("Idempotency-Key %q is not a UUID v4", key)
		}
		for i, r := range reqs {
			if got := r.Header.Get("Idempotency-Key"); got != key {
				t.Errorf("attempt %d: Idempotency-Key %q, want %q", i+1, got, key)
			}
			if api.bodies[i] != api.bodies[0] {
				t.Errorf("attempt %d sent another body", i+1)
			}
		}

		// Another logical call gets another key; a caller's key is kept.
		if _, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateDocument(t.Context(), client.CreateDocumentRequest{Document: invoice, IdempotencyKey: "factura-42"}); err != nil {
			t.Fatal(err)
		}
		reqs = api.requests()
		if got := reqs[4].Header.Get("Idempotency-Key"); got == key || !uuidV4.MatchString(got) {
			t.Errorf("second call's key %q, want a new UUID", got)
		}
		if got := reqs[5].Header.Get("Idempotency-Key"); got != "factura-42" {
			t.Errorf("caller's key sent as %q", got)
		}
	})

	t.Run("ContextCancelledWhileWaiting", func(t *testing.T) {
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503))
		ctx, cancel := context.WithCancel(t.Context())
		c, err := client.New(api.srv.URL, testKey, client.WithSleep(func(ctx context.Context, d time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetDocument(ctx, "E310000000001")
		if !errors.Is(err, context.Canceled) || !client.IsCode(err, client.CodeUnavailable) {
			t.Fatalf("error %v, want context.Canceled wrapping the last UNAVAILABLE", err)
		}
		if n := len(api.requests()); n != 1 {
			t.Fatalf("%d attempts after cancel, want 1", n)
		}
	})

	t.Run("ContextCancelledDuringAttempt", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) { <-release })
		c, s := mustClient(t, api.srv.URL)
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := c.GetDocument(ctx, "E310000000001")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want context.DeadlineExceeded", err)
		}
		if len(s.got()) != 0 {
			t.Fatalf("waited %v after the deadline", s.got())
		}
	})

	t.Run("RealSleepHonoursContext", func(t *testing.T) {
		api := newFakeAPI(t, apiError("UNAVAILABLE", 503))
		c, err := client.New(api.srv.URL, testKey,
			client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Hour, MaxDelay: time.Hour}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err = c.GetDocument(ctx, "E310000000001")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
			t.Fatalf("error %v after %v, want the deadline promptly", err, time.Since(start))
		}
	})
}

func TestError(t *testing.T) {
	t.Run("Typed", func(t *testing.T) {
		api := newFakeAPI(t, answer(422, `{"ok":false,"error":{"code":"VALIDATION_FAILED","message":"The document is not valid: 2 problems.",
			"details":[{"path":"ECF.Encabezado.Totales.MontoTotal","message":"must be 1180.00"},{"path":"ECF.DetallesItems.Item[0].NombreItem","message":"required"}],"truncated":3},
			"correlationId":"cid-422"}`))
		c, _ := mustClient(t, api.srv.URL)
		_, err := c.ValidateDocument(t.Context(), invoice)
		wrapped := fmt.Errorf("issue invoice 42: %w", err)
		var e *client.Error
		if !errors.As(wrapped, &e) {
			t.Fatalf("errors.As: %v", err)
		}
		if e.HTTPStatus != 422 || e.Code != client.CodeValidationFailed || e.Message != "The document is not valid: 2 problems." || e.CorrelationID != "cid-422" {
			t.Errorf("error %+v", e)
		}
		if len(e.Details) != 2 || e.Details[0].Path != "ECF.Encabezado.Totales.MontoTotal" || e.Details[1].Message != "required" || e.Truncated != 3 {
			t.Errorf("details %+v", e.Details)
		}
		if !client.IsCode(wrapped, "VALIDATION_FAILED") || client.IsCode(wrapped, client.CodeConflict) || client.IsRetryable(wrapped) {
			t.Error("predicates")
		}
		for _, want := range []string{"422", "VALIDATION_FAILED", "MontoTotal", "cid-422"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("message %q lacks %q", err, want)
			}
		}
		if got := api.requests()[0].URL.RawQuery; got != "validate=true" {
			t.Errorf("query %q, want validate=true", got)
		}
	})

	t.Run("NotSellosBody", func(t *testing.T) {
		api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "<html>bad gateway</html>")
		})
		c, _ := mustClient(t, api.srv.URL, client.WithRetryPolicy(client.NoRetries))
		_, err := c.GetDocument(t.Context(), "E310000000001")
		var e *client.Error
		if !errors.As(err, &e) || e.HTTPStatus != 502 || e.Code != "" || !strings.Contains(e.Message, "bad gateway") {
			t.Fatalf("error %#v", err)
		}
		if !client.IsRetryable(err) {
			t.Error("a 502 is retryable")
		}
	})

	t.Run("RetryAfterDate", func(t *testing.T) {
		now := time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)
		api := newFakeAPI(t, answer(429, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"m","retryAfterSeconds":1},"correlationId":"c"}`,
			"Retry-After", now.Add(7*time.Second).Format(http.TimeFormat)))
		c, _ := mustClient(t, api.srv.URL, client.WithRetryPolicy(client.NoRetries), client.WithClock(func() time.Time { return now }))
		_, err := c.GetDocument(t.Context(), "E310000000001")
		var e *client.Error
		if !errors.As(err, &e) || e.RetryAfter != 7*time.Second {
			t.Fatalf("error %+v, want RetryAfter 7s", err)
		}
	})
}

func TestNeedsReconcile(t *testing.T) {
	ev := func(s client.Status) *client.Event {
		return &client.Event{ID: "e", Type: client.EventECFSigned, Document: &client.EventDocument{ENCF: "E310000000001", Status: s}}
	}
	for _, tt := range []struct {
		stored, snapshot client.Status
		want             bool
	}{
		{"", client.StatusQueuedForSigning, false},
		{client.StatusQueuedForSigning, client.StatusSigned, false},
		{client.StatusSigned, client.StatusAccepted, false},
		{client.StatusAccepted, client.StatusAccepted, false},
		{client.StatusAccepted, client.StatusSubmitted, true},         // a late event
		{client.StatusRejected, client.StatusAccepted, true},          // overwriting a final state
		{client.StatusSubmitted, client.StatusQueuedForSigning, true}, // behind
		{client.StatusFailed, client.StatusSigned, true},
	} {
		if got := client.NeedsReconcile(tt.stored, ev(tt.snapshot)); got != tt.want {
			t.Errorf("NeedsReconcile(%q, snapshot %q) = %v, want %v", tt.stored, tt.snapshot, got, tt.want)
		}
	}
	if client.NeedsReconcile(client.StatusAccepted, &client.Event{ID: "e", Type: client.EventSequenceLow}) {
		t.Error("an event about no document needs no reconciliation")
	}
}

// TestConnectionsReused checks that concurrent calls, round after round,
// reuse the default client's connections rather than dialing per call.
func TestConnectionsReused(t *testing.T) {
	var dialed atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answer(200, `{"ok":true,"results":[]}`)(w, r)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c, _ := mustClient(t, srv.URL)
	const parallel, rounds = 16, 10
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				if _, err := c.StatusBatch(t.Context(), []string{"E310000000001"}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	// A connection goes back to the idle pool from the transport's own
	// goroutine after its body is read, so a call of the next round can
	// now and then dial before it is back: allow one round's worth more.
	// Dialing per call (or keeping only net/http's default 2 idle per
	// host) opens well over 100.
	if n := dialed.Load(); n > 2*parallel {
		t.Errorf("%d calls (%d at once) opened %d connections; want at most %d", parallel*rounds, parallel, n, 2*parallel)
	}
}
