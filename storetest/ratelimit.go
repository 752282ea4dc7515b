package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// RunRateLimiter runs the rate limiter contract against the limiter
// newLimiter returns, fresh for each subtest: on the clock now, or on its
// own clock (the wall clock, or the database's) when now is nil. It uses
// the limiter's own clock with a fast plan, and a clock it moves where
// time must pass, so it takes well under a second.
func RunRateLimiter(t *testing.T, newLimiter func(t *testing.T, now func() time.Time) sello.RateLimiter) {
	// 20/s: a token every 50 ms, far longer than a few calls take.
	plan := sello.RatePlan{Name: "test", Rate: 20, Burst: 5}
	interval := time.Second / 20
	allow := func(t *testing.T, l sello.RateLimiter, key string) sello.RateDecision {
		t.Helper()
		d, err := l.Allow(t.Context(), key, plan)
		if err != nil {
			t.Fatalf("Allow: %v", err)
		}
		return d
	}
	t.Run("BurstThenRefuse", func(t *testing.T) {
		l := newLimiter(t, nil)
		key := fmt.Sprintf("key-%d", time.Now().UnixNano())
		for i := range plan.Burst {
			d := allow(t, l, key)
			if !d.Allowed || d.Remaining != plan.Burst-1-i || d.RetryAfter != 0 || d.Reset <= 0 || d.Reset > time.Duration(i+1)*interval {
				t.Fatalf("request %d: got %+v, want allowed with %d remaining", i+1, d, plan.Burst-1-i)
			}
		}
		d := allow(t, l, key)
		if d.Allowed || d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > interval || d.Reset <= 0 || d.Reset > time.Duration(plan.Burst)*interval {
			t.Errorf("request %d: got %+v, want refused with 0 < RetryAfter ≤ %v", plan.Burst+1, d, interval)
		}
	})
	t.Run("Refill", func(t *testing.T) {
		clock := time.Now()
		l := newLimiter(t, func() time.Time { return clock })
		key := fmt.Sprintf("key-%d", time.Now().UnixNano())
		var d sello.RateDecision
		for d = allow(t, l, key); d.Allowed; d = allow(t, l, key) {
		}
		clock = clock.Add(d.RetryAfter)
		if d := allow(t, l, key); !d.Allowed {
			t.Errorf("after RetryAfter %v: got %+v, want allowed", d.RetryAfter, d)
		}
	})
	t.Run("IndependentKeys", func(t *testing.T) {
		l := newLimiter(t, nil)
		a, b := fmt.Sprintf("a-%d", time.Now().UnixNano()), fmt.Sprintf("b-%d", time.Now().UnixNano())
		for d := allow(t, l, a); d.Allowed; d = allow(t, l, a) {
		}
		if d := allow(t, l, b); !d.Allowed || d.Remaining != plan.Burst-1 {
			t.Errorf("key b after a is exhausted: got %+v, want allowed with %d remaining", d, plan.Burst-1)
		}
	})
}
