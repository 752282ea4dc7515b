package worker_test

import (
	"context"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/internal/metrics"
	"github.com/sello-do/sello/internal/metrics/metricstest"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/storetest"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
	"github.com/sello-do/sello/xmldsig"
)

// The secrets of the tests' endpoints.
const (
	secretA = "whsec_worker_test_secret_aaaaaaaaaaaaaaaa"
	secretB = "whsec_worker_test_secret_bbbbbbbbbbbbbbbb"
	secretC = "whsec_worker_test_secret_cccccccccccccccc"
)

// tenants numbers the tests' tenants, several to a store.
var tenants atomic.Int64

// testVersion is the version the tests' worker puts in User-Agent.
const testVersion = "1.2.3-test"

// forEachStore runs f on a fresh SQLite store and, when
// SELLO_TEST_DATABASE_URL is set, on a fresh PostgreSQL schema.
func forEachStore(t *testing.T, f func(t *testing.T, st storetest.Store)) {
	t.Run("SQLite", func(t *testing.T) { f(t, sqlitetest.MustOpen(t)) })
	t.Run("PostgreSQL", func(t *testing.T) {
		pgtest.HoldTransactions(t)
		db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		f(t, db)
	})
}

// hookTest is a tenant, a worker and its job runner on a real store.
type hookTest struct {
	st     sello.Store
	mk     *sello.MasterKey
	tenant *sello.Tenant
	w      *worker.Worker
	runner jobs.Runner
	// offset shifts the worker's clock.
	offset atomic.Int64
}

// mustHookTest makes a tenant and a worker with cfg (Store, MasterKey and
// Now filled in); the runner starts with start. Retries wait 10 ms unless
// cfg says otherwise, keeping the schedule's rule of which attempts are
// retried.
func mustHookTest(tb testing.TB, st storetest.Store, cfg worker.Config) *hookTest {
	tb.Helper()
	h := &hookTest{st: st}
	h.mk, _ = sello.ParseMasterKey(sello.GenerateMasterKey())
	h.tenant = &sello.Tenant{RNC: fmt.Sprintf("1%08d", tenants.Add(1)), Name: "Ganchos SRL", Plan: sello.DefaultRatePlan}
	if err := st.CreateTenant(tb.Context(), h.tenant); err != nil {
		tb.Fatal(err)
	}
	cfg.Store, cfg.MasterKey, cfg.Version = st, h.mk, testVersion
	cfg.Now = h.now
	if cfg.WebhookDelay == nil {
		cfg.WebhookDelay = fixedDelay(10 * time.Millisecond)
	}
	h.w = worker.New(cfg)
	tb.Cleanup(h.w.Close)
	runner, err := st.NewJobRunner(h.w.Workers(), jobs.Config{Workers: 4})
	if err != nil {
		tb.Fatal(err)
	}
	h.runner = runner
	return h
}

// mustSigner is a self-signed signer named name, valid for an hour.
func mustSigner(tb testing.TB, name string) *xmldsig.Signer {
	tb.Helper()
	key, cert, err := xmldsig.GenerateSelfSigned(pkix.Name{CommonName: name}, time.Now().Add(time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return &xmldsig.Signer{Key: key, Cert: cert}
}

// mustCertificate gives the tenant a self-signed certificate named name in
// TesteCF and returns its signer.
func (h *hookTest) mustCertificate(tb testing.TB, name string) *xmldsig.Signer {
	tb.Helper()
	s := mustSigner(tb, name)
	c, err := sello.NewCertificate(h.tenant.ID, sello.EnvTest, s.Cert, s.Key, h.mk)
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.st.AddCertificate(tb.Context(), c); err != nil {
		tb.Fatal(err)
	}
	return s
}

func (h *hookTest) now() time.Time { return time.Now().Add(time.Duration(h.offset.Load())) }

// fixedDelay waits d between attempts, on the real schedule's terms (no
// retry after a 410 or the eighth attempt).
func fixedDelay(d time.Duration) func(int, *webhook.Attempt) (time.Duration, bool) {
	return func(n int, a *webhook.Attempt) (time.Duration, bool) {
		if _, ok := webhook.RetryDelay(n, a, nil); !ok {
			return 0, false
		}
		return d, true
	}
}

// start starts the job runner; it stops at the end of the test.
// startPeriodic starts the worker's jobs on a runner that runs the
// periodic ones too (each at start).
func (h *hookTest) startPeriodic(tb testing.TB, st storetest.Store) {
	tb.Helper()
	runner, err := st.NewJobRunner(h.w.Workers(), jobs.Config{Workers: 4, Periodic: h.w.Periodic()})
	if err != nil {
		tb.Fatal(err)
	}
	h.runner = runner
	h.start(tb)
}

func (h *hookTest) start(tb testing.TB) {
	tb.Helper()
	if err := h.runner.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.runner.Stop(ctx); err != nil {
			tb.Errorf("stop runner: %v", err)
		}
	})
}

