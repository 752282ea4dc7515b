package webhook

import (
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/sello-do/sello"
)

// schedule is the base delay before each attempt, first attempt first
// (Svix's schedule, DESIGN §5): the last attempt comes about 27 h 35 min
// after the first.
var schedule = [sello.MaxWebhookAttempts]time.Duration{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	10 * time.Hour,
}

// Jitter is the spread around each scheduled delay: ±20%.
const Jitter = 0.2

// MinDelayThrottled is the least wait after a 429 or a timeout: a receiver
// that is overloaded or slow gets a minute to recover even early in the
// schedule, when the base delay is 5 s.
const MinDelayThrottled = 60 * time.Second

// maxRetryAfter caps the Retry-After we read; the clamp to 2× the base
// delay comes later.
const maxRetryAfter = 24 * time.Hour

// NextDelay returns how long to wait after attempt number attempt (1 for
// the first) failed, before the next one, and false when that was the last
// (attempt ≥ sello.MaxWebhookAttempts): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each
// times a factor in [0.8, 1.2) drawn from rnd. rnd returns values in
// [0, 1); nil means math/rand/v2's Float64. NextDelay(0) is the first
// attempt's delay: none.
func NextDelay(attempt int, rnd func() float64) (time.Duration, bool) {
	if attempt < 0 || attempt >= sello.MaxWebhookAttempts {
		return 0, false
	}
	base := schedule[attempt]
	if rnd == nil {
		rnd = rand.Float64
	}
	f := 1 - Jitter + 2*Jitter*min(max(rnd(), 0), 1)
	return time.Duration(float64(base) * f), true
}

// RetryDelay is NextDelay for a failed attempt a, adjusted by what the
// receiver said: a Retry-After on a 429 or 503 is honoured, clamped to
// [d, 2d] where d is NextDelay's delay (a receiver can slow us down, not
// hurry us up or park the delivery); after a 429 or a timeout the wait is
// at least MinDelayThrottled. False when no attempt is left or a should
// not be retried (success, 410).
func RetryDelay(attempt int, a *Attempt, rnd func() float64) (time.Duration, bool) {
	if !a.Retryable() {
		return 0, false
	}
	d, ok := NextDelay(attempt, rnd)
	if !ok {
		return 0, false
	}
	if a.RetryAfter > 0 && (a.Status == http.StatusTooManyRequests || a.Status == http.StatusServiceUnavailable) {
		d = min(max(a.RetryAfter, d), 2*d)
	}
	if a.Status == http.StatusTooManyRequests || a.Class == ClassTimeout {
		d = max(d, MinDelayThrottled)
	}
	return d, true
}
