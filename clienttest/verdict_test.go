package clienttest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
)

// TestWaitForVerdict waits for documents of Sello's real API while the
// lifecycle moves them on, and through the API's own 429s.
func TestWaitForVerdict(t *testing.T) {
	a := mustRealAPI(t)
	ctx := t.Context()
	create := func(t *testing.T) *client.Document {
		t.Helper()
		res, err := a.client(t, a.key).CreateDocument(ctx, client.CreateDocumentRequest{Document: invoiceDoc()})
		if err != nil {
			t.Fatal(err)
		}
		return &res.Document
	}
	// step moves the document one status on, as the workers would.
	step := func(t *testing.T, doc *client.Document, c sello.DocumentChange) {
		t.Helper()
		if _, err := a.db.UpdateDocument(ctx, a.tenant.ID, sello.EnvTest, doc.ID, c); err != nil {
			t.Fatal(err)
		}
	}
	signedAt := time.Now().UTC().Truncate(time.Second)
	signed := sello.DocumentChange{From: []sello.Status{sello.StatusQueuedForSigning}, Status: sello.StatusSigned,
		SignedXML: []byte(`<ECF><Signature/></ECF>`), SecurityCode: "a1B2c3", SignedAt: &signedAt, QRURL: "https://ecf.dgii.gov.do/testecf/consultatimbre"}
	submitted := sello.DocumentChange{From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "8f1c6c1e-0b6a-4d1e-9a43-3b1f2b7c9d10"}
	accepted := sello.DocumentChange{From: []sello.Status{sello.StatusSubmitted}, Status: sello.StatusAccepted, DGII: &sello.DGIIResult{Codigo: new(1), Estado: "Aceptado"}}

	t.Run("OK", func(t *testing.T) {
		doc := create(t)
		var waits []time.Duration
		changes := []sello.DocumentChange{signed, submitted, accepted}
		c, err := client.New(a.url, a.key, client.WithSleep(func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			if len(waits) <= len(changes) {
				step(t, doc, changes[len(waits)-1])
			}
			return ctx.Err()
		}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.WaitForVerdict(ctx, doc.ENCF)
		if err != nil || got.Status != client.StatusAccepted || got.DGII == nil || got.DGII.Estado != "Aceptado" || got.TrackID == nil {
			t.Fatalf("got %+v, %v; want the accepted document with DGII's verdict", got, err)
		}
		if want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}; !slices.Equal(waits, want) {
			t.Errorf("waits %v, want %v", waits, want)
		}
	})

	t.Run("HonoursRetryAfter", func(t *testing.T) {
		doc := create(t)
		step(t, doc, signed)
		step(t, doc, submitted)
		// One request a minute: the second poll gets a 429 whose
		// Retry-After (60 s) is beyond the retry policy's MaxDelay (20 s).
		if err := a.db.UpdateTenantPlan(ctx, a.tenant.ID, sello.RatePlan{Name: "slow", Rate: 1.0 / 60, Burst: 1}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// The plan as it was, and the key's bucket full again.
			a.db.UpdateTenantPlan(context.Background(), a.tenant.ID, a.tenant.Plan)
			a.limiterAhead.Add(int64(2 * time.Minute))
		})
		var waits []time.Duration
		c, err := client.New(a.url, a.key, client.WithSleep(func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			a.limiterAhead.Add(int64(d))
			if d > 20*time.Second {
				step(t, doc, accepted)
			}
			return ctx.Err()
		}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.WaitForVerdict(ctx, doc.ENCF)
		if err != nil || got.Status != client.StatusAccepted {
			t.Fatalf("got %+v, %v", got, err)
		}
		if len(waits) != 2 || waits[0] != 500*time.Millisecond || waits[1] < 59*time.Second || waits[1] > 60*time.Second {
			t.Fatalf("waits %v, want 0.5 s then the 429's Retry-After (≈60 s)", waits)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := a.client(t, a.key).WaitForVerdict(ctx, "E310000009999")
		var e *client.Error
		if !errors.As(err, &e) || e.Code != client.CodeNotFound || e.HTTPStatus != http.StatusNotFound {
			t.Fatalf("error %v, want NOT_FOUND", err)
		}
	})

	t.Run("ErrContextEnds", func(t *testing.T) {
		doc := create(t)
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err := a.client(t, a.key).WaitForVerdict(ctx, doc.ENCF)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error %v, want the deadline", err)
		}
	})
}
