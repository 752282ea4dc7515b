package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// webhookKey is the master key the suite seals webhook secrets with.
var webhookKey = func() *sello.MasterKey {
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		panic(err)
	}
	return mk
}()

// secretN is a valid customer secret, distinct for each n.
func secretN(n int) string {
	return "whsec_storetest_secret_" + strings.Repeat(string(rune('a'+n)), 16)
}

// MustCreateWebhookEndpoint creates an active endpoint of the tenant in en
// subscribed to events (all when none), with secret secretN(0).
func MustCreateWebhookEndpoint(tb testing.TB, s sello.Store, tenantID string, en sello.Environment, events ...sello.EventType) *sello.WebhookEndpoint {
	tb.Helper()
	ep, err := sello.NewWebhookEndpoint(webhookKey, tenantID, en, "https://hooks.example.com/sello", events, secretN(0))
	if err != nil {
		tb.Fatalf("NewWebhookEndpoint: %v", err)
	}
	if err := s.CreateWebhookEndpoint(tb.Context(), ep); err != nil {
		tb.Fatalf("CreateWebhookEndpoint: %v", err)
	}
	return ep
}

func mustEndpoint(tb testing.TB, s sello.Store, ep *sello.WebhookEndpoint) *sello.WebhookEndpoint {
	tb.Helper()
	got, err := s.FindWebhookEndpoint(tb.Context(), ep.TenantID, ep.ID)
	if err != nil {
		tb.Fatalf("FindWebhookEndpoint: %v", err)
	}
	return got
}

func mustDeliveries(tb testing.TB, s sello.Store, tenantID string, en sello.Environment, f sello.WebhookDeliveryFilter) []*sello.WebhookDelivery {
	tb.Helper()
	f.Limit = cmpOr(f.Limit, sello.MaxPageSize)
	ds, err := s.ListWebhookDeliveries(tb.Context(), tenantID, en, f)
	if err != nil {
		tb.Fatalf("ListWebhookDeliveries: %v", err)
	}
	return ds
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func mustDelivery(tb testing.TB, s sello.Store, tenantID, id string) *sello.WebhookDelivery {
	tb.Helper()
	d, err := s.FindWebhookDelivery(tb.Context(), tenantID, id)
	if err != nil {
		tb.Fatalf("FindWebhookDelivery: %v", err)
	}
	return d
}

// deliveriesTo returns the deliveries to endpoint id among ds.
func deliveriesTo(ds []*sello.WebhookDelivery, id string) []*sello.WebhookDelivery {
	var out []*sello.WebhookDelivery
	for _, d := range ds {
		if d.EndpointID == id {
			out = append(out, d)
		}
	}
	return out
}

func deliveryIDs(ds []*sello.WebhookDelivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.ID
	}
	slices.Sort(out)
	return out
}

// mustWebhookJobs returns the delivery ids of the sello.webhook jobs, sorted
// (duplicates kept).
func mustWebhookJobs(tb testing.TB, r sello.JobRunner) []string {
	tb.Helper()
	l, ok := r.(jobLister)
	if !ok {
		tb.Fatalf("runner %T cannot list jobs", r)
	}
	res, err := l.JobList(tb.Context(), river.NewJobListParams().Kinds(sello.WebhookJob{}.Kind()).First(10_000))
	if err != nil {
		tb.Fatalf("JobList: %v", err)
	}
	out := []string{}
	for _, j := range res.Jobs {
		var args sello.WebhookJob
		if err := json.Unmarshal(j.EncodedArgs, &args); err != nil {
			tb.Fatalf("decode job args %s: %v", j.EncodedArgs, err)
		}
		if j.MaxAttempts != sello.WebhookJobMaxAttempts {
			tb.Errorf("job of delivery %s: MaxAttempts %d, want %d", args.DeliveryID, j.MaxAttempts, sello.WebhookJobMaxAttempts)
		}
		out = append(out, args.DeliveryID)
	}
	slices.Sort(out)
	return out
}

// webhookEnv is a store with a tenant that has a range of type 31 in
// TesteCF, and a job runner (never started) to list jobs.
type webhookEnv struct {
	env
	tn *sello.Tenant
	r  sello.JobRunner
}

func newWebhookEnv(t *testing.T, open func(t *testing.T) sello.Store) webhookEnv {
	t.Helper()
	e := newEnv(t, open)
	tn := MustCreateTenant(t, e.s)
	for _, en := range sello.Environments {
		MustAddSequence(t, e.s, tn.ID, en, sello.TypeCreditoFiscal, 1, 1000)
	}
	r := newRunner(t, e.s, func(context.Context, stepArgs) error { return nil })
	return webhookEnv{env: e, tn: tn, r: r}
}

// emit writes an ecf.queued event of the tenant in en (by creating a
// document) and returns it.
func (w webhookEnv) emit(t *testing.T, en sello.Environment) *sello.Event {
	t.Helper()
	doc := MustCreateDocument(t, w.s, newDoc(w.tn.ID, en, sello.TypeCreditoFiscal))
	for _, ev := range mustEvents(t, w.s, w.tn.ID, en) {
		if ev.Document != nil && ev.Document.ID == doc.ID {
			return ev
		}
	}
	t.Fatalf("no event of document %s", doc.ID)
	return nil
}

// attempt is a failed attempt of d at at.
func attempt(d *sello.WebhookDelivery, at time.Time, status int) *sello.WebhookAttempt {
	return &sello.WebhookAttempt{
		DeliveryID: d.ID, At: at,
		RequestHeaders:  map[string][]string{"Sello-Event-Id": {d.EventID}, "Content-Type": {"application/json"}},
		RequestBody:     []byte(`{"id":"` + d.EventID + `"}`),
		ResponseStatus:  status,
		ResponseHeaders: map[string][]string{"Content-Type": {"text/plain"}},
		ResponseBody:    []byte("nope"),
		Latency:         1234567 * time.Microsecond,
		DialedIP:        "203.0.113.7",
		ErrorClass:      "http_status",
	}
}