// endpoint creates an active endpoint of the tenant.
func (h *hookTest) endpoint(tb testing.TB, env sello.Environment, url, secret string, events ...sello.EventType) *sello.WebhookEndpoint {
	tb.Helper()
	e, err := sello.NewWebhookEndpoint(h.mk, h.tenant.ID, env, url, events, secret)
	if err != nil {
		tb.Fatal(err)
	}
	if err := h.st.CreateWebhookEndpoint(tb.Context(), e); err != nil {
		tb.Fatal(err)
	}
	return e
}

// test creates a test delivery to e, due at the worker's now.
func (h *hookTest) test(tb testing.TB, e *sello.WebhookEndpoint) *sello.WebhookDelivery {
	tb.Helper()
	d, err := h.st.CreateTestWebhookDelivery(tb.Context(), h.tenant.ID, e.ID, h.now())
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// wait polls a delivery until cond holds (20 s at most) and returns it with
// its attempts.
func (h *hookTest) wait(tb testing.TB, id string, cond func(*sello.WebhookDelivery) bool) *sello.WebhookDelivery {
	tb.Helper()
	var d *sello.WebhookDelivery
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if d, err = h.st.FindWebhookDelivery(tb.Context(), h.tenant.ID, id); err != nil {
			tb.Fatal(err)
		}
		return cond(d)
	}) {
		tb.Fatalf("delivery %s: condition not met in 20 s: status %s, %d attempts, last error %q", id, d.Status, d.Attempts, d.LastError)
	}
	return d
}

// jobLister is the part of River's client that lists jobs (the store's job
// runner is one).
type jobLister interface {
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// waitJobDone waits (20 s at most) until the job of a delivery has ended
// for good (River finalized it: completed, discarded or cancelled): it will
// make no attempt any more. Tests that check that something did not
// happen wait for this, not for a while.
func (h *hookTest) waitJobDone(tb testing.TB, deliveryID string) {
	tb.Helper()
	l, ok := h.runner.(jobLister)
	if !ok {
		tb.Fatalf("runner %T cannot list jobs", h.runner)
	}
	var states []string
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		res, err := l.JobList(tb.Context(), river.NewJobListParams().Kinds(sello.WebhookJob{}.Kind()).First(10_000))
		if err != nil {
			tb.Fatal(err)
		}
		states = states[:0]
		ended := true
		for _, j := range res.Jobs {
			var args sello.WebhookJob
			if err := json.Unmarshal(j.EncodedArgs, &args); err != nil {
				tb.Fatal(err)
			}
			if args.DeliveryID == deliveryID {
				states = append(states, string(j.State))
				ended = ended && j.FinalizedAt != nil
			}
		}
		return len(states) > 0 && ended
	}) {
		tb.Fatalf("delivery %s: its jobs are %v after 20 s, want every one ended", deliveryID, states)
	}
}

func final(d *sello.WebhookDelivery) bool {
	return d.Status == sello.WebhookSucceeded || d.Status == sello.WebhookFailed
}

func status(s sello.WebhookDeliveryStatus) func(*sello.WebhookDelivery) bool {
	return func(d *sello.WebhookDelivery) bool { return d.Status == s }
}

