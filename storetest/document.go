package storetest

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testCreateDocument(t *testing.T, open Open) {
	t.Run("OK", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		seq := MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 7, 100)
		p := &prepared{}
		nd := sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: p.prepare}
		before := e.clock.Peek()
		doc, replayed, err := e.s.CreateDocument(ctx, nd)
		if err != nil || replayed {
			t.Fatalf("CreateDocument: %v, replayed %v", err, replayed)
		}
		n := sello.ENCF{Type: sello.TypeCreditoFiscal, Number: 7}
		if len(p.calls) != 1 || p.calls[0].ENCF != n || p.calls[0].Seq.ID != seq.ID || p.calls[0].Seq.From != 7 || p.calls[0].Seq.To != 100 {
			t.Errorf("Prepare calls: got %+v, want one with %s and range %s", p.calls, n, seq.ID)
		}
		if doc.ID == "" || doc.CreatedAt.Before(before) || !doc.UpdatedAt.Equal(doc.CreatedAt) {
			t.Errorf("ID, CreatedAt, UpdatedAt: got %q, %v, %v; want an id and equal times from the store's clock", doc.ID, doc.CreatedAt, doc.UpdatedAt)
		}
		want := &sello.Document{
			ID: doc.ID, TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
			ENCF: n.String(), Status: sello.StatusQueuedForSigning, Total: "1180.00", ITBIS: "180.00", BuyerRNC: "131880681",
			IssueDate: issueDate, Delivery: sello.Delivery{Status: sello.DeliveryNotSent},
			CreatedAt: doc.CreatedAt, UpdatedAt: doc.CreatedAt, Payload: payloadFor(n),
		}
		deepEqual(t, "returned", doc, want)
		got, err := e.s.FindDocument(ctx, tn.ID, sello.EnvTest, n.String())
		if err != nil {
			t.Fatalf("FindDocument: %v", err)
		}
		deepEqual(t, "stored", got, want)
		if !bytes.Equal(got.Payload, payloadFor(n)) {
			t.Errorf("Payload: got %s, want byte for byte %s", got.Payload, payloadFor(n))
		}
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 7).Next; got != 8 {
			t.Errorf("sequence Next: got %d, want 8", got)
		}
	})
	t.Run("NotB2B", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 10)
		doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeConsumo))
		if doc.Delivery.Status != sello.DeliveryNotApplicable || doc.CommercialApproval != nil {
			t.Errorf("Delivery, CommercialApproval: got %v, %v; want not_applicable, nil", doc.Delivery, doc.CommercialApproval)
		}
		got, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil {
			t.Fatalf("FindDocument: %v", err)
		}
		deepEqual(t, "stored", got, doc)
	})
	t.Run("QueuedEvent", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
		doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 1)
		if len(evs) != 1 {
			t.Fatalf("events: got %d, want 1", len(evs))
		}
		ev := evs[0]
		if ev.ID == "" || ev.Pos.Seq <= 0 || ev.Pos.Tx < 0 || ev.Type != sello.EventECFQueued || ev.TenantID != tn.ID || ev.Environment != sello.EnvTest || !ev.CreatedAt.Equal(doc.CreatedAt) {
			t.Errorf("event: got %+v, want ecf.queued of %s in TesteCF at %v with an id and a seq", ev, tn.ID, doc.CreatedAt)
		}
		deepEqual(t, "event document", ev.Document, &sello.EventDocument{ID: doc.ID, Type: "E31", ENCF: doc.ENCF, Status: sello.StatusQueuedForSigning})
		if ev.Data.Severity != "info" || ev.Data.Message == "" {
			t.Errorf("event data: got %+v, want severity info and a message", ev.Data)
		}
	})
	t.Run("NumbersInOrder", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 41, 100)
		var got []string
		for range 5 {
			got = append(got, MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)).ENCF)
		}
		deepEqual(t, "numbers", got, []string{encf("31", 41), encf("31", 42), encf("31", 43), encf("31", 44), encf("31", 45)})
	})
	t.Run("Concurrent", func(t *testing.T) {
		const goroutines, each, from = 8, 25, 1000
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, from, from+goroutines*each+50)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			got  []string
			errs []error
		)
		for range goroutines {
			wg.Go(func() {
				for range each {
					doc, _, err := e.s.CreateDocument(t.Context(), newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
					mu.Lock()
					if err != nil {
						errs = append(errs, err)
					} else {
						got = append(got, doc.ENCF)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("%d creates failed: %v", len(errs), err)
		}
		slices.Sort(got)
		var want []string
		for n := int64(from); n < from+goroutines*each; n++ {
			want = append(want, encf("31", n))
		}
		if !slices.Equal(got, want) {
			t.Errorf("numbers: got %d (%v … %v), want %s…%s each exactly once", len(got), got[:min(3, len(got))], got[max(0, len(got)-3):], want[0], want[len(want)-1])
		}
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, from).Next; got != from+goroutines*each {
			t.Errorf("sequence Next: got %d, want %d", got, from+goroutines*each)
		}
		evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, min(goroutines*each, sello.MaxPageSize))
		if len(evs) != min(goroutines*each, sello.MaxPageSize) {
			t.Errorf("events: got %d, want %d", len(evs), min(goroutines*each, sello.MaxPageSize))
		}
	})
	t.Run("ErrSequenceExhausted", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		_, _, err := e.s.CreateDocument(t.Context(), nd)
		wantError(t, err, sello.CodeSequenceExhausted, "31", "TesteCF")

		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 2)
		MustCreateDocument(t, e.s, nd)
		MustCreateDocument(t, e.s, nd)
		_, _, err = e.s.CreateDocument(t.Context(), nd)
		wantError(t, err, sello.CodeSequenceExhausted, "31", "TesteCF")

		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 301, 400)
		if got, want := MustCreateDocument(t, e.s, nd).ENCF, encf("31", 301); got != want {
			t.Errorf("after a new range: got %s, want %s", got, want)
		}
	})
	t.Run("OldestRangeFirst", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 101, 200)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 2)
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		var got []string
		for range 3 {
			got = append(got, MustCreateDocument(t, e.s, nd).ENCF)
		}
		deepEqual(t, "numbers", got, []string{encf("31", 1), encf("31", 2), encf("31", 101)})
	})
	t.Run("ExpiredRangeSkipped", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		today := sello.TodayInDR(e.clock.Peek())
		yesterday := sello.DateOf(e.clock.Peek().In(sello.DRZone).AddDate(0, 0, -1))
		for _, s := range []*sello.Sequence{
			{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 1, To: 10, ExpiresOn: &yesterday},
			{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, From: 11, To: 20, ExpiresOn: &today},
			{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeNotaDebito, From: 1, To: 10, ExpiresOn: &yesterday},
		} {
			if err := e.s.AddSequence(ctx, s); err != nil {
				t.Fatalf("AddSequence: %v", err)
			}
		}
		if got, want := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)).ENCF, encf("31", 11); got != want {
			t.Errorf("number: got %s, want %s (a range is usable through its expiry day)", got, want)
		}
		_, _, err := e.s.CreateDocument(ctx, newDoc(tn.ID, sello.EnvTest, sello.TypeNotaDebito))
		wantError(t, err, sello.CodeSequenceExhausted, "33", "expired")

		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeNotaDebito)
		nd.ENCF = encf("33", 5)
		_, _, err = e.s.CreateDocument(ctx, nd)
		wantError(t, err, sello.CodeValidationFailed)
		wantDetail(t, err, sello.ENCFPath, "expired")
	})
	t.Run("ExplicitENCF", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		seq := MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		p := &prepared{}
		nd := sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: encf("31", 50), Prepare: p.prepare}
		doc := MustCreateDocument(t, e.s, nd)
		if doc.ENCF != nd.ENCF || len(p.calls) != 1 || p.calls[0].ENCF.Number != 50 || p.calls[0].Seq.ID != seq.ID {
			t.Errorf("got %s with Prepare calls %+v, want %s from range %s", doc.ENCF, p.calls, nd.ENCF, seq.ID)
		}
		if !bytes.Equal(doc.Payload, payloadFor(sello.ENCF{Type: "31", Number: 50})) {
			t.Errorf("Payload: got %s", doc.Payload)
		}
	})
	t.Run("ErrExplicitENCFUsed", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		first := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.ENCF = first.ENCF
		_, _, err := e.s.CreateDocument(t.Context(), nd)
		wantError(t, err, sello.CodeConflict, first.ENCF, first.ID)
	})
	t.Run("ErrExplicitENCFInNoRange", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 101, 200)
		for _, n := range []int64{101, 5000} {
			nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
			nd.ENCF = encf("31", n)
			_, _, err := e.s.CreateDocument(t.Context(), nd)
			wantError(t, err, sello.CodeValidationFailed)
			wantDetail(t, err, sello.ENCFPath, nd.ENCF)
		}
	})
	t.Run("AutoSkipsExplicit", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 3)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 10, 20)
		for _, n := range []int64{2, 3, 10} {
			nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
			nd.ENCF = encf("31", n)
			MustCreateDocument(t, e.s, nd)
		}
		var got []string
		for range 3 {
			got = append(got, MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)).ENCF)
		}
		deepEqual(t, "auto numbers", got, []string{encf("31", 1), encf("31", 11), encf("31", 12)})
	})
	t.Run("ErrPrepareRollsBack", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		boom := sello.Errorf(sello.CodeValidationFailed, "Totals do not add up.")
		var seen sello.ENCF
		for _, explicit := range []string{"", encf("31", 1)} {
			nd := sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, ENCF: explicit,
				IdempotencyKey: "rollback", RequestHash: []byte("h1"),
				Prepare: func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
					seen = n
					return nil, boom
				}}
			doc, _, err := e.s.CreateDocument(ctx, nd)
			if !errors.Is(err, boom) || doc != nil {
				t.Fatalf("CreateDocument: got %v, %v; want Prepare's error itself", doc, err)
			}
			wantError(t, err, sello.CodeValidationFailed, "Totals")
			if seen.Number != 1 {
				t.Errorf("Prepare saw %s, want number 1", seen)
			}
		}
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1).Next; got != 1 {
			t.Errorf("sequence Next: got %d, want 1: the number was consumed", got)
		}
		if docs, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvTest, sello.DocumentFilter{}); err != nil || len(docs) != 0 {
			t.Errorf("documents: got %d (%v), want none", len(docs), err)
		}
		if evs, err := e.s.ListEvents(ctx, tn.ID, sello.EnvTest, sello.EventFilter{}); err != nil || len(evs) != 0 {
			t.Errorf("events: got %d (%v), want none", len(evs), err)
		}
		// The idempotency key was not kept either: the retry creates.
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = "rollback", []byte("h2")
		if got := MustCreateDocument(t, e.s, nd).ENCF; got != encf("31", 1) {
			t.Errorf("after rollback: got %s, want %s", got, encf("31", 1))
		}
	})
	t.Run("ErrENCFOfOtherType", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 100)
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.ENCF = encf("32", 1)
		_, _, err := e.s.CreateDocument(t.Context(), nd)
		wantError(t, err, sello.CodeValidationFailed)
		wantDetail(t, err, sello.ENCFPath, nd.ENCF)
	})
}

// wantDetail fails unless err has a detail at path whose message contains
// substr.
func wantDetail(tb testing.TB, err error, path, substr string) {
	tb.Helper()
	var e *sello.Error
	if !errors.As(err, &e) {
		tb.Fatalf("error %v is not a *sello.Error", err)
	}
	for _, d := range e.Details {
		if d.Path == path && bytes.Contains([]byte(d.Message), []byte(substr)) {
			return
		}
	}
	tb.Errorf("details: got %+v, want one at %s mentioning %q", e.Details, path, substr)
}

// mustCreateN creates n documents of type 31 in env with the clock moving
// step between them, and returns them oldest first.
func mustCreateN(tb testing.TB, e env, tenantID string, en sello.Environment, n int, step time.Duration) []*sello.Document {
	tb.Helper()
	var out []*sello.Document
	for range n {
		out = append(out, MustCreateDocument(tb, e.s, newDoc(tenantID, en, sello.TypeCreditoFiscal)))
		e.clock.Add(step)
	}
	return out
}
