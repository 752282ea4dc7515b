package client

import (
	"context"
	"fmt"
)

// rank orders the statuses along the lifecycle; final statuses share the
// last rank.
func rank(s Status) int {
	switch s {
	case StatusQueuedForSigning:
		return 1
	case StatusSigned:
		return 2
	case StatusSubmitted:
		return 3
	}
	if s.Final() {
		return 4
	}
	return 0
}

// NeedsReconcile reports whether a receiver holding status stored for ev's
// document ("" when it holds none) must ask Sello before applying ev's
// snapshot (spec §6.4.7): when stored is final and the snapshot says
// otherwise, or the snapshot is behind stored (a late event). Events arrive
// late, twice or out of order, and document.status is a snapshot at event
// time; a final state must never be overwritten by a stale one.
//
// It is false for events about no document, and when the snapshot can be
// applied as it is.
func NeedsReconcile(stored Status, ev *Event) bool {
	if ev == nil || ev.Document == nil || stored == "" || stored == ev.Document.Status {
		return false
	}
	return stored.Final() || rank(ev.Document.Status) < rank(stored)
}

// Reconcile returns the authoritative current state of ev's document, from
// the status batch (scope status:read): store that instead of the event's
// snapshot when NeedsReconcile says so.
//
//	if client.NeedsReconcile(stored, ev) {
//		doc, err := c.Reconcile(ctx, ev)
//		if err != nil { return err } // the handler fails; Sello retries
//		apply(doc.Status)
//	} else {
//		apply(ev.Document.Status)
//	}
//
// It returns nil and no error for an event about no document, and an *Error
// with code NOT_FOUND when the batch does not know the document (a key of
// another tenant or environment than the event's).
func (c *Client) Reconcile(ctx context.Context, ev *Event) (*Document, error) {
	if ev == nil || ev.Document == nil {
		return nil, nil
	}
	return c.status(ctx, ev.Document.ENCF)
}

// status returns the document encf as the status batch has it now, or an
// *Error with code NOT_FOUND.
func (c *Client) status(ctx context.Context, encf string) (*Document, error) {
	res, err := c.StatusBatch(ctx, []string{encf})
	if err != nil {
		return nil, err
	}
	for _, r := range res.Results {
		if r.ENCF == encf && r.Found && r.Document != nil {
			return r.Document, nil
		}
	}
	return nil, &Error{HTTPStatus: 404, Code: CodeNotFound, CorrelationID: res.CorrelationID,
		Message: fmt.Sprintf("The status batch has no document %s in %s.", encf, c.env)}
}