// waitDisabled polls an endpoint until it is disabled (20 s at most): the
// job disables it after recording the attempt.
func (h *hookTest) waitDisabled(tb testing.TB, id string) *sello.WebhookEndpoint {
	tb.Helper()
	var e *sello.WebhookEndpoint
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		e = h.findEndpoint(tb, id)
		return e.Status == sello.WebhookEndpointDisabled
	}) {
		tb.Fatalf("endpoint %s still %s after 20 s", id, e.Status)
	}
	return e
}

func (h *hookTest) findEndpoint(tb testing.TB, id string) *sello.WebhookEndpoint {
	tb.Helper()
	e, err := h.st.FindWebhookEndpoint(tb.Context(), h.tenant.ID, id)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// disabledEvents lists the tenant's webhook_endpoint.disabled events in
// env, waiting until there are at least n (see storetest.WaitEvents).
func (h *hookTest) disabledEvents(tb testing.TB, env sello.Environment, n int) []*sello.Event {
	tb.Helper()
	return storetest.WaitEvents(tb, h.st, h.tenant.ID, env, sello.EventFilter{Type: sello.EventWebhookEndpointDisabled}, storetest.AtLeast(n))
}

// receiver is a webhook receiver on loopback that records what it gets.
type receiver struct {
	*httptest.Server
	respond func(n int, w http.ResponseWriter, r *http.Request)

	mu    sync.Mutex
	reqs  []received
	conns atomic.Int32
	// arrived signals each request (the receiver's test signal).
	arrived chan struct{}
}

type received struct {
	header http.Header
	body   []byte
}

// mustReceiver starts a receiver answering request n (from 1) with
// respond; nil answers 200.
func mustReceiver(tb testing.TB, tls bool, respond func(n int, w http.ResponseWriter, r *http.Request)) *receiver {
	tb.Helper()
	rc := &receiver{respond: respond, arrived: make(chan struct{}, 1)}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{r.Header.Clone(), body})
		n := len(rc.reqs)
		rc.mu.Unlock()
		select {
		case rc.arrived <- struct{}{}:
		default: // a signal is waiting already
		}
		if rc.respond != nil {
			rc.respond(n, w, r)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	rc.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	if tls {
		rc.StartTLS()
	} else {
		rc.Start()
	}
	tb.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

// waitRequests waits until the receiver got n requests (20 s at most).
func (rc *receiver) waitRequests(tb testing.TB, n int) []received {
	tb.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		if got := rc.received(); len(got) >= n {
			return got
		}
		select {
		case <-rc.arrived:
		case <-timeout.C:
			tb.Fatalf("the receiver got %d requests in 20 s, want %d", len(rc.received()), n)
		}
	}
}

func answer(status int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }
}

// verify checks a delivery the way a receiver does, with the SDK, and that
// the headers name the body's event.
func verify(tb testing.TB, r received, secrets ...string) *client.Event {
	tb.Helper()
	ev, err := client.VerifyWebhook(r.body, r.header.Get("Sello-Signature"), secrets, time.Now())
	if err != nil {
		tb.Fatalf("the SDK does not verify the delivery: %v\nheader %s", err, r.header.Get("Sello-Signature"))
	}
	if ev.ID != r.header.Get("Sello-Event-Id") || string(ev.Type) != r.header.Get("Sello-Event-Type") {
		tb.Fatalf("body id %s type %s; headers %s %s", ev.ID, ev.Type, r.header.Get("Sello-Event-Id"), r.header.Get("Sello-Event-Type"))
	}
	return ev
}

func signature(tb testing.TB, r received) *client.Signature {
	tb.Helper()
	sig, err := client.ParseSignatureHeader(r.header.Get("Sello-Signature"))
	if err != nil {
		tb.Fatal(err)
	}
	return sig
}

