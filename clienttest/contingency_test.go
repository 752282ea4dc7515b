package clienttest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
)

// TestDGIIStatus reads DGII's state and the tenant's backlog through the
// SDK against Sello's real API, before and during a contingency.
func TestDGIIStatus(t *testing.T) {
	a := mustRealAPI(t)
	c := a.client(t, a.key)
	ctx := t.Context()

	t.Run("Available", func(t *testing.T) {
		res, err := c.GetDGIIStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := res.DGII
		if s.State != client.DGIIAvailable || s.Since != nil || s.Until != nil || s.FailingSince != nil || s.LastFailure != nil ||
			s.Waiting != 0 || s.OldestWaiting != nil || s.Deadline != nil || res.CorrelationID == "" {
			t.Fatalf("before anything: %+v", s)
		}
	})

	t.Run("Contingency", func(t *testing.T) {
		// DGII fails past a threshold of a nanosecond.
		for range 2 {
			if _, _, err := a.db.RecordDGIIOutcome(ctx, sello.EnvTest, sello.DGIIFailed, time.Nanosecond); err != nil {
				t.Fatal(err)
			}
		}
		doc, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoiceDoc()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.GetDGIIStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := res.DGII
		if s.State != client.DGIIContingency || s.Since == nil || s.Until != nil || s.FailingSince == nil || s.LastFailure == nil {
			t.Fatalf("in contingency: %+v", s)
		}
		if s.Waiting != 1 || s.OldestWaiting == nil || !s.OldestWaiting.Equal(doc.Document.CreatedAt) ||
			s.Deadline == nil || !s.Deadline.Equal(doc.Document.CreatedAt.Add(72*time.Hour)) {
			t.Fatalf("waiting %d since %v until %v, want 1 since %s and 72 hours more", s.Waiting, s.OldestWaiting, s.Deadline, doc.Document.CreatedAt)
		}
	})

	t.Run("ErrInsufficientScope", func(t *testing.T) {
		k, key := sello.NewAPIKey(a.tenant.ID, sello.EnvTest, "reader", []sello.Scope{sello.ScopeRead, sello.ScopeStatusRead}, nil)
		if err := a.db.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		_, err := a.client(t, key).GetDGIIStatus(ctx)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeInsufficientScope || e.HTTPStatus != 403 {
			t.Fatalf("error %v, want INSUFFICIENT_SCOPE", err)
		}
	})
}
