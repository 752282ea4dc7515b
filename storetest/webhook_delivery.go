package storetest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testWebhookRecordAttempt(t *testing.T, open Open) {
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
func testWebhookRecordConcurrent(t *testing.T, open Open) {
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

func testWebhookTestDelivery(t *testing.T, open Open) {
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
	if evs := mustEvents(t, w.s, w.tn.ID, sello.EnvCert, 0); len(evs) != 0 {
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

func testWebhookList(t *testing.T, open Open) {
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

	// Paging: the cursor after each page gives the next, newest first, each
	// delivery once, with the filters kept; two deliveries share each
	// createdAt (one event, two endpoints), so the id breaks ties.
	for _, size := range []int{1, 3} {
		var paged []*sello.WebhookDelivery
		f := sello.WebhookDeliveryFilter{Limit: size}
		for range 10 {
			page, next, err := sello.WebhookDeliveryPage(ctx, w.s, w.tn.ID, sello.EnvTest, f)
			if err != nil {
				t.Fatalf("WebhookDeliveryPage: %v", err)
			}
			if len(page) > size {
				t.Fatalf("page of %d: got %d", size, len(page))
			}
			paged = append(paged, page...)
			if next == "" {
				break
			}
			f.Cursor = next
		}
		if len(paged) != len(all) {
			t.Fatalf("pages of %d: got %d deliveries, want %d", size, len(paged), len(all))
		}
		for i := range all {
			if paged[i].ID != all[i].ID {
				t.Errorf("pages of %d: delivery %d is %s, want %s", size, i, paged[i].ID, all[i].ID)
			}
		}
	}
	page, next, err := sello.WebhookDeliveryPage(ctx, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{EndpointID: a.ID, Limit: 1})
	if err != nil || len(page) != 1 || next == "" {
		t.Fatalf("first page of a's: %d, %q, %v", len(page), next, err)
	}
	page, next, err = sello.WebhookDeliveryPage(ctx, w.s, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{EndpointID: a.ID, Limit: 1, Cursor: next})
	if err != nil || len(page) != 1 || page[0].EndpointID != a.ID || next != "" {
		t.Fatalf("second and last page of a's: %d, %q, %v", len(page), next, err)
	}
	_, err = w.s.ListWebhookDeliveries(ctx, w.tn.ID, sello.EnvTest, sello.WebhookDeliveryFilter{Cursor: "not a cursor"})
	wantError(t, err, sello.CodeInvalidRequest, "Cursor")
}
