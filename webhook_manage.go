package sello

import (
	"context"
	"slices"
	"strings"
	"time"
)

// The rules of managing webhooks that the operator's CLI (sello webhooks)
// and the portal's pages share: which event types an endpoint may ask for,
// a page of the delivery log, and waiting for a test's first attempt.

// ParseWebhookEventTypes reads an endpoint's event filter: each name must
// be one of WebhookEventTypes; blanks are skipped and repeats kept once,
// in the order given. None means every type. Returns INVALID_REQUEST
// naming an unknown type and the known ones.
func ParseWebhookEventTypes(names []string) ([]EventType, error) {
	var types []EventType
	for _, name := range names {
		t := EventType(strings.TrimSpace(name))
		if t == "" {
			continue
		}
		if !slices.Contains(WebhookEventTypes, t) {
			known := make([]string, len(WebhookEventTypes))
			for i, w := range WebhookEventTypes {
				known[i] = string(w)
			}
			return nil, Errorf(CodeInvalidRequest, "Unknown event type %q: use %s.", t, strings.Join(known, ", "))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types, nil
}

// WebhookDeliveryPage reads one page of the tenant's delivery log in env
// (ListWebhookDeliveries with f), newest first, and returns it with the
// cursor of the next page ("" on the last), to pass back as f.Cursor.
// f.Limit is the page size, DefaultPageSize when unset, at most
// MaxPageSize-1: the page reads one delivery more to know whether another
// page follows. Returns INVALID_REQUEST for a malformed cursor.
func WebhookDeliveryPage(ctx context.Context, st WebhookStore, tenantID string, env Environment, f WebhookDeliveryFilter) ([]*WebhookDelivery, string, error) {
	limit := min(pageSize(f.Limit), MaxPageSize-1)
	f.Limit = limit + 1
	ds, err := st.ListWebhookDeliveries(ctx, tenantID, env, f)
	if err != nil {
		return nil, "", err
	}
	page, next := cutPage(ds, limit, func(d *WebhookDelivery) (time.Time, string) { return d.CreatedAt, d.ID })
	return page, next, nil
}

// WaitFirstWebhookAttempt waits until the tenant's delivery id has an
// attempt, reading it every poll, and returns the first. Deliveries are
// attempted by the workers of sello serve on the same store; the caller
// bounds the wait with ctx, whose error it returns when ctx ends first
// (context.DeadlineExceeded: no attempt in time). Returns NOT_FOUND, or
// CONFLICT when the delivery ended without an attempt (its endpoint
// deleted or disabled meanwhile) or is held (its endpoint is paused: no
// attempt comes until it is resumed).
func WaitFirstWebhookAttempt(ctx context.Context, st WebhookStore, tenantID, id string, poll time.Duration) (*WebhookAttempt, error) {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		d, err := st.FindWebhookDelivery(ctx, tenantID, id)
		switch {
		case err != nil && ctx.Err() == nil:
			return nil, err
		case err == nil && len(d.AttemptLog) > 0:
			return d.AttemptLog[0], nil
		case err == nil && d.Status == WebhookFailed:
			return nil, Errorf(CodeConflict, "Webhook delivery %s ended without an attempt: %s", id, d.LastError)
		case err == nil && d.Status == WebhookHeld:
			return nil, Errorf(CodeConflict, "Webhook delivery %s is held while its endpoint is paused: it is attempted once the endpoint is resumed.", id)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}
