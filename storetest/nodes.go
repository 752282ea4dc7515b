package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// OpenNodes returns two stores over one fresh, empty database, as two
// nodes of one service see it, both on the clock now; t closes them in
// Cleanup.
type OpenNodes func(t *testing.T, now func() time.Time) (Store, Store)

// RunNodes runs the part of the storage contract that nodes sharing a
// database keep together: creates of one tenant, environment and type
// from both at once, numbered without a gap or a number used twice,
// whatever each store does to share its commits.
func RunNodes(t *testing.T, open OpenNodes) {
	t.Run("Numbering", func(t *testing.T) { testNodesNumbering(t, open) })
	t.Run("FailuresAlone", func(t *testing.T) { testNodesFailures(t, open) })
	t.Run("ErrSequenceExhausted", func(t *testing.T) { testNodesExhausted(t, open) })
	t.Run("Idempotency", func(t *testing.T) { testNodesIdempotency(t, open) })
}

// nodes is what a RunNodes subtest works with.
type nodes struct {
	s     [2]Store
	clock *Clock
}

func newNodes(t *testing.T, open OpenNodes) nodes {
	t.Helper()
	c := NewClock(clockStart, time.Millisecond)
	a, b := open(t, c.Now)
	return nodes{s: [2]Store{a, b}, clock: c}
}

// outcome is what one create got.
type outcome struct {
	doc      *sello.Document
	replayed bool
	err      error
}

// each runs create perNode times on each node, from goroutines goroutines
// per node, all at once; create gets the node's store and the create's
// index on it, and returns its outcome.
func (n nodes) each(goroutines, perNode int, create func(s Store, node, i int) outcome) [2][]outcome {
	var out [2][]outcome
	var wg sync.WaitGroup
	start := make(chan struct{})
	for node, s := range n.s {
		out[node] = make([]outcome, perNode)
		for g := range goroutines {
			wg.Go(func() {
				<-start
				for i := g; i < perNode; i += goroutines {
					out[node][i] = create(s, node, i)
				}
			})
		}
	}
	close(start)
	wg.Wait()
	return out
}

// create is s.CreateDocument as an outcome.
func create(ctx context.Context, s Store, nd sello.DocumentDraft) outcome {
	doc, replayed, err := s.CreateDocument(ctx, nd)
	return outcome{doc: doc, replayed: replayed, err: err}
}

// mustNumbered checks that docs are numbered from–to of typ, each number
// once, that the range's next number is to+1, and that every one of them
// and of others (the other documents created) has its sello.DocumentJob,
// once.
func (n nodes) mustNumbered(t *testing.T, tenantID string, typ sello.DocumentType, docs []*sello.Document, from, to int64, others ...*sello.Document) {
	t.Helper()
	var got, want []string
	for _, d := range docs {
		got = append(got, d.ENCF)
	}
	for i := from; i <= to; i++ {
		want = append(want, encf(typ, i))
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("numbers: got %d (%v … %v), want %s…%s each exactly once", len(got), got[:min(3, len(got))], got[max(0, len(got)-3):], want[0], want[len(want)-1])
	}
	if got := mustSequence(t, n.s[1], tenantID, sello.EnvTest, typ, from).Next; got != to+1 {
		t.Errorf("sequence Next: got %d, want %d", got, to+1)
	}
	jobs := map[string]int{}
	for _, j := range mustDocumentJobs(t, newRunner(t, n.s[0], func(context.Context, stepArgs) error { return nil })) {
		jobs[j.Args.DocumentID]++
	}
	for _, d := range append(docs, others...) {
		if jobs[d.ID] != 1 {
			t.Errorf("document %s (%s): %d jobs, want 1", d.ID, d.ENCF, jobs[d.ID])
		}
		delete(jobs, d.ID)
	}
	if len(jobs) > 0 {
		t.Errorf("jobs of no document created: %v", jobs)
	}
}