// TestWebhookDelivery: an event of the outbox reaches the endpoint with
// exactly the contract's headers, the event's resource as body and a
// signature the SDK verifies; the attempt is logged.
func TestWebhookDelivery(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		rc := mustReceiver(t, false, nil)
		e := h.endpoint(t, sello.EnvTest, rc.URL+"/hooks", secretA)
		// Disabling another endpoint writes an event, which fans out to e.
		other := h.endpoint(t, sello.EnvTest, "https://hooks.example.com/other", secretB)
		if _, err := st.DisableWebhookEndpoint(t.Context(), h.tenant.ID, other.ID, "for the test", time.Now()); err != nil {
			t.Fatal(err)
		}
		events := h.disabledEvents(t, sello.EnvTest, 1)
		if len(events) != 1 {
			t.Fatalf("%d events", len(events))
		}
		ev := events[0]
		h.start(t)

		r := rc.waitRequests(t, 1)[0]
		want := map[string]string{
			"Content-Type":     "application/json",
			"User-Agent":       "Sello-Webhooks/" + testVersion,
			"Sello-Event-Id":   ev.ID,
			"Sello-Event-Type": string(sello.EventWebhookEndpointDisabled),
		}
		for k, v := range r.header {
			switch {
			case k == "Content-Length" || k == "Sello-Signature":
			case want[k] == "":
				t.Errorf("unexpected header %s: %q", k, v)
			case len(v) != 1 || v[0] != want[k]:
				t.Errorf("header %s: %q, want %q", k, v, want[k])
			}
		}
		for k := range want {
			if r.header.Get(k) == "" {
				t.Errorf("no %s header", k)
			}
		}
		body, _ := json.Marshal(ev.Resource())
		if string(r.body) != string(body) {
			t.Fatalf("body\n%s\nwant the event's resource\n%s", r.body, body)
		}
		got := verify(t, r, secretA)
		if got.ID != ev.ID || got.Data.Payload["endpointId"] != other.ID {
			t.Fatalf("verified event %+v", got)
		}
		if sig := signature(t, r); len(sig.V1) != 1 || time.Since(time.Unix(sig.Timestamp, 0)) > time.Minute {
			t.Fatalf("signature %+v: want one v1 and t of the attempt", sig)
		}

		ds, err := st.ListWebhookDeliveries(t.Context(), h.tenant.ID, sello.EnvTest, sello.WebhookDeliveryFilter{EndpointID: e.ID})
		if err != nil || len(ds) != 1 {
			t.Fatalf("%d deliveries (%v)", len(ds), err)
		}
		d := h.wait(t, ds[0].ID, final)
		if d.Status != sello.WebhookSucceeded || d.Attempts != 1 || d.LastError != "" || d.NextAttemptAt != nil {
			t.Fatalf("delivery %+v", d)
		}
		a := d.AttemptLog[0]
		if a.ResponseStatus != 200 || a.ErrorClass != "" || a.DialedIP != "127.0.0.1" || a.Latency <= 0 {
			t.Fatalf("attempt: status %d, class %q, dialed %q, latency %s", a.ResponseStatus, a.ErrorClass, a.DialedIP, a.Latency)
		}
		if string(a.RequestBody) != string(body) || a.RequestHeaders["Sello-Signature"][0] != r.header.Get("Sello-Signature") {
			t.Fatalf("the log's request differs from what was sent: %v", a.RequestHeaders)
		}
		if n := len(rc.received()); n != 1 {
			t.Fatalf("the receiver got %d requests, want 1", n)
		}
	})
}

