package sello

import (
	"context"
	"math"
	"sync"
	"time"
)

// RateLimiter decides whether a request may proceed under a plan. Keys are
// opaque (one per API key). The memory limiter serves one node; the postgres
// package shares limits between nodes through the database.
type RateLimiter interface {
	Allow(ctx context.Context, key string, plan RatePlan) (RateDecision, error)
}

// RateDecision is a rate limiter's answer.
type RateDecision struct {
	Allowed bool
	// Remaining is how many requests could be made at once right now.
	Remaining int
	// RetryAfter is how long to wait before the next request may pass; zero
	// when Allowed.
	RetryAfter time.Duration
	// Reset is how long until the bucket is full again.
	Reset time.Duration
}

// GCRA is the generic cell rate algorithm: a token bucket kept as one
// "theoretical arrival time" per key. Given the stored tat (zero for a new
// key) it returns the decision and the tat to store.
func GCRA(now, tat time.Time, plan RatePlan) (RateDecision, time.Time) {
	interval := time.Duration(float64(time.Second) / plan.Rate)
	burst := time.Duration(plan.Burst) * interval
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(interval)
	if wait := newTAT.Sub(now) - burst; wait > 0 {
		return RateDecision{
			Allowed:    false,
			Remaining:  0,
			RetryAfter: wait,
			Reset:      tat.Sub(now),
		}, tat
	}
	used := newTAT.Sub(now)
	remaining := int(math.Floor(float64(burst-used) / float64(interval)))
	return RateDecision{Allowed: true, Remaining: max(0, remaining), Reset: used}, newTAT
}

// MemoryRateLimiter is a RateLimiter for a single node.
type MemoryRateLimiter struct {
	Now func() time.Time

	mu   sync.Mutex
	tats map[string]time.Time
}

// NewMemoryRateLimiter returns an empty limiter on the wall clock.
func NewMemoryRateLimiter() *MemoryRateLimiter {
	return &MemoryRateLimiter{Now: time.Now, tats: map[string]time.Time{}}
}

// Allow implements RateLimiter.
func (l *MemoryRateLimiter) Allow(_ context.Context, key string, plan RatePlan) (RateDecision, error) {
	now := l.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	d, tat := GCRA(now, l.tats[key], plan)
	l.tats[key] = tat
	if len(l.tats) > 100_000 {
		l.evict(now)
	}
	return d, nil
}

// evict forgets keys whose bucket is full again.
func (l *MemoryRateLimiter) evict(now time.Time) {
	for k, tat := range l.tats {
		if !tat.After(now) {
			delete(l.tats, k)
		}
	}
}
