package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testContingency checks DGII's reachability per environment: transitions
// happen once under concurrent reports, their events reach the tenants with
// a certificate in the environment, the contingency job is queued once,
// the drain's order and counts, and how often a success is written.
func testContingency(t *testing.T, open Open) {
	const after = time.Minute
	t.Run("Transitions", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		issuer := MustCreateTenant(t, e.s) // a certificate in TesteCF: hears of it
		other := MustCreateTenant(t, e.s)  // a certificate in CerteCF only
		bare := MustCreateTenant(t, e.s)   // no certificate
		now := e.clock.Peek()
		MustAddCertificate(t, e.s, newCertificate(issuer.ID, sello.EnvTest, "issuer", now.Add(-time.Hour), now.Add(365*24*time.Hour)))
		MustAddCertificate(t, e.s, newCertificate(other.ID, sello.EnvCert, "other", now.Add(-time.Hour), now.Add(365*24*time.Hour)))
		MustAddSequence(t, e.s, issuer.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustCreateDocument(t, e.s, newDoc(issuer.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		MustCreateDocument(t, e.s, newDoc(issuer.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		r := newRunner(t, e.s, nil)

		got := mustReachability(t, e.s, sello.EnvTest)
		if got.State != sello.DGIIAvailable || got.FailingSince != nil || got.Since != nil {
			t.Fatalf("before any call: %+v, want available without times", got)
		}
		first, to, err := e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after)
		if err != nil || to != "" || first.State != sello.DGIIAvailable || first.FailingSince == nil {
			t.Fatalf("first failure: %+v, %q, %v; want available, failing", first, to, err)
		}
		since := *first.FailingSince

		e.clock.Add(after)
		if n := concurrentOutcomes(t, e.s, sello.DGIIFailed, after, sello.DGIIContingency); n != 1 {
			t.Fatalf("entered contingency %d times, want once", n)
		}
		got = mustReachability(t, e.s, sello.EnvTest)
		if got.State != sello.DGIIContingency || !got.Since.Equal(since) || got.Until != nil {
			t.Fatalf("in contingency: %+v, want since %s", got, since)
		}
		if got := mustReachability(t, e.s, sello.EnvCert); got.State != sello.DGIIAvailable {
			t.Fatalf("CerteCF: %s, want available (environments apart)", got.State)
		}
		// Still failing: nothing more.
		if _, to, err := e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after); to != "" || err != nil {
			t.Fatalf("failure in contingency: %q, %v", to, err)
		}

		if n := concurrentOutcomes(t, e.s, sello.DGIISucceeded, after, sello.DGIIDraining); n != 1 {
			t.Fatalf("left contingency %d times, want once", n)
		}
		got = mustReachability(t, e.s, sello.EnvTest)
		if got.State != sello.DGIIDraining || got.FailingSince != nil || got.Until == nil || !got.Since.Equal(since) || got.LastSuccess == nil {
			t.Fatalf("after the success: %+v, want draining with since and until", got)
		}
		until := *got.Until

		evs := mustDGIIEvents(t, e.s, issuer.ID, sello.EnvTest, 2)
		if len(evs) != 2 || evs[0].Type != sello.EventDGIIUnavailable || evs[1].Type != sello.EventDGIIAvailable {
			t.Fatalf("issuer's events %v, want dgii.unavailable then dgii.available", eventTypes(evs))
		}
		deepEqual(t, "dgii.unavailable payload", evs[0].Data.Payload, map[string]any{"since": sello.FormatTime(since), "waiting": float64(2)})
		deepEqual(t, "dgii.available payload", evs[1].Data.Payload, map[string]any{"since": sello.FormatTime(since), "until": sello.FormatTime(until), "waiting": float64(2)})
		if evs[0].Document != nil || evs[0].Data.Severity != "warning" || evs[1].Data.Severity != "info" {
			t.Fatalf("events %+v %+v: want no document, warning then info", evs[0], evs[1])
		}
		for _, tn := range []*sello.Tenant{other, bare} {
			if evs := mustDGIIEvents(t, e.s, tn.ID, sello.EnvTest, 0); len(evs) != 0 {
				t.Fatalf("tenant without a TesteCF certificate got %v", eventTypes(evs))
			}
		}

		if n := concurrentOutcomes(t, e.s, sello.DGIIDrained, after, sello.DGIIAvailable); n != 1 {
			t.Fatalf("drain ended %d times, want once", n)
		}
		if got := mustReachability(t, e.s, sello.EnvTest); got.State != sello.DGIIAvailable || !got.Until.Equal(until) {
			t.Fatalf("after the drain: %+v, want available keeping until", got)
		}
		if _, to, err := e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIDrained, after); to != "" || err != nil {
			t.Fatalf("a second drain's end: %q, %v; want nothing", to, err)
		}
		if jobs := mustJobsOf(t, r, sello.ContingencyJob{}.Kind()); len(jobs) != 1 || jobs[0].Args.Environment != sello.EnvTest {
			t.Fatalf("contingency jobs %+v, want one for TesteCF", jobs)
		}

		// Failures that end, within the threshold or not, before another
		// failure reports them: no contingency.
		e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after)
		e.clock.Add(after)
		e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIISucceeded, after)
		if got := mustReachability(t, e.s, sello.EnvTest); got.State != sello.DGIIAvailable {
			t.Fatalf("a success outside contingency: %s, want available", got.State)
		}
		if _, _, err := e.s.RecordDGIIOutcome(ctx, sello.EnvTest, "flaky", after); sello.ErrorCodeOf(err) != sello.CodeInvalidRequest {
			t.Fatalf("unknown outcome: %v, want INVALID_REQUEST", err)
		}
	})

	t.Run("DrainingThenDownAgain", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		now := e.clock.Peek()
		MustAddCertificate(t, e.s, newCertificate(tn.ID, sello.EnvTest, "issuer", now.Add(-time.Hour), now.Add(365*24*time.Hour)))
		r := newRunner(t, e.s, nil)
		e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after)
		e.clock.Add(after)
		mustOutcome(t, e.s, sello.DGIIFailed, after, sello.DGIIContingency)
		mustOutcome(t, e.s, sello.DGIISucceeded, after, sello.DGIIDraining)
		e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after)
		e.clock.Add(after)
		again := mustOutcome(t, e.s, sello.DGIIFailed, after, sello.DGIIContingency)
		if again.Until != nil || !again.Since.After(now) {
			t.Fatalf("second contingency %+v: want a new since and no until", again)
		}
		if evs := mustDGIIEvents(t, e.s, tn.ID, sello.EnvTest, 3); len(evs) != 3 || evs[2].Type != sello.EventDGIIUnavailable {
			t.Fatalf("events %v, want unavailable, available, unavailable", eventTypes(evs))
		}
		if jobs := mustJobsOf(t, r, sello.ContingencyJob{}.Kind()); len(jobs) != 1 {
			t.Fatalf("contingency jobs %d, want 1: the draining job goes on", len(jobs))
		}
	})

	t.Run("LastSuccess", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		first := mustOutcome(t, e.s, sello.DGIISucceeded, after, "")
		if first.State != sello.DGIIAvailable || first.LastSuccess == nil {
			t.Fatalf("a first success: %+v, want available with lastSuccess", first)
		}
		// Within LastSuccessEvery: nothing written.
		e.clock.Add(sello.LastSuccessEvery / 2)
		mustOutcome(t, e.s, sello.DGIISucceeded, after, "")
		if got := mustReachability(t, e.s, sello.EnvTest); !got.LastSuccess.Equal(*first.LastSuccess) || !got.UpdatedAt.Equal(first.UpdatedAt) {
			t.Fatalf("a success %s later: lastSuccess %s, updated %s; want %s kept (not written)", sello.LastSuccessEvery/2, got.LastSuccess, got.UpdatedAt, first.LastSuccess)
		}
		// LastSuccessEvery after the first: written again.
		e.clock.Add(sello.LastSuccessEvery / 2)
		mustOutcome(t, e.s, sello.DGIISucceeded, after, "")
		if got := mustReachability(t, e.s, sello.EnvTest); got.LastSuccess.Sub(*first.LastSuccess) < sello.LastSuccessEvery {
			t.Fatalf("a success %s later: lastSuccess %s, want refreshed from %s", sello.LastSuccessEvery, got.LastSuccess, first.LastSuccess)
		}
		// A failure, then a success at once: written (it clears the
		// failure), however recent the last success.
		if _, _, err := e.s.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, after); err != nil {
			t.Fatal(err)
		}
		if got := mustOutcome(t, e.s, sello.DGIISucceeded, after, ""); got.FailingSince != nil {
			t.Fatalf("a success after a failure: failing since %s, want cleared", got.FailingSince)
		}
	})

	t.Run("Waiting", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		var docs []*sello.Document
		for i, tn := range []*sello.Tenant{a, b, a, b, a} {
			if i < 2 {
				MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
				MustAddSequence(t, e.s, tn.ID, sello.EnvCert, sello.TypeCreditoFiscal, 1, 100)
			}
			docs = append(docs, MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)))
		}
		MustCreateDocument(t, e.s, newDoc(a.ID, sello.EnvCert, sello.TypeCreditoFiscal))
		// Signed in reverse: the drain goes by creation, not by signature.
		for i := len(docs) - 1; i >= 0; i-- {
			d := docs[i]
			ch := sello.DocumentChange{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned, Contingency: i%2 == 0}
			if _, err := e.s.UpdateDocument(ctx, d.TenantID, d.Environment, d.ID, ch); err != nil {
				t.Fatalf("sign: %v", err)
			}
		}
		if _, err := e.s.UpdateDocument(ctx, docs[1].TenantID, sello.EnvTest, docs[1].ID, sello.DocumentChange{Status: sello.StatusSubmitted, TrackID: "t-1"}); err != nil {
			t.Fatalf("submit: %v", err)
		}
		waiting, err := e.s.FindWaitingDocuments(ctx, sello.EnvTest, 10)
		if err != nil {
			t.Fatalf("FindWaitingDocuments: %v", err)
		}
		deepEqual(t, "drain order", encfsAndTenants(waiting), encfsAndTenants([]*sello.Document{docs[0], docs[2], docs[3], docs[4]}))
		if some, _ := e.s.FindWaitingDocuments(ctx, sello.EnvTest, 2); len(some) != 2 || some[0].ID != docs[0].ID {
			t.Fatalf("limit 2: %v", encfs(some))
		}
		n, oldest, err := e.s.CountWaitingDocuments(ctx, a.ID, sello.EnvTest)
		if err != nil || n != 3 || oldest == nil || !oldest.Equal(docs[0].CreatedAt) {
			t.Fatalf("a's waiting: %d since %v (%v); want 3 since %s", n, oldest, err, docs[0].CreatedAt)
		}
		if n, _, _ := e.s.CountWaitingDocuments(ctx, b.ID, sello.EnvTest); n != 1 {
			t.Fatalf("b's waiting: %d, want 1 (one submitted)", n)
		}
		if n, oldest, _ := e.s.CountWaitingDocuments(ctx, b.ID, sello.EnvCert); n != 0 || oldest != nil {
			t.Fatalf("b's waiting in CerteCF: %d %v, want none", n, oldest)
		}
	})

	t.Run("ContingencyFlag", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		if doc.Contingency {
			t.Fatal("a new document is marked contingency")
		}
		signed, err := e.s.UpdateDocument(ctx, tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: sello.StatusSigned, Contingency: true, EventType: sello.EventECFSigned})
		if err != nil || !signed.Contingency {
			t.Fatalf("signed in contingency: %v, %v", signed, err)
		}
		// A later change without the flag keeps it.
		sent, err := e.s.UpdateDocument(ctx, tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: sello.StatusSubmitted, TrackID: "t", EventType: sello.EventECFSubmitted})
		if err != nil || !sent.Contingency {
			t.Fatalf("submitted: %v, %v; want contingency kept", sent, err)
		}
		for _, read := range []func() (*sello.Document, error){
			func() (*sello.Document, error) { return e.s.FindDocument(ctx, tn.ID, sello.EnvTest, doc.ENCF) },
			func() (*sello.Document, error) { return e.s.FindDocumentByID(ctx, tn.ID, sello.EnvTest, doc.ID) },
		} {
			if d, err := read(); err != nil || !d.Contingency {
				t.Fatalf("read back: %v, %v", d, err)
			}
		}
		evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 3)
		for _, ev := range evs {
			want := map[string]any{}
			if ev.Type != sello.EventECFQueued {
				want["contingency"] = true
			}
			deepEqual(t, string(ev.Type)+" payload", ev.Data.Payload, want)
		}
		if len(evs) != 3 {
			t.Fatalf("events %v", eventTypes(evs))
		}
	})
}