func mustRecord(tb testing.TB, s sello.Store, a *sello.WebhookAttempt, o sello.WebhookOutcome) *sello.WebhookDelivery {
	tb.Helper()
	d, err := s.RecordWebhookAttempt(tb.Context(), a, o)
	if err != nil {
		tb.Fatalf("RecordWebhookAttempt: %v", err)
	}
	return d
}

func testWebhooks(t *testing.T, open func(t *testing.T) sello.Store) {
	t.Run("Endpoint", func(t *testing.T) { testWebhookEndpoint(t, open) })
	t.Run("FanOut", func(t *testing.T) { testWebhookFanOut(t, open) })
	t.Run("PauseResume", func(t *testing.T) { testWebhookPauseResume(t, open) })
	t.Run("PauseResumeConcurrent", func(t *testing.T) { testWebhookPauseResumeConcurrent(t, open) })
	t.Run("Rotate", func(t *testing.T) { testWebhookRotate(t, open) })
	t.Run("RecordAttempt", func(t *testing.T) { testWebhookRecordAttempt(t, open) })
	t.Run("RecordConcurrent", func(t *testing.T) { testWebhookRecordConcurrent(t, open) })
	t.Run("Disable", func(t *testing.T) { testWebhookDisable(t, open) })
	t.Run("Delete", func(t *testing.T) { testWebhookDelete(t, open) })
	t.Run("Replay", func(t *testing.T) { testWebhookReplay(t, open) })
	t.Run("ReplayFailed", func(t *testing.T) { testWebhookReplayFailed(t, open) })
	t.Run("TestDelivery", func(t *testing.T) { testWebhookTestDelivery(t, open) })
	t.Run("List", func(t *testing.T) { testWebhookList(t, open) })
	t.Run("Retention", func(t *testing.T) { testWebhookRetention(t, open) })
	t.Run("TenantIsolation", func(t *testing.T) { testWebhookIsolation(t, open) })
}

func testWebhookEndpoint(t *testing.T, open func(t *testing.T) sello.Store) {
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
	})
}

func testWebhookFanOut(t *testing.T, open func(t *testing.T) sello.Store) {
	t.Run("OK", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		ctx := t.Context()
		all := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		queued := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventECFQueued, sello.EventECFSigned)
		signed := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventECFSigned)
		paused := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, paused.ID); err != nil {
			t.Fatalf("PauseWebhookEndpoint: %v", err)
		}
		disabled := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, disabled.ID, "test", w.clock.Now()); err != nil {
			t.Fatalf("DisableWebhookEndpoint: %v", err)
		}
		cert := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvCert)
		other := MustCreateTenant(t, w.s)
		otherEP := MustCreateWebhookEndpoint(t, w.s, other.ID, sello.EnvTest)
		before := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) // disabled event's

		ev := w.emit(t, sello.EnvTest)
		var ds []*sello.WebhookDelivery
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.EventID == ev.ID {
				ds = append(ds, d)
			}
		}
		if len(ds) != 3 {
			t.Fatalf("deliveries of the event: got %d, want 3 (all, queued, paused)", len(ds))
		}
		for _, tc := range []struct {
			ep     *sello.WebhookEndpoint
			status sello.WebhookDeliveryStatus
		}{{all, sello.WebhookPending}, {queued, sello.WebhookPending}, {paused, sello.WebhookHeld}} {
			got := deliveriesTo(ds, tc.ep.ID)
			if len(got) != 1 {
				t.Fatalf("deliveries to %s: got %d, want 1", tc.ep.ID, len(got))
			}
			d := got[0]
			var next *time.Time
			if tc.status == sello.WebhookPending {
				next = &ev.CreatedAt
			}
			want := &sello.WebhookDelivery{
				ID: d.ID, EndpointID: tc.ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: ev.ID,
				EventType: sello.EventECFQueued, Status: tc.status, NextAttemptAt: next, Trigger: sello.WebhookTriggerEvent,
				CreatedAt: ev.CreatedAt, UpdatedAt: ev.CreatedAt,
			}
			deepEqual(t, "delivery to "+string(tc.status), d, want)
		}
		for _, ep := range []*sello.WebhookEndpoint{signed, disabled} {
			if got := deliveriesTo(ds, ep.ID); len(got) != 0 {
				t.Errorf("deliveries to an endpoint that must get none: got %d", len(got))
			}
		}
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvCert, sello.WebhookDeliveryFilter{}); len(deliveriesTo(got, cert.ID)) != 0 {
			t.Errorf("deliveries in CerteCF: got %d, want none", len(got))
		}
		if got := mustDeliveries(t, w.s, other.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(deliveriesTo(got, otherEP.ID)) != 0 {
			t.Errorf("deliveries to another tenant: got %d, want none", len(got))
		}
		// Exactly one job per pending delivery, the disabled event's included.
		var pending []*sello.WebhookDelivery
		for _, d := range append(before, ds...) {
			if d.Status == sello.WebhookPending {
				pending = append(pending, d)
			}
		}
		deepEqual(t, "webhook jobs", mustWebhookJobs(t, w.r), deliveryIDs(pending))

		// A lifecycle event fans out too: the signed event reaches all,
		// queued and signed.
		doc, err := w.s.FindDocumentByID(ctx, w.tn.ID, sello.EnvTest, ev.Document.ID)
		if err != nil {
			t.Fatal(err)
		}
		mustUpdate(t, w.s, doc, signChange())
		var signedTo []string
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.EventType == sello.EventECFSigned {
				signedTo = append(signedTo, d.EndpointID)
			}
		}
		slices.Sort(signedTo)
		want := []string{all.ID, queued.ID, signed.ID, paused.ID}
		slices.Sort(want)
		deepEqual(t, "endpoints of ecf.signed", signedTo, want)
	})
	t.Run("NoEndpoints", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		w.emit(t, sello.EnvTest)
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 0 {
			t.Errorf("deliveries: got %d, want none", len(got))
		}
		if got := mustWebhookJobs(t, w.r); len(got) != 0 {
			t.Errorf("webhook jobs: got %d, want none", len(got))
		}
	})
	t.Run("RolledBack", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		nd := newDoc(w.tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.ENCF = encf(sello.TypeCreditoFiscal, 1)
		MustCreateDocument(t, w.s, nd)
		if _, _, err := w.s.CreateDocument(t.Context(), nd); sello.ErrorCodeOf(err) != sello.CodeConflict {
			t.Fatalf("create a used e-NCF: got %v, want CONFLICT", err)
		}
		if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 1 {
			t.Errorf("deliveries: got %d, want 1 (the failed create wrote none)", len(got))
		}
		if got := mustWebhookJobs(t, w.r); len(got) != 1 {
			t.Errorf("webhook jobs: got %d, want 1", len(got))
		}
	})
}

