package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
)

// mustConfirmJobs lists the sello.InboundConfirmJobs, oldest first.
func mustConfirmJobs(tb testing.TB, r jobs.Runner) []sello.InboundConfirmJob {
	tb.Helper()
	var out []sello.InboundConfirmJob
	for _, j := range mustListJobs(tb, r, sello.InboundConfirmJob{}.Kind()).Jobs {
		var a sello.InboundConfirmJob
		if err := json.Unmarshal(j.EncodedArgs, &a); err != nil {
			tb.Fatalf("decode job args %s: %v", j.EncodedArgs, err)
		}
		out = append(out, a)
	}
	return out
}

// mustQueueConfirmJobs is QueueInboundConfirmJobs of up to limit entries.
func mustQueueConfirmJobs(tb testing.TB, s sello.Store, limit int) int {
	tb.Helper()
	n, err := s.QueueInboundConfirmJobs(tb.Context(), limit)
	if err != nil {
		tb.Fatalf("QueueInboundConfirmJobs: %v", err)
	}
	return n
}

// confirmJobOf is the InboundConfirmJob of d.
func confirmJobOf(d *sello.InboundDocument) sello.InboundConfirmJob {
	return sello.InboundConfirmJob{TenantID: d.TenantID, Environment: d.Environment, InboundDocumentID: d.ID}
}

// confirmWorker works sello.InboundConfirmJob by sending its args.
type confirmWorker struct {
	river.WorkerDefaults[sello.InboundConfirmJob]
	worked chan<- sello.InboundConfirmJob
}

func (w *confirmWorker) Work(_ context.Context, j *river.Job[sello.InboundConfirmJob]) error {
	w.worked <- j.Args
	return nil
}

// testInboundConfirmQueue: a receipt queues its document's confirmation in
// the store, not in River; the sweep (QueueInboundConfirmJobs, which every
// job runner runs) turns each queued document into one InboundConfirmJob,
// oldest first, however many sweeps run at once.
func testInboundConfirmQueue(t *testing.T, open Open) {
	t.Run("Sweep", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		r := newRunner(t, e.s, nil) // lists jobs; not started, so it sweeps nothing
		if n := mustQueueConfirmJobs(t, e.s, 10); n != 0 {
			t.Fatalf("sweep of an empty queue: %d, want 0", n)
		}
		var docs []*sello.InboundDocument
		for i := range 5 {
			docs = append(docs, MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", int64(i+1))))
		}
		// The same bytes again, and a receipt the quota refuses, queue
		// nothing.
		if _, held, err := e.s.CreateInboundDocument(t.Context(), newInbound(tn.ID, sello.EnvTest, "131000001", 1), 0); err != nil || held == nil {
			t.Fatalf("the same bytes again: held %+v, %v", held, err)
		}
		if _, _, err := e.s.CreateInboundDocument(t.Context(), differentInbound(tn.ID, sello.EnvTest, "131000001", 1, "other"), 1); sello.ErrorCodeOf(err) != sello.CodeRateLimited {
			t.Fatalf("past the quota: got %v, want RATE_LIMITED", err)
		}
		// Stored, not yet a job: the receipt's transaction inserts none.
		if got := mustConfirmJobs(t, r); len(got) != 0 {
			t.Fatalf("jobs before a sweep: got %+v, want none", got)
		}
		for _, c := range []struct{ limit, want int }{{2, 2}, {2, 2}, {2, 1}, {2, 0}} {
			if n := mustQueueConfirmJobs(t, e.s, c.limit); n != c.want {
				t.Fatalf("sweep of %d: moved %d, want %d", c.limit, n, c.want)
			}
		}
		want := make([]sello.InboundConfirmJob, len(docs))
		for i, d := range docs {
			want[i] = confirmJobOf(d)
		}
		deepEqual(t, "jobs after the sweeps, in receipt order", mustConfirmJobs(t, r), want)
		// A document received later is queued in turn; those moved stay
		// moved.
		later := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvProd, "131000001", 9))
		if n := mustQueueConfirmJobs(t, e.s, 10); n != 1 {
			t.Fatalf("sweep after another receipt: moved %d, want 1", n)
		}
		deepEqual(t, "jobs after the later receipt", mustConfirmJobs(t, r), append(want, confirmJobOf(later)))
	})
	// The job runner sweeps by itself: a document stored while it runs gets
	// its job and is worked, with no insert of the receipt's own.
	t.Run("Runner", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		before := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 1))
		worked := make(chan sello.InboundConfirmJob, 10)
		ws := river.NewWorkers()
		river.AddWorker(ws, &confirmWorker{worked: worked})
		r, err := e.s.NewJobRunner(ws, jobs.Config{Workers: 2, ConfirmSweep: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		start(t, r)
		after := MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", 2))
		got := map[string]sello.InboundConfirmJob{}
		for len(got) < 2 {
			select {
			case j := <-worked:
				got[j.InboundDocumentID] = j
			case <-time.After(20 * time.Second):
				t.Fatalf("worked in 20 s: %+v, want the jobs of %s (stored before the start) and %s (after)", got, before.ID, after.ID)
			}
		}
		deepEqual(t, "worked", got, map[string]sello.InboundConfirmJob{before.ID: confirmJobOf(before), after.ID: confirmJobOf(after)})
	})
	// Sweeps at once (several runners, several nodes): each document gets
	// one job. On PostgreSQL they run at once, each skipping what another
	// holds; on SQLite they take turns.
	t.Run("Concurrent", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		const docs, sweepers, limit = 120, 4, 7
		want := map[string]bool{}
		for i := range docs {
			want[MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvTest, "131000001", int64(i+1))).ID] = true
		}
		var mu sync.Mutex
		moved := 0
		var wg sync.WaitGroup
		ready := make(chan struct{})
		for range sweepers {
			wg.Go(func() {
				<-ready
				for {
					n, err := e.s.QueueInboundConfirmJobs(t.Context(), limit)
					if err != nil {
						t.Errorf("QueueInboundConfirmJobs: %v", err)
						return
					}
					mu.Lock()
					moved += n
					mu.Unlock()
					if n == 0 {
						return
					}
				}
			})
		}
		close(ready)
		wg.Wait()
		if moved != docs {
			t.Errorf("moved %d, want %d", moved, docs)
		}
		if n := mustQueueConfirmJobs(t, e.s, docs); n != 0 {
			t.Errorf("a sweep after all: moved %d, want 0", n)
		}
		got := mustConfirmJobs(t, newRunner(t, e.s, nil))
		seen := map[string]int{}
		for _, j := range got {
			seen[j.InboundDocumentID]++
		}
		for id := range want {
			if seen[id] != 1 {
				t.Errorf("document %s: %d jobs, want 1", id, seen[id])
			}
		}
		if len(got) != docs {
			t.Errorf("%d jobs, want %d", len(got), docs)
		}
	})
}