// TestWebhookRetry: a 500 then a 200 make two attempts, each signed with
// its own t, and a succeeded delivery with both attempts logged.
func TestWebhookRetry(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		m := metrics.New(metrics.Options{})
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}, Metrics: m})
		rc := mustReceiver(t, false, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 1 {
				// The worker's clock moves on 1.1 s before the next
				// attempt, so the two t (whole seconds) differ.
				h.offset.Add(int64(1100 * time.Millisecond))
				http.Error(w, "down for maintenance", http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		})
		e := h.endpoint(t, sello.EnvCert, rc.URL, secretA)
		h.start(t)
		d := h.wait(t, h.test(t, e).ID, final)

		reqs := rc.received()
		if len(reqs) != 2 {
			t.Fatalf("the receiver got %d requests, want 2", len(reqs))
		}
		t1, t2 := signature(t, reqs[0]).Timestamp, signature(t, reqs[1]).Timestamp
		if t2 <= t1 {
			t.Fatalf("t %d then %d: each attempt must be signed with its own time", t1, t2)
		}
		for _, r := range reqs {
			if ev := verify(t, r, secretA); ev.Type != client.EventType(sello.EventWebhookEndpointTest) {
				t.Fatalf("event type %s", ev.Type)
			}
		}
		if string(reqs[0].body) != string(reqs[1].body) {
			t.Fatal("the two attempts sent different bodies")
		}
		if d.Status != sello.WebhookSucceeded || d.Attempts != 2 || len(d.AttemptLog) != 2 || d.LastError != "" {
			t.Fatalf("delivery: status %s, %d attempts, %d logged, last error %q", d.Status, d.Attempts, len(d.AttemptLog), d.LastError)
		}
		a1, a2 := d.AttemptLog[0], d.AttemptLog[1]
		if a1.ResponseStatus != 500 || a1.ErrorClass != "http_status" || a1.DialedIP != "127.0.0.1" || a1.Latency <= 0 ||
			!strings.Contains(a1.Error, "500") || !strings.Contains(string(a1.ResponseBody), "down for maintenance") {
			t.Fatalf("first attempt: %d %q %q %s %q %q", a1.ResponseStatus, a1.ErrorClass, a1.DialedIP, a1.Latency, a1.Error, a1.ResponseBody)
		}
		if a2.ResponseStatus != 204 || a2.ErrorClass != "" || a2.DialedIP != "127.0.0.1" || a2.Latency <= 0 || a2.N != 2 {
			t.Fatalf("second attempt: %+v", a2)
		}
		if !a2.At.After(a1.At) || a2.RequestHeaders["Sello-Signature"][0] == a1.RequestHeaders["Sello-Signature"][0] {
			t.Fatal("the log shows the same signature for both attempts")
		}
		if fs := h.findEndpoint(t, e.ID).FailingSince; fs != nil {
			t.Fatalf("FailingSince %v after a success", fs)
		}
		want := map[string]float64{"outcome=http_status": 1, "outcome=success": 1}
		if got := metricstest.Values(t, m, "sello_webhook_attempts_total"); !maps.Equal(got, want) {
			t.Fatalf("attempts counted %v, want %v", got, want)
		}
	})
}

// TestWebhookGone: a 410 fails the delivery at once and disables the
// endpoint; the webhook_endpoint.disabled event reaches the tenant's other
// endpoint.
func TestWebhookGone(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		gone := mustReceiver(t, false, answer(http.StatusGone))
		watcher := mustReceiver(t, false, nil)
		e := h.endpoint(t, sello.EnvTest, gone.URL, secretA)
		w := h.endpoint(t, sello.EnvTest, watcher.URL, secretB, sello.EventWebhookEndpointDisabled)
		h.start(t)

		d := h.wait(t, h.test(t, e).ID, final)
		if d.Status != sello.WebhookFailed || d.Attempts != 1 || d.AttemptLog[0].ResponseStatus != 410 {
			t.Fatalf("delivery: status %s, %d attempts", d.Status, d.Attempts)
		}
		ep := h.waitDisabled(t, e.ID)
		if !strings.Contains(ep.DisabledReason, "410") {
			t.Fatalf("endpoint %s, reason %q", ep.Status, ep.DisabledReason)
		}
		if events := h.disabledEvents(t, sello.EnvTest, 1); len(events) != 1 || events[0].Data.Payload["endpointId"] != e.ID {
			t.Fatalf("disabled events %v", events)
		}
		ev := verify(t, watcher.waitRequests(t, 1)[0], secretB)
		if ev.Type != client.EventType(sello.EventWebhookEndpointDisabled) || ev.Data.Payload["endpointId"] != e.ID || !strings.Contains(ev.Data.Payload["reason"].(string), "410") {
			t.Fatalf("the other endpoint got %+v", ev)
		}
		if h.findEndpoint(t, w.ID).Status != sello.WebhookEndpointActive {
			t.Fatal("the other endpoint was disabled too")
		}
		h.waitJobDone(t, d.ID)
		if n := len(gone.received()); n != 1 {
			t.Fatalf("the gone receiver got %d requests, want 1 (no retry after 410)", n)
		}
	})
}