func testWebhookPauseResume(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	first := w.emit(t, sello.EnvTest)
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatalf("PauseWebhookEndpoint: %v", err)
	}
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatalf("PauseWebhookEndpoint again: %v", err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointPaused || !got.UpdatedAt.After(ep.UpdatedAt) {
		t.Errorf("paused endpoint: status %q, updated %v", got.Status, got.UpdatedAt)
	}
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	var held, pending []*sello.WebhookDelivery
	for _, d := range ds {
		switch d.Status {
		case sello.WebhookHeld:
			held = append(held, d)
		case sello.WebhookPending:
			pending = append(pending, d)
		}
	}
	if len(held) != 2 || len(pending) != 1 || pending[0].EventID != first.ID {
		t.Fatalf("deliveries: got %d held, %d pending; want 2 held and the first event's pending", len(held), len(pending))
	}
	deepEqual(t, "jobs while paused", mustWebhookJobs(t, w.r), deliveryIDs(pending))

	// The job of the pending delivery finds the endpoint paused and holds it.
	if ok, err := w.s.HoldWebhookDelivery(ctx, pending[0].ID); !ok || err != nil {
		t.Fatalf("HoldWebhookDelivery: got %v, %v; want true", ok, err)
	}
	if ok, err := w.s.HoldWebhookDelivery(ctx, pending[0].ID); ok || err != nil {
		t.Errorf("HoldWebhookDelivery again: got %v, %v; want false", ok, err)
	}
	if d := mustDelivery(t, w.s, w.tn.ID, pending[0].ID); d.Status != sello.WebhookHeld || d.NextAttemptAt != nil {
		t.Errorf("held delivery: status %q, next %v", d.Status, d.NextAttemptAt)
	}
	_, err := w.s.HoldWebhookDelivery(ctx, "no-such-delivery")
	wantError(t, err, sello.CodeNotFound, "no-such-delivery")

	n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	if err != nil || n != 3 {
		t.Fatalf("ResumeWebhookEndpoint: got %d, %v; want 3", n, err)
	}
	ds = mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	for _, d := range ds {
		if d.Status != sello.WebhookPending || d.NextAttemptAt == nil {
			t.Errorf("delivery after resume: status %q, next %v; want pending and due", d.Status, d.NextAttemptAt)
		}
	}
	// The first delivery's job was inserted twice: at fan-out (its job then
	// held it and ended) and at resume.
	want := append(deliveryIDs(ds), pending[0].ID)
	slices.Sort(want)
	deepEqual(t, "jobs after resume", mustWebhookJobs(t, w.r), want)
	if n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); n != 0 || err != nil {
		t.Errorf("resume an active endpoint: got %d, %v; want 0", n, err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointActive {
		t.Errorf("status after resume: got %q", got.Status)
	}
	// An active endpoint's pending delivery is not held.
	if ok, err := w.s.HoldWebhookDelivery(ctx, ds[0].ID); ok || err != nil {
		t.Errorf("hold a delivery of an active endpoint: got %v, %v; want false", ok, err)
	}
	_, err = w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint")
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint"), sello.CodeNotFound, "no-such-endpoint")
}

// testWebhookPauseResumeConcurrent creates documents while the endpoint is
// paused and resumed: once it is left active, no delivery may stay held,
// every event has exactly one delivery, and every pending delivery a job.
func testWebhookPauseResumeConcurrent(t *testing.T, open func(t *testing.T) sello.Store) {
	const producers, each, toggles = 4, 10, 10
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			for range each {
				if _, _, err := w.s.CreateDocument(ctx, newDoc(w.tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)); err != nil {
					t.Errorf("CreateDocument: %v", err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range toggles {
			if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
				t.Errorf("PauseWebhookEndpoint: %v", err)
				return
			}
			if _, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
				t.Errorf("ResumeWebhookEndpoint: %v", err)
				return
			}
		}
	})
	wg.Wait()
	ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	if len(ds) != producers*each {
		t.Fatalf("deliveries: got %d, want %d", len(ds), producers*each)
	}
	jobs := mustWebhookJobs(t, w.r)
	for _, d := range ds {
		if d.Status != sello.WebhookPending {
			t.Errorf("delivery %s: status %q, want pending (the endpoint is active)", d.ID, d.Status)
		} else if _, ok := slices.BinarySearch(jobs, d.ID); !ok {
			t.Errorf("pending delivery %s has no job", d.ID)
		}
	}
}