// testNodesNumbering: creates of one type from two nodes at once take
// every number of the range once, in order, each with its job.
func testNodesNumbering(t *testing.T, open OpenNodes) {
	const goroutines, perNode, from = 8, 120, 1000
	n := newNodes(t, open)
	tn := MustCreateTenant(t, n.s[0])
	MustAddSequence(t, n.s[0], tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, from, from+10_000)
	out := n.each(goroutines, perNode, func(s Store, _, _ int) outcome {
		return create(t.Context(), s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
	})
	var docs, onB []*sello.Document
	var errs []error
	for node, os := range out {
		for _, o := range os {
			if o.err != nil {
				errs = append(errs, o.err)
				continue
			}
			docs = append(docs, o.doc)
			if node == 1 {
				onB = append(onB, o.doc)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("%d creates failed: %v", len(errs), err)
	}
	n.mustNumbered(t, tn.ID, sello.TypeCreditoFiscal, docs, from, from+2*perNode-1)
	// What one node created, the other reads as it was returned.
	for _, d := range onB[:3] {
		got, err := n.s[0].FindDocument(t.Context(), tn.ID, sello.EnvTest, d.ENCF)
		if err != nil {
			t.Fatalf("FindDocument on the other node: %v", err)
		}
		deepEqual(t, "read on the other node", got, d)
	}
}

// testNodesFailures: among creates from two nodes at once, the ones that
// fail (Prepare's error, a reused idempotency key, a used or foreign
// e-NCF) fail alone, with their own errors and no number taken, while the
// others are created and the replays return the documents they replay.
func testNodesFailures(t *testing.T, open OpenNodes) {
	const goroutines, perNode, held = 8, 96, 6
	n := newNodes(t, open)
	tn := MustCreateTenant(t, n.s[0])
	MustAddSequence(t, n.s[0], tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
	keyed := func(key, hash string) sello.DocumentDraft {
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = key, []byte(hash)
		return nd
	}
	var heldDocs []*sello.Document
	for i := range held {
		heldDocs = append(heldDocs, MustCreateDocument(t, n.s[0], keyed(fmt.Sprint("held-", i), "h")))
	}
	explicit := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
	explicit.ENCF = encf("31", 900)
	heldDocs = append(heldDocs, MustCreateDocument(t, n.s[0], explicit))

	boom := errors.New("boom")
	const kinds = 6 // the cases below, in turn
	out := n.each(goroutines, perNode, func(s Store, node, i int) outcome {
		ctx := t.Context()
		switch i % kinds {
		case 1:
			nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
			nd.Prepare = func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) { return nil, boom }
			return create(ctx, s, nd)
		case 2:
			return create(ctx, s, keyed(fmt.Sprint("held-", i/kinds%held), "other body"))
		case 3:
			return create(ctx, s, keyed(fmt.Sprint("held-", i/kinds%held), "h"))
		case 4:
			return create(ctx, s, explicit)
		case 5:
			nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
			nd.ENCF = encf("31", 5000)
			return create(ctx, s, nd)
		}
		return create(ctx, s, keyed(fmt.Sprint("new-", node, "-", i), "h"))
	})
	var created []*sello.Document
	for node, os := range out {
		for i, o := range os {
			what := fmt.Sprintf("node %d create %d (case %d)", node, i, i%kinds)
			switch i % kinds {
			case 0:
				if o.err != nil || o.replayed {
					t.Errorf("%s: got %v, replayed %v; want a new document", what, o.err, o.replayed)
					continue
				}
				created = append(created, o.doc)
			case 1:
				if !errors.Is(o.err, boom) {
					t.Errorf("%s: got %v, want Prepare's error", what, o.err)
				}
			case 2:
				wantOutcome(t, what, o, sello.CodeIdempotencyKeyReused, "held-")
			case 3:
				if h := heldDocs[i/kinds%held]; o.err != nil || !o.replayed || o.doc.ID != h.ID {
					t.Errorf("%s: got %v, replayed %v; want the replay of %s", what, o.err, o.replayed, h.ENCF)
				}
			case 4:
				wantOutcome(t, what, o, sello.CodeConflict, encf("31", 900), heldDocs[held].ID)
			case 5:
				wantOutcome(t, what, o, sello.CodeValidationFailed)
			}
		}
	}
	n.mustNumbered(t, tn.ID, sello.TypeCreditoFiscal, append(created, heldDocs[:held]...), 1, int64(held+len(created)), heldDocs[held])
}

// wantOutcome reports an error unless o failed with code and a message
// containing every one of substrs.
func wantOutcome(t *testing.T, what string, o outcome, code sello.ErrorCode, substrs ...string) {
	t.Helper()
	if got := sello.ErrorCodeOf(o.err); got != code {
		t.Errorf("%s: got %q (%v), want %q", what, got, o.err, code)
		return
	}
	for _, s := range substrs {
		if msg := sello.ErrorMessageOf(o.err); !strings.Contains(msg, s) {
			t.Errorf("%s: message %q does not contain %q", what, msg, s)
		}
	}
}

// testNodesExhausted: creates from two nodes at once into a short range
// take each of its numbers once; the rest are SEQUENCE_EXHAUSTED.
func testNodesExhausted(t *testing.T, open OpenNodes) {
	const goroutines, perNode, size = 8, 24, 20
	n := newNodes(t, open)
	tn := MustCreateTenant(t, n.s[0])
	MustAddSequence(t, n.s[0], tn.ID, sello.EnvTest, sello.TypeConsumo, 1, size)
	out := n.each(goroutines, perNode, func(s Store, _, _ int) outcome {
		return create(t.Context(), s, newDoc(tn.ID, sello.EnvTest, sello.TypeConsumo))
	})
	var docs []*sello.Document
	for node, os := range out {
		for i, o := range os {
			if o.err == nil {
				docs = append(docs, o.doc)
				continue
			}
			wantOutcome(t, fmt.Sprintf("node %d create %d", node, i), o, sello.CodeSequenceExhausted, "32")
		}
	}
	n.mustNumbered(t, tn.ID, sello.TypeConsumo, docs, 1, size)
}

// testNodesIdempotency: one idempotency key sent to both nodes at once,
// among creates of other keys, makes one document; the others replay it.
func testNodesIdempotency(t *testing.T, open OpenNodes) {
	const goroutines, perNode = 8, 32
	n := newNodes(t, open)
	tn := MustCreateTenant(t, n.s[0])
	MustAddSequence(t, n.s[0], tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
	out := n.each(goroutines, perNode, func(s Store, node, i int) outcome {
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = fmt.Sprint("order-", node, "-", i), []byte("h")
		if i%2 == 0 {
			nd.IdempotencyKey = fmt.Sprint("shared-", i/8)
		}
		return create(t.Context(), s, nd)
	})
	shared := map[string]map[string]int{} // key → document id → creates that got it
	var docs []*sello.Document
	for node, os := range out {
		for i, o := range os {
			if o.err != nil {
				t.Errorf("node %d create %d: %v", node, i, o.err)
				continue
			}
			if i%2 == 1 {
				if o.replayed {
					t.Errorf("node %d create %d: replayed, want a new document", node, i)
				}
				docs = append(docs, o.doc)
				continue
			}
			key := fmt.Sprint("shared-", i/8)
			if shared[key] == nil {
				shared[key] = map[string]int{}
			}
			if shared[key][o.doc.ID]++; !o.replayed {
				docs = append(docs, o.doc)
			}
		}
	}
	for key, ids := range shared {
		if len(ids) != 1 {
			t.Errorf("key %s: documents %v, want one", key, ids)
		}
	}
	if t.Failed() {
		return
	}
	n.mustNumbered(t, tn.ID, sello.TypeCreditoFiscal, docs, 1, int64(perNode+len(shared)))
}
