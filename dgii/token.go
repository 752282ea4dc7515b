package dgii

import (
	"context"
	"errors"
	"sync"
	"time"
)

// tokenSlot is one cached token: DGII's of one taxpayer in one environment
// (Session), or a receiver's of one sender (Receptor). Concurrent callers
// that find it empty or due for renewal share one authentication. It is
// safe for concurrent use.
type tokenSlot struct {
	mu      sync.Mutex
	token   string
	renewAt time.Time
	fetch   *tokenFetch // in flight, or nil
}

// tokenFetch is one authentication that concurrent callers wait on.
type tokenFetch struct {
	done    chan struct{}
	token   string
	renewAt time.Time
	err     error
}

// authenticateFunc gets a new token and when to renew it.
type authenticateFunc func(ctx context.Context) (token string, renewAt time.Time, err error)

// get returns the slot's token while now() is before its renewal time, else
// authenticates with auth and keeps the token it gets. Concurrent callers
// wait for one authentication and share its outcome; when it failed because
// its caller's context ended, a waiter whose context is live tries again.
// The error is auth's, or ctx's while waiting.
func (e *tokenSlot) get(ctx context.Context, now func() time.Time, auth authenticateFunc) (string, error) {
	for {
		e.mu.Lock()
		if e.token != "" && now().Before(e.renewAt) {
			t := e.token
			e.mu.Unlock()
			return t, nil
		}
		f := e.fetch
		leader := f == nil
		if leader {
			f = &tokenFetch{done: make(chan struct{})}
			e.fetch = f
		}
		e.mu.Unlock()

		if leader {
			f.token, f.renewAt, f.err = auth(ctx)
			e.mu.Lock()
			e.fetch = nil
			if f.err == nil {
				e.token, e.renewAt = f.token, f.renewAt
			}
			e.mu.Unlock()
			close(f.done)
			return f.token, f.err
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if f.err == nil {
			return f.token, nil
		}
		// The leader's own context ended its fetch: try again with ours.
		if (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)) && ctx.Err() == nil {
			continue
		}
		return "", f.err
	}
}

// drop forgets token after the service refused it, unless another caller
// already replaced it.
func (e *tokenSlot) drop(token string) {
	e.mu.Lock()
	if e.token == token {
		e.token = ""
	}
	e.mu.Unlock()
}

// idle reports whether the slot holds nothing worth keeping at now: no
// token valid for use and no authentication in flight.
func (e *tokenSlot) idle(now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fetch == nil && (e.token == "" || !now.Before(e.renewAt))
}

// renewAt is when a token issued now should be replaced. With both of the
// issuer's times (DGII's expira and expedido, which receivers copy) it
// counts the lifetime from now, so a clock that disagrees with the
// issuer's neither keeps a dead token nor renews on every call.
func renewAt(now, expira, expedido time.Time) time.Time {
	var life time.Duration
	switch {
	case !expira.IsZero() && !expedido.IsZero() && expira.After(expedido):
		life = expira.Sub(expedido)
	case !expira.IsZero():
		life = expira.Sub(now)
	default:
		life = time.Hour // DGII's documented lifetime
	}
	return now.Add(max(life-TokenMargin, life/2))
}