func testWebhookRotate(t *testing.T, open func(t *testing.T) sello.Store) {
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

func testWebhookRecordAttempt(t *testing.T, open func(t *testing.T) sello.Store) {
	t.Run("Transitions", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		ctx := t.Context()
		ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		w.emit(t, sello.EnvTest)
		d := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
		at1 := w.clock.Peek().Truncate(time.Microsecond)
		a1 := attempt(d, at1, 500)
		a1.ResponseBody = bytes.Repeat([]byte("x"), sello.WebhookResponseBodyLimit+100)
		next := at1.Add(5 * time.Second)
		got := mustRecord(t, w.s, a1, sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: next})
		if got.Status != sello.WebhookPending || got.Attempts != 1 || got.NextAttemptAt == nil || !got.NextAttemptAt.Equal(next) ||
			got.LastError != "HTTP 500" || a1.N != 1 {
			t.Errorf("after a failed attempt: %+v (attempt %d); want pending, 1 attempt, next %v, HTTP 500", got, a1.N, next)
		}
		if fs := mustEndpoint(t, w.s, ep).FailingSince; fs == nil || !fs.Equal(at1) {
			t.Errorf("FailingSince: got %v, want %v", fs, at1)
		}

		at2 := at1.Add(5 * time.Second)
		a2 := attempt(d, at2, 0)
		a2.ErrorClass, a2.Error, a2.DialedIP = "timeout", "no answer in 15 s", ""
		got = mustRecord(t, w.s, a2, sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: at2.Add(5 * time.Minute)})
		if got.Attempts != 2 || got.LastError != "no answer in 15 s" || a2.N != 2 {
			t.Errorf("after a second failure: %+v; want 2 attempts and the error", got)
		}
		if fs := mustEndpoint(t, w.s, ep).FailingSince; fs == nil || !fs.Equal(at1) {
			t.Errorf("FailingSince after a second failure: got %v, want the first, %v", fs, at1)
		}

		at3 := at2.Add(5 * time.Minute)
		a3 := attempt(d, at3, 204)
		a3.ErrorClass, a3.ResponseBody, a3.ResponseHeaders, a3.RequestHeaders = "", nil, nil, nil
		got = mustRecord(t, w.s, a3, sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		if got.Status != sello.WebhookSucceeded || got.Attempts != 3 || got.NextAttemptAt != nil || got.LastError != "" {
			t.Errorf("after a success: %+v; want succeeded, 3 attempts", got)
		}
		if fs := mustEndpoint(t, w.s, ep).FailingSince; fs != nil {
			t.Errorf("FailingSince after a success: got %v, want nil", fs)
		}

		full := mustDelivery(t, w.s, w.tn.ID, d.ID)
		if len(full.AttemptLog) != 3 {
			t.Fatalf("attempt log: got %d, want 3", len(full.AttemptLog))
		}
		want1 := *a1
		want1.ResponseBody = bytes.Repeat([]byte("x"), sello.WebhookResponseBodyLimit)
		deepEqual(t, "attempt 1", full.AttemptLog[0], &want1)
		deepEqual(t, "attempt 2", full.AttemptLog[1], a2)
		want3 := *a3
		want3.RequestHeaders, want3.ResponseHeaders = map[string][]string{}, map[string][]string{}
		deepEqual(t, "attempt 3", full.AttemptLog[2], &want3)
		full.AttemptLog = nil
		deepEqual(t, "delivery", full, got)

		// A late duplicate attempt is logged but does not undo the success.
		got = mustRecord(t, w.s, attempt(d, at3.Add(time.Second), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		if got.Status != sello.WebhookSucceeded || got.Attempts != 4 || got.LastError != "" {
			t.Errorf("after a late failure: %+v; want still succeeded, 4 attempts", got)
		}
		_ = ctx
	})
	t.Run("Failed", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		w.emit(t, sello.EnvTest)
		d := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
		got := mustRecord(t, w.s, attempt(d, w.clock.Peek(), 410), sello.WebhookOutcome{Status: sello.WebhookFailed})
		if got.Status != sello.WebhookFailed || got.NextAttemptAt != nil || got.LastError != "HTTP 410" {
			t.Errorf("after a final failure: %+v; want failed", got)
		}
		// A retry outcome does not revive a failed delivery; a success does.
		got = mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: w.clock.Peek()})
		if got.Status != sello.WebhookFailed || got.NextAttemptAt != nil {
			t.Errorf("failed after a retry outcome: %+v; want failed", got)
		}
		got = mustRecord(t, w.s, attempt(d, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		if got.Status != sello.WebhookSucceeded || got.Attempts != 3 {
			t.Errorf("failed after a success: %+v; want succeeded", got)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		w := newWebhookEnv(t, open)
		MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
		w.emit(t, sello.EnvTest)
		d := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
		_, err := w.s.RecordWebhookAttempt(t.Context(), attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: "retrying"})
		wantError(t, err, sello.CodeInvalidRequest, "retrying")
		_, err = w.s.RecordWebhookAttempt(t.Context(), attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookPending})
		wantError(t, err, sello.CodeInvalidRequest, "next attempt")
		_, err = w.s.RecordWebhookAttempt(t.Context(), &sello.WebhookAttempt{DeliveryID: "no-such-delivery"}, sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		wantError(t, err, sello.CodeNotFound, "no-such-delivery")
		if got := mustDelivery(t, w.s, w.tn.ID, d.ID); got.Attempts != 0 || len(got.AttemptLog) != 0 {
			t.Errorf("delivery after refused attempts: %d attempts, log %d; want none", got.Attempts, len(got.AttemptLog))
		}
	})
}

// testWebhookRecordConcurrent records attempts of the same deliveries from
// several goroutines while the endpoint is disabled: nothing fails or
// deadlocks, attempts are numbered 1 to n without gaps, and the disable
// wins over retries.
func testWebhookRecordConcurrent(t *testing.T, open func(t *testing.T) sello.Store) {
	const deliveries, workers = 8, 4
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	for range deliveries {
		w.emit(t, sello.EnvTest)
	}
	ds := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	now := w.clock.Peek()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for _, d := range ds {
				o := sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: now.Add(time.Minute)}
				if _, err := w.s.RecordWebhookAttempt(ctx, attempt(d, now, 500), o); err != nil {
					t.Errorf("RecordWebhookAttempt: %v", err)
				}
			}
		})
	}
	wg.Go(func() {
		if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "gone", now); err != nil {
			t.Errorf("DisableWebhookEndpoint: %v", err)
		}
	})
	wg.Wait()
	for _, d := range ds {
		got := mustDelivery(t, w.s, w.tn.ID, d.ID)
		if got.Status != sello.WebhookFailed || got.Attempts != workers || len(got.AttemptLog) != workers {
			t.Errorf("delivery %s: status %q, %d attempts, log %d; want failed with %d", d.ID, got.Status, got.Attempts, len(got.AttemptLog), workers)
			continue
		}
		for i, a := range got.AttemptLog {
			if a.N != i+1 {
				t.Errorf("delivery %s: attempt %d numbered %d", d.ID, i+1, a.N)
			}
		}
	}
	if fs := mustEndpoint(t, w.s, ep).FailingSince; fs == nil || !fs.Equal(now.Truncate(time.Microsecond)) {
		t.Errorf("FailingSince: got %v, want %v", fs, now)
	}
}