// TestWebhookPaused: a paused endpoint's deliveries are held, those created
// while it was paused and those its job finds pending; resuming sends them.
func TestWebhookPaused(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		rc := mustReceiver(t, false, nil)
		e := h.endpoint(t, sello.EnvTest, rc.URL, secretA)
		pending := h.test(t, e) // its job runs after the pause
		if err := st.PauseWebhookEndpoint(t.Context(), h.tenant.ID, e.ID); err != nil {
			t.Fatal(err)
		}
		held := h.test(t, e)
		if held.Status != sello.WebhookHeld || pending.Status != sello.WebhookPending {
			t.Fatalf("deliveries %s and %s", pending.Status, held.Status)
		}
		h.start(t)
		h.wait(t, pending.ID, status(sello.WebhookHeld))
		h.waitJobDone(t, pending.ID)
		if n := len(rc.received()); n != 0 {
			t.Fatalf("the receiver got %d requests while the endpoint was paused", n)
		}
		if d := h.wait(t, held.ID, status(sello.WebhookHeld)); d.Attempts != 0 {
			t.Fatalf("held delivery has %d attempts", d.Attempts)
		}

		n, err := st.ResumeWebhookEndpoint(t.Context(), h.tenant.ID, e.ID)
		if err != nil || n != 2 {
			t.Fatalf("resume queued %d (%v), want 2", n, err)
		}
		for _, id := range []string{pending.ID, held.ID} {
			if d := h.wait(t, id, final); d.Status != sello.WebhookSucceeded || d.Attempts != 1 {
				t.Fatalf("after resume: %s with %d attempts", d.Status, d.Attempts)
			}
		}
		reqs := rc.waitRequests(t, 2)
		if len(reqs) != 2 {
			t.Fatalf("%d requests after resume, want 2", len(reqs))
		}
		for _, r := range reqs {
			verify(t, r, secretA)
		}
	})
}

// TestWebhookRotation: while a rotated secret overlaps, a delivery carries
// one v1 per secret, newest first, and verifies with either; without
// overlap only the new one signs.
func TestWebhookRotation(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		rc := mustReceiver(t, false, nil)
		e := h.endpoint(t, sello.EnvTest, rc.URL, secretA)
		rotate := func(secret string, overlap time.Duration) {
			s, err := sello.NewWebhookSecret(h.mk, e.ID, secret)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.RotateWebhookSecret(t.Context(), h.tenant.ID, e.ID, s, overlap, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		h.start(t)

		rotate(secretB, sello.WebhookSecretOverlap)
		h.wait(t, h.test(t, e).ID, final)
		r := rc.waitRequests(t, 1)[0]
		sig := signature(t, r)
		if len(sig.V1) != 2 {
			t.Fatalf("%d v1 during the overlap, want 2: %s", len(sig.V1), r.header.Get("Sello-Signature"))
		}
		if newest := webhook.Sign([]string{secretB}, time.Unix(sig.Timestamp, 0), r.body); !strings.HasSuffix(newest, "v1="+sig.V1[0]) {
			t.Fatal("the first v1 is not the new secret's")
		}
		verify(t, r, secretA)
		verify(t, r, secretB)

		rotate(secretC, 0)
		h.wait(t, h.test(t, e).ID, final)
		r = rc.waitRequests(t, 2)[1]
		if sig := signature(t, r); len(sig.V1) != 1 {
			t.Fatalf("%d v1 after a rotation without overlap, want 1", len(sig.V1))
		}
		verify(t, r, secretC)
		if _, err := client.VerifyWebhook(r.body, r.header.Get("Sello-Signature"), []string{secretB}, time.Now()); !errors.Is(err, client.ErrSignatureMismatch) {
			t.Fatalf("the replaced secret still verifies: %v", err)
		}
	})
}

