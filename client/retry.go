package client

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// RetryPolicy says how a call is retried after a 429, a 5xx or a network
// error. Other answers (4xx) are never retried: sending the same request
// again would get the same answer.
//
// The wait before attempt n+1 is "full jitter": a uniform random time in
// [0, min(MaxDelay, BaseDelay·2^(n-1))], and never less than the server's
// Retry-After. When Retry-After asks for more than MaxDelay, the call stops
// and returns the 429 (its RetryAfter says when to come back).
type RetryPolicy struct {
	// MaxAttempts bounds the attempts of one call, the first included.
	MaxAttempts int
	// BaseDelay is the cap of the first wait.
	BaseDelay time.Duration
	// MaxDelay caps every wait.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is four attempts with waits capped at 0.5 s, 1 s and 2 s
// (each at most 20 s, and at least the server's Retry-After).
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 20 * time.Second}

// NoRetries makes one attempt per call.
var NoRetries = RetryPolicy{MaxAttempts: 1}

// retryDelay returns how long to wait after attempt (1-based) failed with
// err, and whether to retry at all.
func (c *Client) retryDelay(attempt int, err error) (time.Duration, bool) {
	if attempt >= c.retry.MaxAttempts || !retryable(err) {
		return 0, false
	}
	var floor time.Duration
	var apiErr *Error
	if errors.As(err, &apiErr) {
		floor = apiErr.RetryAfter
	}
	if floor > c.retry.MaxDelay {
		return 0, false
	}
	return max(floor, backoff(c.retry, attempt)), true
}

// backoff is the full-jitter wait after attempt (1-based).
func backoff(p RetryPolicy, attempt int) time.Duration {
	ceiling := p.BaseDelay
	for i := 1; i < attempt && ceiling < p.MaxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxDelay)
	return time.Duration(randInt63n(int64(ceiling) + 1))
}

// retryable reports whether a failed attempt may be sent again: a network
// error (the request may or may not have arrived: creates carry an
// Idempotency-Key for this), a 429 or a 5xx.
func retryable(err error) bool {
	var netErr *networkError
	if errors.As(err, &netErr) {
		return true
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr.HTTPStatus == http.StatusTooManyRequests || apiErr.HTTPStatus >= 500
	}
	return false
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