func testWebhookDisable(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	watcher := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest, sello.EventWebhookEndpointDisabled)
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	ds := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)
	mustRecord(t, w.s, attempt(ds[1], w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	w.emit(t, sello.EnvTest) // held
	eventsBefore := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest))

	now := w.clock.Peek().Truncate(time.Millisecond)
	ok, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "Failing for 5 days.", now)
	if !ok || err != nil {
		t.Fatalf("DisableWebhookEndpoint: got %v, %v; want true", ok, err)
	}
	got := mustEndpoint(t, w.s, ep)
	if got.Status != sello.WebhookEndpointDisabled || got.DisabledReason != "Failing for 5 days." || !got.UpdatedAt.Equal(now) {
		t.Errorf("endpoint: status %q, reason %q, updated %v", got.Status, got.DisabledReason, got.UpdatedAt)
	}
	for _, d := range deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID) {
		want := sello.WebhookFailed
		if d.ID == ds[1].ID {
			want = sello.WebhookSucceeded
		}
		if d.Status != want || d.NextAttemptAt != nil {
			t.Errorf("delivery %s: status %q, next %v; want %q", d.ID, d.Status, d.NextAttemptAt, want)
		}
		if want == sello.WebhookFailed && !strings.Contains(d.LastError, "Failing for 5 days.") {
			t.Errorf("delivery %s: LastError %q, want the reason", d.ID, d.LastError)
		}
	}
	evs := mustEvents(t, w.s, w.tn.ID, sello.EnvTest)
	if len(evs) != eventsBefore+1 {
		t.Fatalf("events: got %d, want %d", len(evs), eventsBefore+1)
	}
	ev := evs[len(evs)-1]
	if ev.Type != sello.EventWebhookEndpointDisabled || ev.Document != nil || !ev.CreatedAt.Equal(now) ||
		ev.Data.Severity != "warning" || !strings.Contains(ev.Data.Message, ep.URL) {
		t.Errorf("event: %+v", ev)
	}
	deepEqual(t, "payload", ev.Data.Payload, map[string]any{"endpointId": ep.ID, "url": ep.URL, "reason": "Failing for 5 days."})
	// The event fans out to the tenant's other endpoints, not to the one disabled.
	var toWatcher []*sello.WebhookDelivery
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == ev.ID {
			toWatcher = append(toWatcher, d)
		}
	}
	if len(toWatcher) != 1 || toWatcher[0].EndpointID != watcher.ID || toWatcher[0].Status != sello.WebhookPending {
		t.Errorf("deliveries of the disabled event: got %+v, want one pending to the watcher", toWatcher)
	}

	if ok, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "again", now); ok || err != nil {
		t.Errorf("disable again: got %v, %v; want false", ok, err)
	}
	if got := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest)); got != eventsBefore+1 {
		t.Errorf("events after disabling again: got %d, want %d", got, eventsBefore+1)
	}
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID), sello.CodeConflict, "disabled")
	// A disabled endpoint gets nothing.
	n := len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID))
	w.emit(t, sello.EnvTest)
	if got := len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)); got != n {
		t.Errorf("deliveries to the disabled endpoint: got %d, want %d", got, n)
	}
	// Resuming a disabled endpoint makes it active again.
	if n, err := w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID); n != 0 || err != nil {
		t.Errorf("resume the disabled endpoint: got %d, %v; want 0", n, err)
	}
	if got := mustEndpoint(t, w.s, ep); got.Status != sello.WebhookEndpointActive || got.DisabledReason != "" || got.FailingSince != nil {
		t.Errorf("endpoint after resume: %+v", got)
	}
	_, err = w.s.DisableWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint", "x", now)
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
}

func testWebhookReplay(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	orig := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
	mustRecord(t, w.s, attempt(orig, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})

	now := w.clock.Peek().Truncate(time.Microsecond)
	d, err := w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	if err != nil {
		t.Fatalf("ReplayWebhookDelivery: %v", err)
	}
	want := &sello.WebhookDelivery{
		ID: d.ID, EndpointID: ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: orig.EventID,
		EventType: orig.EventType, Status: sello.WebhookPending, NextAttemptAt: &now, Trigger: sello.WebhookTriggerReplay,
		ReplayOf: orig.ID, CreatedAt: now, UpdatedAt: now,
	}
	deepEqual(t, "replay", d, want)
	deepEqual(t, "stored replay", mustDelivery(t, w.s, w.tn.ID, d.ID), &sello.WebhookDelivery{
		ID: d.ID, EndpointID: ep.ID, TenantID: w.tn.ID, Environment: sello.EnvTest, EventID: orig.EventID,
		EventType: orig.EventType, Status: sello.WebhookPending, NextAttemptAt: &now, Trigger: sello.WebhookTriggerReplay,
		ReplayOf: orig.ID, CreatedAt: now, UpdatedAt: now, AttemptLog: []*sello.WebhookAttempt{},
	})
	if got := mustDelivery(t, w.s, w.tn.ID, orig.ID); got.Status != sello.WebhookFailed || got.Attempts != 1 {
		t.Errorf("original after replay: %+v; want unchanged", got)
	}
	deepEqual(t, "jobs", mustWebhookJobs(t, w.r), deliveryIDs([]*sello.WebhookDelivery{orig, d}))
	work, err := w.s.FindWebhookWork(ctx, d.ID)
	if err != nil {
		t.Fatalf("FindWebhookWork: %v", err)
	}
	if work.Event.ID != orig.EventID || work.Endpoint.ID != ep.ID {
		t.Errorf("work of the replay: event %s, endpoint %s", work.Event.ID, work.Endpoint.ID)
	}

	// Paused: the replay is held, without a job.
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	held, err := w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	if err != nil || held.Status != sello.WebhookHeld || held.NextAttemptAt != nil {
		t.Errorf("replay to a paused endpoint: got %+v, %v; want held", held, err)
	}
	if got := mustWebhookJobs(t, w.r); len(got) != 2 {
		t.Errorf("jobs: got %d, want 2", len(got))
	}
	// Disabled: refused.
	if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "x", now); err != nil {
		t.Fatal(err)
	}
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, orig.ID, now)
	wantError(t, err, sello.CodeConflict, ep.ID)
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, "no-such-delivery", now)
	wantError(t, err, sello.CodeNotFound, "no-such-delivery")
}

