package storetest

import (
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/testwait"
)

// EventsWait is how long WaitEvents waits for the events feed to list what
// a test wrote. On PostgreSQL the feed lists an event only once every
// transaction older than the one that wrote it has ended, on the whole
// server (see postgres.DB.ListEvents), and ListEvents itself waits for
// that at most a second: a test package that runs beside others can see
// its own event listed seconds after the write that returned.
const EventsWait = 30 * time.Second

// WaitEvents lists the tenant's events in en that match f (at most
// sello.MaxPageSize when f sets no Limit) until until holds of them, and
// returns them. It reads once when until holds at once (for an assertion
// that an event was not written). After EventsWait it logs that it gave
// up and returns what the feed lists then, for the caller's assertion to
// report.
func WaitEvents(tb testing.TB, s sello.EventStore, tenantID string, en sello.Environment, f sello.EventFilter, until func([]*sello.Event) bool) []*sello.Event {
	tb.Helper()
	f.Limit = cmpOr(f.Limit, sello.MaxPageSize)
	var evs []*sello.Event
	if !testwait.Within(EventsWait, 10*time.Millisecond, func() bool {
		var err error
		evs, err = s.ListEvents(tb.Context(), tenantID, en, f)
		if err != nil {
			tb.Fatalf("ListEvents: %v", err)
		}
		return until(evs)
	}) {
		tb.Logf("ListEvents %s %s %+v: waited %v for the feed, giving up", tenantID, en, f, EventsWait)
	}
	return evs
}

// AtLeast holds of n events or more.
func AtLeast(n int) func([]*sello.Event) bool {
	return func(evs []*sello.Event) bool { return len(evs) >= n }
}

// WithType holds when one of the events is of type typ.
func WithType(typ sello.EventType) func([]*sello.Event) bool {
	return func(evs []*sello.Event) bool {
		for _, ev := range evs {
			if ev.Type == typ {
				return true
			}
		}
		return false
	}
}

// mustEvents lists the tenant's events in en, waiting until there are at
// least n (see WaitEvents); with n 0 it reads once.
func mustEvents(tb testing.TB, s sello.Store, tenantID string, en sello.Environment, n int) []*sello.Event {
	tb.Helper()
	return WaitEvents(tb, s, tenantID, en, sello.EventFilter{}, AtLeast(n))
}