func mustReachability(tb testing.TB, s sello.Store, en sello.Environment) *sello.Reachability {
	tb.Helper()
	r, err := s.FindReachability(tb.Context(), en)
	if err != nil {
		tb.Fatalf("FindReachability: %v", err)
	}
	return r
}

// mustOutcome records o in TesteCF and requires that it enter state want.
func mustOutcome(tb testing.TB, s sello.Store, o sello.DGIIOutcome, after time.Duration, want sello.DGIIState) *sello.Reachability {
	tb.Helper()
	r, to, err := s.RecordDGIIOutcome(tb.Context(), sello.EnvTest, o, after)
	if err != nil || to != want {
		tb.Fatalf("RecordDGIIOutcome %s: entered %q (%v), want %q", o, to, err, want)
	}
	return r
}

// concurrentOutcomes records o in TesteCF from 8 goroutines at once and
// returns how many of them entered state want.
func concurrentOutcomes(tb testing.TB, s sello.Store, o sello.DGIIOutcome, after time.Duration, want sello.DGIIState) int {
	tb.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for range 8 {
		wg.Go(func() {
			_, to, err := s.RecordDGIIOutcome(tb.Context(), sello.EnvTest, o, after)
			if err != nil {
				tb.Errorf("RecordDGIIOutcome %s: %v", o, err)
			}
			if to == want {
				mu.Lock()
				n++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return n
}

// mustDGIIEvents lists the tenant's dgii.* events in env, waiting until
// there are at least n (see WaitEvents).
func mustDGIIEvents(tb testing.TB, s sello.Store, tenantID string, en sello.Environment, n int) []*sello.Event {
	tb.Helper()
	dgii := func(evs []*sello.Event) []*sello.Event {
		var out []*sello.Event
		for _, ev := range evs {
			if ev.Type == sello.EventDGIIUnavailable || ev.Type == sello.EventDGIIAvailable {
				out = append(out, ev)
			}
		}
		return out
	}
	return dgii(WaitEvents(tb, s, tenantID, en, sello.EventFilter{}, func(evs []*sello.Event) bool { return len(dgii(evs)) >= n }))
}

func eventTypes(evs []*sello.Event) []sello.EventType {
	out := make([]sello.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}

func encfsAndTenants(docs []*sello.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.TenantID + " " + d.ENCF
	}
	return out
}