func testWebhookReplayFailed(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	a := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	b := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	fail := func() {
		t.Helper()
		for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
			if d.Status == sello.WebhookPending {
				mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
			}
		}
	}
	w.emit(t, sello.EnvTest) // before since: not replayed
	fail()
	w.clock.Add(time.Hour)
	since := w.clock.Peek()
	w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	fail()
	w.emit(t, sello.EnvTest) // pending: not replayed
	jobs := len(mustWebhookJobs(t, w.r))

	now := w.clock.Peek()
	n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, a.ID, since, now)
	if err != nil || n != 2 {
		t.Fatalf("replay the failed deliveries to A: got %d, %v; want 2", n, err)
	}
	n, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", since, now)
	if err != nil || n != 2 {
		t.Fatalf("replay all failed deliveries: got %d, %v; want 2 (B's; A's were replayed)", n, err)
	}
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", since, now); n != 0 || err != nil {
		t.Errorf("replay again: got %d, %v; want 0", n, err)
	}
	replays := 0
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.Trigger != sello.WebhookTriggerReplay {
			continue
		}
		replays++
		orig := mustDelivery(t, w.s, w.tn.ID, d.ReplayOf)
		if orig.Status != sello.WebhookFailed || orig.CreatedAt.Before(since) || d.EventID != orig.EventID ||
			d.EndpointID != orig.EndpointID || d.Status != sello.WebhookPending {
			t.Errorf("replay %+v of %+v", d, orig)
		}
	}
	if replays != 4 || len(mustWebhookJobs(t, w.r)) != jobs+4 {
		t.Errorf("replays: got %d, jobs %d; want 4 replays with a job each", replays, len(mustWebhookJobs(t, w.r))-jobs)
	}
	// A failed replay is replayed in its turn.
	fail()
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, b.ID, since, now); n != 3 || err != nil {
		t.Errorf("replay B's failed again: got %d, %v; want 3 (2 replays, 1 newer delivery)", n, err)
	}
	if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, a.ID, "x", now); err != nil {
		t.Fatal(err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, a.ID, since, now)
	wantError(t, err, sello.CodeConflict, a.ID)
	// Replaying everything since the start skips the disabled endpoint's
	// (its first failed delivery was never replayed): only B's first.
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", time.Time{}, now); err != nil || n != 1 {
		t.Errorf("replay all with A disabled: got %d, %v; want 1", n, err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "no-such-endpoint", since, now)
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvCert, b.ID, since, now)
	wantError(t, err, sello.CodeNotFound, b.ID)
}

func testWebhookTestDelivery(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvCert, sello.EventECFAccepted)
	now := w.clock.Peek().Truncate(time.Microsecond)
	d, err := w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, now)
	if err != nil {
		t.Fatalf("CreateTestWebhookDelivery: %v", err)
	}
	if d.Trigger != sello.WebhookTriggerTest || d.Status != sello.WebhookPending || d.EventType != sello.EventWebhookEndpointTest ||
		d.EventID == "" || d.Environment != sello.EnvCert || d.EndpointID != ep.ID {
		t.Errorf("test delivery: %+v", d)
	}
	d.AttemptLog = []*sello.WebhookAttempt{}
	deepEqual(t, "stored test delivery", mustDelivery(t, w.s, w.tn.ID, d.ID), d)
	deepEqual(t, "jobs", mustWebhookJobs(t, w.r), []string{d.ID})
	work, err := w.s.FindWebhookWork(ctx, d.ID)
	if err != nil {
		t.Fatalf("FindWebhookWork: %v", err)
	}
	want := &sello.Event{
		ID: d.EventID, Type: sello.EventWebhookEndpointTest, CreatedAt: now, TenantID: w.tn.ID, Environment: sello.EnvCert,
		Data: sello.EventData{Severity: "info", Message: "A test event from Sello.", Payload: map[string]any{"endpointId": ep.ID}},
	}
	deepEqual(t, "test event", work.Event, want)
	if r := work.Event.Resource(); r.Environment != "certecf" || r.Type != "webhook_endpoint.test" {
		t.Errorf("resource: %+v", r)
	}
	if evs := mustEvents(t, w.s, w.tn.ID, sello.EnvCert); len(evs) != 0 {
		t.Errorf("events outbox: got %d events, want none (test events are not in it)", len(evs))
	}
	// A replay of a test delivery carries the same test event.
	r, err := w.s.ReplayWebhookDelivery(ctx, w.tn.ID, d.ID, now)
	if err != nil {
		t.Fatalf("replay the test delivery: %v", err)
	}
	if work, err := w.s.FindWebhookWork(ctx, r.ID); err != nil || work.Event.ID != d.EventID || r.EventID != d.EventID {
		t.Errorf("work of the test replay: %v, %v", work, err)
	}

	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	if held, err := w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, now); err != nil || held.Status != sello.WebhookHeld {
		t.Errorf("test delivery to a paused endpoint: %+v, %v; want held", held, err)
	}
	if _, err := w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "x", now); err != nil {
		t.Fatal(err)
	}
	_, err = w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, now)
	wantError(t, err, sello.CodeConflict, ep.ID)
	_, err = w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, "no-such-endpoint", now)
	wantError(t, err, sello.CodeNotFound, "no-such-endpoint")
}