// TestWebhookRedirect: a 3xx is a failure, the Location is never
// requested, and the delivery fails after the eighth attempt.
func TestWebhookRedirect(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}})
		target := mustReceiver(t, false, nil)
		rc := mustReceiver(t, false, func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
		})
		e := h.endpoint(t, sello.EnvTest, rc.URL, secretA)
		h.start(t)
		d := h.wait(t, h.test(t, e).ID, final)
		if d.Status != sello.WebhookFailed || d.Attempts != sello.MaxWebhookAttempts || len(d.AttemptLog) != sello.MaxWebhookAttempts {
			t.Fatalf("delivery: %s after %d attempts (%d logged), want failed after %d", d.Status, d.Attempts, len(d.AttemptLog), sello.MaxWebhookAttempts)
		}
		for _, a := range d.AttemptLog {
			if a.ResponseStatus != 302 || a.ErrorClass != "http_status" || !strings.Contains(a.Error, "redirects are not followed") {
				t.Fatalf("attempt %d: %d %q %q", a.N, a.ResponseStatus, a.ErrorClass, a.Error)
			}
		}
		if n := len(rc.received()); n != sello.MaxWebhookAttempts {
			t.Fatalf("the endpoint got %d requests, want %d", n, sello.MaxWebhookAttempts)
		}
		if n, c := len(target.received()), target.conns.Load(); n != 0 || c != 0 {
			t.Fatalf("the redirect target got %d requests on %d connections", n, c)
		}
		if ep := h.findEndpoint(t, e.ID); ep.Status != sello.WebhookEndpointActive || ep.FailingSince == nil {
			t.Fatalf("endpoint %s, failing since %v: want active and failing", ep.Status, ep.FailingSince)
		}
	})
}

// TestWebhookBlocked: without the loopback allowance a loopback receiver is
// never connected to; with it, the allowance serves TesteCF and CerteCF
// endpoints but never eCF.
func TestWebhookBlocked(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		t.Run("NoAllowance", func(t *testing.T) {
			h := mustHookTest(t, st, worker.Config{})
			rc := mustReceiver(t, false, nil)
			e := h.endpoint(t, sello.EnvTest, rc.URL, secretA)
			h.start(t)
			d := h.wait(t, h.test(t, e).ID, final)
			if d.Status != sello.WebhookFailed || d.Attempts != sello.MaxWebhookAttempts {
				t.Fatalf("delivery %s after %d attempts", d.Status, d.Attempts)
			}
			for _, a := range d.AttemptLog {
				if a.ErrorClass != "blocked" || a.DialedIP != "" || a.ResponseStatus != 0 || !strings.Contains(a.Error, "loopback") {
					t.Fatalf("attempt %d: class %q, dialed %q, status %d, error %q", a.N, a.ErrorClass, a.DialedIP, a.ResponseStatus, a.Error)
				}
			}
			if n, c := len(rc.received()), rc.conns.Load(); n != 0 || c != 0 {
				t.Fatalf("the receiver got %d requests on %d connections", n, c)
			}
		})
		t.Run("NeverForECF", func(t *testing.T) {
			rc := mustReceiver(t, true, nil)
			opts := webhook.Options{AllowLoopback: true, RootCAs: rc.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
			h := mustHookTest(t, st, worker.Config{Webhooks: opts, WebhookDelay: func(int, *webhook.Attempt) (time.Duration, bool) { return 0, false }})
			prod := h.endpoint(t, sello.EnvProd, rc.URL, secretA)
			cert := h.endpoint(t, sello.EnvCert, rc.URL, secretB)
			h.start(t)
			d := h.wait(t, h.test(t, prod).ID, final)
			if a := d.AttemptLog[0]; d.Status != sello.WebhookFailed || a.ErrorClass != "blocked" || a.DialedIP != "" || !strings.Contains(a.Error, "never applies to eCF") {
				t.Fatalf("eCF delivery %s: class %q, dialed %q, error %q", d.Status, a.ErrorClass, a.DialedIP, a.Error)
			}
			if n, c := len(rc.received()), rc.conns.Load(); n != 0 || c != 0 {
				t.Fatalf("an eCF delivery reached loopback: %d requests on %d connections", n, c)
			}
			// The same receiver, for a CerteCF endpoint of the same worker.
			if d := h.wait(t, h.test(t, cert).ID, final); d.Status != sello.WebhookSucceeded {
				t.Fatalf("CerteCF delivery %s: %q", d.Status, d.LastError)
			}
			verify(t, rc.waitRequests(t, 1)[0], secretB)
		})
	})
}

