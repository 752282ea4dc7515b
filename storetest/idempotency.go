package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testIdempotency(t *testing.T, open Open) {
	keyed := func(tenantID string, en sello.Environment, key, hash string) sello.DocumentDraft {
		nd := newDoc(tenantID, en, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = key, []byte(hash)
		return nd
	}
	t.Run("Replay", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		first := MustCreateDocument(t, e.s, keyed(tn.ID, sello.EnvTest, "order-1", "hash-a"))
		e.clock.Add(time.Hour)
		nd := keyed(tn.ID, sello.EnvTest, "order-1", "hash-a")
		called := false
		nd.Prepare = func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
			called = true
			return nil, sello.Errorf(sello.CodeInternal, "Prepare must not run on a replay.")
		}
		again, replayed, err := e.s.CreateDocument(ctx, nd)
		if err != nil || !replayed {
			t.Fatalf("CreateDocument again: %v, replayed %v; want the first document, replayed", err, replayed)
		}
		if called {
			t.Error("Prepare ran on a replay")
		}
		deepEqual(t, "replayed document", again, first)
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1).Next; got != 2 {
			t.Errorf("sequence Next: got %d, want 2: the replay consumed a number", got)
		}
		docs, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvTest, sello.DocumentFilter{})
		if err != nil || len(docs) != 1 {
			t.Errorf("documents: got %d (%v), want 1", len(docs), err)
		}
		if evs := mustEvents(t, e.s, tn.ID, sello.EnvTest, 1); len(evs) != 1 {
			t.Errorf("events: got %d, want 1", len(evs))
		}
	})
	t.Run("ErrKeyReused", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustCreateDocument(t, e.s, keyed(tn.ID, sello.EnvTest, "order-1", "hash-a"))
		_, _, err := e.s.CreateDocument(t.Context(), keyed(tn.ID, sello.EnvTest, "order-1", "hash-b"))
		wantError(t, err, sello.CodeIdempotencyKeyReused, "order-1")
		if got := mustSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1).Next; got != 2 {
			t.Errorf("sequence Next: got %d, want 2", got)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		const goroutines = 8
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			ids      = map[string]int{}
			replays  int
			failures []error
		)
		start := make(chan struct{})
		for range goroutines {
			wg.Go(func() {
				<-start
				doc, replayed, err := e.s.CreateDocument(t.Context(), keyed(tn.ID, sello.EnvTest, "retry-storm", "same"))
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failures = append(failures, err)
					return
				}
				ids[doc.ID]++
				if replayed {
					replays++
				}
			})
		}
		close(start)
		wg.Wait()
		if len(failures) > 0 {
			t.Fatalf("%d creates failed, first: %v", len(failures), failures[0])
		}
		if len(ids) != 1 || replays != goroutines-1 {
			t.Errorf("documents: got %v with %d replays, want one document and %d replays", ids, replays, goroutines-1)
		}
		docs, _, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{})
		if err != nil || len(docs) != 1 {
			t.Errorf("stored documents: got %d (%v), want 1", len(docs), err)
		}
	})
	t.Run("ScopedToTenantAndEnvironment", func(t *testing.T) {
		e := newEnv(t, open)
		a, b := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
		for _, tn := range []*sello.Tenant{a, b} {
			for _, en := range []sello.Environment{sello.EnvTest, sello.EnvCert} {
				MustAddSequence(t, e.s, tn.ID, en, sello.TypeCreditoFiscal, 1, 100)
			}
		}
		seen := map[string]bool{}
		for _, tn := range []*sello.Tenant{a, b} {
			for _, en := range []sello.Environment{sello.EnvTest, sello.EnvCert} {
				doc := MustCreateDocument(t, e.s, keyed(tn.ID, en, "shared-key", "hash-"+tn.ID))
				if doc.TenantID != tn.ID || doc.Environment != en || seen[doc.ID] {
					t.Errorf("got document %s of %s in %s, want a new one of %s in %s", doc.ID, doc.TenantID, doc.Environment, tn.ID, en)
				}
				seen[doc.ID] = true
			}
		}
	})
	t.Run("Expires", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		first := MustCreateDocument(t, e.s, keyed(tn.ID, sello.EnvTest, "old", "hash-a"))
		e.clock.Add(sello.IdempotencyWindow - time.Minute)
		if _, replayed, err := e.s.CreateDocument(t.Context(), keyed(tn.ID, sello.EnvTest, "old", "hash-a")); err != nil || !replayed {
			t.Fatalf("inside the window: %v, replayed %v; want a replay", err, replayed)
		}
		e.clock.Add(2 * time.Minute)
		second := MustCreateDocument(t, e.s, keyed(tn.ID, sello.EnvTest, "old", "hash-b"))
		if second.ID == first.ID || second.ENCF != encf("31", 2) {
			t.Errorf("after the window: got %s (%s), want a new document with %s", second.ENCF, second.ID, encf("31", 2))
		}
		again, replayed, err := e.s.CreateDocument(t.Context(), keyed(tn.ID, sello.EnvTest, "old", "hash-b"))
		if err != nil || !replayed || again.ID != second.ID {
			t.Errorf("the key now names the new document: got %v, %v, %v", again, replayed, err)
		}
	})
}