func testWebhookList(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	a := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	b := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvProd)
	w.emit(t, sello.EnvTest)
	w.clock.Add(time.Hour)
	since := w.clock.Peek()
	ev := w.emit(t, sello.EnvTest)
	w.emit(t, sello.EnvProd)
	all := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	if len(all) != 4 {
		t.Fatalf("deliveries in TesteCF: got %d, want 4", len(all))
	}
	for i := 1; i < len(all); i++ {
		if all[i].CreatedAt.After(all[i-1].CreatedAt) {
			t.Errorf("deliveries not newest first: %v after %v", all[i].CreatedAt, all[i-1].CreatedAt)
		}
	}
	for _, d := range deliveriesTo(all, b.ID) {
		if d.EventID == ev.ID {
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		}
	}
	for _, tc := range []struct {
		name string
		f    sello.WebhookDeliveryFilter
		want int
	}{
		{"Endpoint", sello.WebhookDeliveryFilter{EndpointID: a.ID}, 2},
		{"Since", sello.WebhookDeliveryFilter{Since: since}, 2},
		{"FailedOnly", sello.WebhookDeliveryFilter{FailedOnly: true}, 1},
		{"FailedOnlyOfA", sello.WebhookDeliveryFilter{FailedOnly: true, EndpointID: a.ID}, 0},
		{"Limit", sello.WebhookDeliveryFilter{Limit: 3}, 3},
		{"All", sello.WebhookDeliveryFilter{EndpointID: b.ID, Since: since, FailedOnly: true}, 1},
	} {
		got, err := w.s.ListWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("%s: got %d, %v; want %d", tc.name, len(got), err, tc.want)
		}
		for _, d := range got {
			if d.Environment != sello.EnvTest || d.TenantID != w.tn.ID || (tc.f.FailedOnly && d.Status != sello.WebhookFailed) ||
				(tc.f.EndpointID != "" && d.EndpointID != tc.f.EndpointID) || d.CreatedAt.Before(tc.f.Since) {
				t.Errorf("%s: got %+v", tc.name, d)
			}
		}
	}
	if got := mustDeliveries(t, w.s, w.tn.ID, sello.EnvProd, sello.WebhookDeliveryFilter{}); len(got) != 1 {
		t.Errorf("deliveries in eCF: got %d, want 1", len(got))
	}
}

func testWebhookRetention(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	done := w.emit(t, sello.EnvTest)   // delivered: deleted with its event
	failed := w.emit(t, sello.EnvTest) // failed: deleted too
	open_ := w.emit(t, sello.EnvTest)  // still pending: kept
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		switch d.EventID {
		case done.ID:
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		case failed.ID:
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
		}
	}
	test, err := w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	mustRecord(t, w.s, attempt(test, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	noHooks := MustCreateTenant(t, w.s)
	MustAddSequence(t, w.s, noHooks.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	MustCreateDocument(t, w.s, newDoc(noHooks.ID, sello.EnvTest, sello.TypeCreditoFiscal))

	w.clock.Add(sello.EventRetention)
	cutoff := w.clock.Peek()
	w.clock.Add(time.Hour)
	recent := w.emit(t, sello.EnvTest)

	n, err := w.s.DeleteEventsBefore(ctx, cutoff)
	if err != nil || n != 3 {
		t.Fatalf("DeleteEventsBefore: got %d, %v; want 3 (two of the tenant's, one of the other)", n, err)
	}
	var ids []string
	for _, ev := range mustEvents(t, w.s, w.tn.ID, sello.EnvTest) {
		ids = append(ids, ev.ID)
	}
	deepEqual(t, "events kept", ids, []string{open_.ID, recent.ID})
	if got := mustEvents(t, w.s, noHooks.ID, sello.EnvTest); len(got) != 0 {
		t.Errorf("other tenant's events: got %d, want none", len(got))
	}
	var kept []string
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		kept = append(kept, d.EventID)
	}
	slices.Sort(kept)
	want := []string{open_.ID, recent.ID}
	slices.Sort(want)
	deepEqual(t, "deliveries kept (by event)", kept, want)
	_, err = w.s.FindWebhookDelivery(ctx, w.tn.ID, test.ID)
	wantError(t, err, sello.CodeNotFound)
	// The kept delivery still works.
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == open_.ID {
			if work, err := w.s.FindWebhookWork(ctx, d.ID); err != nil || work.Event.ID != open_.ID {
				t.Errorf("work of the kept delivery: %v, %v", work, err)
			}
			mustRecord(t, w.s, attempt(d, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
		}
	}
	// Once final, the next pass deletes it.
	if n, err := w.s.DeleteEventsBefore(ctx, cutoff); n != 1 || err != nil {
		t.Errorf("second pass: got %d, %v; want 1", n, err)
	}
	if n, err := w.s.DeleteEventsBefore(ctx, cutoff); n != 0 || err != nil {
		t.Errorf("third pass: got %d, %v; want 0", n, err)
	}
}

// testWebhookIsolation calls every tenant-scoped webhook method with
// another tenant's id and checks it neither sees nor changes anything.
// testWebhookDelete: a deleted endpoint is gone for every method that
// takes its id and for the list, gets no more deliveries, and its pending
// and held deliveries fail; its log stays, and a job already queued finds
// it disabled.
func testWebhookDelete(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	other := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	done := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)[0]
	mustRecord(t, w.s, attempt(done, w.clock.Peek(), 200), sello.WebhookOutcome{Status: sello.WebhookSucceeded})
	w.emit(t, sello.EnvTest) // pending
	if err := w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID); err != nil {
		t.Fatal(err)
	}
	w.emit(t, sello.EnvTest) // held
	eventsBefore := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest))
	now := w.clock.Peek().Truncate(time.Millisecond)

	if err := w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, ep.ID, now); err != nil {
		t.Fatalf("DeleteWebhookEndpoint: %v", err)
	}
	_, err := w.s.FindWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if got, err := w.s.FindWebhookEndpoints(ctx, w.tn.ID, sello.EnvTest); err != nil || len(got) != 1 || got[0].ID != other.ID {
		t.Errorf("FindWebhookEndpoints after delete: got %v, %v; want only the other endpoint", got, err)
	}
	ds := deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), ep.ID)
	if len(ds) != 3 {
		t.Fatalf("deliveries of the deleted endpoint: got %d, want 3 (the log stays)", len(ds))
	}
	for _, d := range ds {
		switch {
		case d.ID == done.ID && d.Status != sello.WebhookSucceeded:
			t.Errorf("the succeeded delivery became %q", d.Status)
		case d.ID != done.ID && (d.Status != sello.WebhookFailed || d.LastError != sello.WebhookEndpointDeleted || d.NextAttemptAt != nil):
			t.Errorf("delivery %s: status %q, last error %q, next %v; want failed by the deletion", d.ID, d.Status, d.LastError, d.NextAttemptAt)
		}
	}
	// A job already queued reads the delivery, and the endpoint disabled.
	work, err := w.s.FindWebhookWork(ctx, ds[0].ID)
	if err != nil || work.Endpoint.ID != ep.ID || work.Endpoint.Status != sello.WebhookEndpointDisabled {
		t.Fatalf("FindWebhookWork of a deleted endpoint's delivery: %+v, %v; want it, disabled", work, err)
	}
	if got := len(mustEvents(t, w.s, w.tn.ID, sello.EnvTest)); got != eventsBefore {
		t.Errorf("events after delete: got %d, want %d (deleting writes none)", got, eventsBefore)
	}
	// No more deliveries; the other endpoint still gets its own.
	ev := w.emit(t, sello.EnvTest)
	for _, d := range mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}) {
		if d.EventID == ev.ID && d.EndpointID != other.ID {
			t.Errorf("delivery %s of a new event to endpoint %s", d.ID, d.EndpointID)
		}
	}
	if len(deliveriesTo(mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}), other.ID)) != 4 {
		t.Errorf("the other endpoint lost deliveries")
	}
	// Every method that takes its id answers NOT_FOUND.
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, ep.ID, now), sello.CodeNotFound, ep.ID)
	wantError(t, w.s.PauseWebhookEndpoint(ctx, w.tn.ID, ep.ID), sello.CodeNotFound, ep.ID)
	_, err = w.s.ResumeWebhookEndpoint(ctx, w.tn.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	s, _ := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(5))
	wantError(t, w.s.RotateWebhookSecret(ctx, w.tn.ID, ep.ID, s, 0, now), sello.CodeNotFound, ep.ID)
	_, err = w.s.DisableWebhookEndpoint(ctx, w.tn.ID, ep.ID, "x", now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.CreateTestWebhookDelivery(ctx, w.tn.ID, ep.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.ReplayWebhookDelivery(ctx, w.tn.ID, done.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, ep.ID, time.Time{}, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, "", time.Time{}, now); n != 0 || err != nil {
		t.Errorf("ReplayFailedWebhookDeliveries: got %d, %v; want 0 (the deleted endpoint's are skipped)", n, err)
	}
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, w.tn.ID, "no-such-endpoint", now), sello.CodeNotFound, "no-such-endpoint")
}