// TestWebhookFailingFiveDays: an endpoint that has failed for more than
// five days without a success is disabled at its next failure.
func TestWebhookFailingFiveDays(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		noRetry := func(int, *webhook.Attempt) (time.Duration, bool) { return 0, false }
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}, WebhookDelay: noRetry})
		rc := mustReceiver(t, false, answer(http.StatusBadGateway))
		e := h.endpoint(t, sello.EnvTest, rc.URL, secretA)
		h.start(t)

		h.offset.Store(int64(-6 * 24 * time.Hour))
		first := h.wait(t, h.test(t, e).ID, final)
		if first.Status != sello.WebhookFailed {
			t.Fatalf("first delivery %s", first.Status)
		}
		h.waitJobDone(t, first.ID) // the job would disable it after recording the attempt
		ep := h.findEndpoint(t, e.ID)
		if ep.Status != sello.WebhookEndpointActive || ep.FailingSince == nil || time.Since(*ep.FailingSince) < 5*24*time.Hour {
			t.Fatalf("after the first failure: %s, failing since %v", ep.Status, ep.FailingSince)
		}
		if len(h.disabledEvents(t, sello.EnvTest, 0)) != 0 {
			t.Fatal("disabled at the first failure")
		}

		h.offset.Store(0)
		h.wait(t, h.test(t, e).ID, final)
		ep = h.waitDisabled(t, e.ID)
		if !strings.Contains(ep.DisabledReason, "5 days") {
			t.Fatalf("after six days of failures: %s, reason %q", ep.Status, ep.DisabledReason)
		}
		if events := h.disabledEvents(t, sello.EnvTest, 1); len(events) != 1 || events[0].Data.Payload["endpointId"] != e.ID {
			t.Fatalf("disabled events %v", events)
		}
	})
}

// TestDeliverWebhookDirect runs the delivery step without River: a
// delivery not due yet is not attempted (a job run again after a crash),
// an unknown delivery is done with, and an attempt cut short by the
// context is not recorded.
func TestDeliverWebhookDirect(t *testing.T) {
	forEachStore(t, func(t *testing.T, st storetest.Store) {
		h := mustHookTest(t, st, worker.Config{Webhooks: webhook.Options{AllowLoopback: true}, WebhookDelay: fixedDelay(time.Hour)})

		t.Run("NotDue", func(t *testing.T) {
			rc := mustReceiver(t, false, answer(http.StatusServiceUnavailable))
			d := h.test(t, h.endpoint(t, sello.EnvTest, rc.URL, secretA))
			next, err := h.w.DeliverWebhook(t.Context(), d.ID)
			if err != nil || next == nil || next.Sub(time.Now()) < 50*time.Minute {
				t.Fatalf("after a 503: next %v, %v; want about an hour from now", next, err)
			}
			again, err := h.w.DeliverWebhook(t.Context(), d.ID)
			if err != nil || again == nil || !again.Equal(*next) {
				t.Fatalf("run again: next %v, %v; want %v", again, err, next)
			}
			if n := len(rc.received()); n != 1 {
				t.Fatalf("the receiver got %d requests, want 1", n)
			}
			if got := h.wait(t, d.ID, status(sello.WebhookPending)); got.Attempts != 1 {
				t.Fatalf("%d attempts", got.Attempts)
			}
		})

		t.Run("Unknown", func(t *testing.T) {
			if next, err := h.w.DeliverWebhook(t.Context(), sello.NewID()); next != nil || err != nil {
				t.Fatalf("unknown delivery: %v, %v", next, err)
			}
		})

		t.Run("Interrupted", func(t *testing.T) {
			rc := mustReceiver(t, false, func(_ int, w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			d := h.test(t, h.endpoint(t, sello.EnvTest, rc.URL, secretA))
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			next, err := h.w.DeliverWebhook(ctx, d.ID)
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "interrupted") || next != nil {
				t.Fatalf("interrupted attempt: %v, %v", next, err)
			}
			rc.waitRequests(t, 1)
			got := h.wait(t, d.ID, status(sello.WebhookPending))
			if got.Attempts != 0 || len(got.AttemptLog) != 0 {
				t.Fatalf("the interrupted attempt was recorded: %d attempts", got.Attempts)
			}
		})
	})
}
