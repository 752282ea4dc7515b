package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// testEventsOrder checks the events feed under concurrent writers: a poller
// that follows the cursor sees every event exactly once, in the order a
// later read from the start returns. Writers that commit out of the order
// of their seq must not make it skip one (a position below its cursor) or
// see one twice.
func testEventsOrder(t *testing.T, open Open) {
	const (
		writers = 8
		updates = 40 // events per writer, after its document's ecf.queued
		page    = 25
	)
	e := newEnv(t, open)
	ctx := t.Context()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
	// An endpoint makes each event's transaction longer (a delivery and
	// its job after the event), which widens the gap between taking a seq
	// and committing.
	MustCreateWebhookEndpoint(t, e.s, tn.ID, sello.EnvTest)
	docs := mustCreateN(t, e, tn.ID, sello.EnvTest, writers, 0)

	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, writers)
	for _, doc := range docs {
		wg.Go(func() {
			for range updates {
				ch := sello.DocumentChange{EventType: sello.EventECFSubmitted, Message: "again"}
				if _, err := e.s.UpdateDocument(ctx, doc.TenantID, doc.Environment, doc.ID, ch); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	want := writers * (1 + updates)
	var seen []*sello.Event
	var after sello.EventPosition
	deadline := time.Now().Add(EventsWait)
	writing := true
	for len(seen) < want || writing {
		select {
		case <-done:
			writing = false
		default:
		}
		if !writing && len(errs) > 0 {
			break // a writer failed: its events will never come
		}
		if time.Now().After(deadline) {
			t.Fatalf("the poller saw %d events in %v, want %d", len(seen), EventsWait, want)
		}
		evs, err := e.s.ListEvents(ctx, tn.ID, sello.EnvTest, sello.EventFilter{After: after, Limit: page})
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		for _, ev := range evs {
			if !after.Less(ev.Pos) {
				t.Fatalf("event at %+v after the cursor %+v", ev.Pos, after)
			}
			after = ev.Pos
		}
		seen = append(seen, evs...)
		if len(evs) == 0 && !writing {
			// Written, but not listed yet: on PostgreSQL, a
			// transaction older than the last writer's, anywhere on
			// the server, holds them back (see WaitEvents).
			time.Sleep(10 * time.Millisecond)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatalf("UpdateDocument: %v", err)
	}

	var all []*sello.Event
	after = sello.EventPosition{}
	for {
		evs, err := e.s.ListEvents(ctx, tn.ID, sello.EnvTest, sello.EventFilter{After: after, Limit: sello.MaxPageSize})
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		if len(evs) == 0 {
			break
		}
		all = append(all, evs...)
		after = evs[len(evs)-1].Pos
	}
	if len(all) != want {
		t.Fatalf("read from the start: %d events, want %d", len(all), want)
	}
	count := map[string]int{}
	for _, ev := range seen {
		count[ev.ID]++
	}
	for _, ev := range all {
		if n := count[ev.ID]; n != 1 {
			t.Errorf("event %s at %+v: the poller saw it %d times, want once", ev.ID, ev.Pos, n)
		}
	}
	if t.Failed() {
		return
	}
	if len(seen) != len(all) {
		t.Fatalf("the poller saw %d events, want %d", len(seen), len(all))
	}
	for i := range all {
		if seen[i].ID != all[i].ID {
			t.Fatalf("event %d: the poller saw %s, a read from the start %s", i, seen[i].ID, all[i].ID)
		}
	}
}