func testWebhookIsolation(t *testing.T, open func(t *testing.T) sello.Store) {
	w := newWebhookEnv(t, open)
	ctx := t.Context()
	ep := MustCreateWebhookEndpoint(t, w.s, w.tn.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	d := mustDeliveries(t, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})[0]
	mustRecord(t, w.s, attempt(d, w.clock.Peek(), 500), sello.WebhookOutcome{Status: sello.WebhookFailed})
	b := MustCreateTenant(t, w.s)
	now := w.clock.Peek()
	beforeEP, beforeD := mustEndpoint(t, w.s, ep), mustDelivery(t, w.s, w.tn.ID, d.ID)
	jobs := mustWebhookJobs(t, w.r)

	_, err := w.s.FindWebhookEndpoint(ctx, b.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	if got, err := w.s.FindWebhookEndpoints(ctx, b.ID, sello.EnvTest); err != nil || len(got) != 0 {
		t.Errorf("FindWebhookEndpoints: got %d, %v; want none", len(got), err)
	}
	wantError(t, w.s.PauseWebhookEndpoint(ctx, b.ID, ep.ID), sello.CodeNotFound, ep.ID)
	_, err = w.s.ResumeWebhookEndpoint(ctx, b.ID, ep.ID)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	s, _ := sello.NewWebhookSecret(webhookKey, ep.ID, secretN(5))
	wantError(t, w.s.RotateWebhookSecret(ctx, b.ID, ep.ID, s, 0, now), sello.CodeNotFound, ep.ID)
	_, err = w.s.DisableWebhookEndpoint(ctx, b.ID, ep.ID, "x", now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.FindWebhookDelivery(ctx, b.ID, d.ID)
	wantError(t, err, sello.CodeNotFound, d.ID)
	if got, err := w.s.ListWebhookDeliveries(ctx, b.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); err != nil || len(got) != 0 {
		t.Errorf("ListWebhookDeliveries: got %d, %v; want none", len(got), err)
	}
	_, err = w.s.ReplayWebhookDelivery(ctx, b.ID, d.ID, now)
	wantError(t, err, sello.CodeNotFound, d.ID)
	if n, err := w.s.ReplayFailedWebhookDeliveries(ctx, b.ID, sello.EnvTest, "", time.Time{}, now); n != 0 || err != nil {
		t.Errorf("ReplayFailedWebhookDeliveries: got %d, %v; want 0", n, err)
	}
	_, err = w.s.ReplayFailedWebhookDeliveries(ctx, b.ID, sello.EnvTest, ep.ID, time.Time{}, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	_, err = w.s.CreateTestWebhookDelivery(ctx, b.ID, ep.ID, now)
	wantError(t, err, sello.CodeNotFound, ep.ID)
	wantError(t, w.s.DeleteWebhookEndpoint(ctx, b.ID, ep.ID, now), sello.CodeNotFound, ep.ID)
	// B's own endpoint does not receive A's events.
	MustCreateWebhookEndpoint(t, w.s, b.ID, sello.EnvTest)
	w.emit(t, sello.EnvTest)
	if got, _ := w.s.ListWebhookDeliveries(ctx, b.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(got) != 0 {
		t.Errorf("B's deliveries after A's event: got %d, want none", len(got))
	}

	deepEqual(t, "A's endpoint", mustEndpoint(t, w.s, ep), beforeEP)
	deepEqual(t, "A's delivery", mustDelivery(t, w.s, w.tn.ID, d.ID), beforeD)
	if got := mustWebhookJobs(t, w.r); len(got) != len(jobs)+1 {
		t.Errorf("jobs: got %d, want %d (only A's new event's)", len(got), len(jobs)+1)
	}
}
