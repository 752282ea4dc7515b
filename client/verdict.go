package client

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The waits between WaitForVerdict's polls: the first, doubled after each
// poll up to the last.
const (
	firstVerdictPoll = 500 * time.Millisecond
	maxVerdictPoll   = 10 * time.Second
)

// WaitForVerdict waits until the document encf has a final status (DGII's
// verdict: accepted, accepted_conditional or rejected; or failed) and
// returns it. Bound the wait with ctx: a verdict takes seconds, or hours
// when DGII is down.
//
// It polls the status batch (scope status:read, the cheapest read), waiting
// 0.5 s, then twice as long each time up to 10 s. It takes no environment:
// a client is bound to one (its key's, or WithEnvironment's) and a key works
// only in its own, so the document is looked up there.
//
// A 429 is waited out for as long as its Retry-After says, however long; so
// are 5xx answers and network errors, each call already retried as the
// client's RetryPolicy says. Any other API error is returned at once: an
// *Error with code NOT_FOUND when the environment has no document encf,
// INSUFFICIENT_SCOPE without status:read. When ctx ends first, the error
// wraps ctx.Err() and says the last status seen.
//
// For many documents, or to learn verdicts as they come rather than ask, use
// ListEvents (one feed for every document) or webhooks.
func (c *Client) WaitForVerdict(ctx context.Context, encf string) (*Document, error) {
	wait := firstVerdictPoll
	var last error
	for {
		doc, err := c.status(ctx, encf)
		switch {
		case err == nil && doc.Status.Final():
			return doc, nil
		case err == nil:
			last = fmt.Errorf("status %s", doc.Status)
		case ctx.Err() != nil || !retryable(err):
			return nil, err
		default:
			last = err
		}
		d := wait
		var apiErr *Error
		if errors.As(err, &apiErr) {
			d = max(d, apiErr.RetryAfter)
		}
		if err := c.sleep(ctx, d); err != nil {
			return nil, fmt.Errorf("sello: no verdict for %s yet (last: %v): %w", encf, last, err)
		}
		wait = min(2*wait, maxVerdictPoll)
	}
}
