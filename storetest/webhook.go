package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
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
func mustWebhookJobs(tb testing.TB, r jobs.Runner) []string {
	tb.Helper()
	out := []string{}
	for _, j := range mustListJobs(tb, r, sello.WebhookJob{}.Kind()).Jobs {
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
	r  jobs.Runner
}

func newWebhookEnv(t *testing.T, open Open) webhookEnv {
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
// document) and returns it, once the feed lists it (see WaitEvents): every
// event written before it is listed too.
func (w webhookEnv) emit(t *testing.T, en sello.Environment) *sello.Event {
	t.Helper()
	doc := MustCreateDocument(t, w.s, newDoc(w.tn.ID, en, sello.TypeCreditoFiscal))
	var found *sello.Event
	WaitEvents(t, w.s, w.tn.ID, en, sello.EventFilter{Type: sello.EventECFQueued}, func(evs []*sello.Event) bool {
		for _, ev := range evs {
			if ev.Document != nil && ev.Document.ID == doc.ID {
				found = ev
			}
		}
		return found != nil
	})
	if found == nil {
		t.Fatalf("no event of document %s", doc.ID)
	}
	return found
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

func testWebhooks(t *testing.T, open Open) {
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
