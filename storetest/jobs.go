package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
)

// stepArgs is the suite's job: one step of a document's lifecycle.
type stepArgs struct {
	TenantID    string            `json:"tenantId"`
	Environment sello.Environment `json:"environment"`
	DocumentID  string            `json:"documentId"`
	Step        string            `json:"step"`
}

const stepKind = "storetest_step"

// Kind implements river.JobArgs.
func (stepArgs) Kind() string { return stepKind }

// optsArgs is a job with its own insert options, which the store must pass
// on to River.
type optsArgs struct{}

const optsKind = "storetest_opts"

func (optsArgs) Kind() string { return optsKind }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (optsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 3, Priority: 2, Tags: []string{"storetest"}}
}

// stepWorker works stepArgs with a function.
type stepWorker struct {
	river.WorkerDefaults[stepArgs]
	work func(ctx context.Context, a stepArgs) error
}

func (w *stepWorker) Work(ctx context.Context, j *river.Job[stepArgs]) error {
	return w.work(ctx, j.Args)
}

// documentWorker works the sello.DocumentJob every created document starts
// with, as the step documentStep of the suite's work function.
type documentWorker struct {
	river.WorkerDefaults[sello.DocumentJob]
	work func(ctx context.Context, a stepArgs) error
}

const documentStep = "document"

func (w *documentWorker) Work(ctx context.Context, j *river.Job[sello.DocumentJob]) error {
	a := j.Args
	return w.work(ctx, stepArgs{TenantID: a.TenantID, Environment: a.Environment, DocumentID: a.DocumentID, Step: documentStep})
}

type optsWorker struct{ river.WorkerDefaults[optsArgs] }

func (optsWorker) Work(context.Context, *river.Job[optsArgs]) error { return nil }

// jobLister is what River's client offers to list jobs, whatever its
// transaction type.
type jobLister interface {
	JobList(ctx context.Context, params *river.JobListParams) (*river.JobListResult, error)
}

// newRunner returns a job runner working steps with work; it is stopped at
// cleanup. It is not started.
func newRunner(t *testing.T, s Store, work func(ctx context.Context, a stepArgs) error) jobs.Runner {
	t.Helper()
	return newRunnerLogging(t, s, work, nil)
}

func newRunnerLogging(t *testing.T, s Store, work func(ctx context.Context, a stepArgs) error, logger *slog.Logger) jobs.Runner {
	t.Helper()
	ws := river.NewWorkers()
	river.AddWorker(ws, &stepWorker{work: work})
	river.AddWorker(ws, &documentWorker{work: work})
	river.AddWorker(ws, optsWorker{})
	r, err := s.NewJobRunner(ws, jobs.Config{Workers: 8, Logger: logger})
	if err != nil {
		t.Fatalf("NewJobRunner: %v", err)
	}
	return r
}

// start starts r until the test ends.
func start(t *testing.T, r jobs.Runner) {
	t.Helper()
	if err := r.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
}

// mustListJobs lists r's jobs of kinds (up to 10,000), oldest first.
func mustListJobs(tb testing.TB, r jobs.Runner, kinds ...string) *river.JobListResult {
	tb.Helper()
	l, ok := r.(jobLister)
	if !ok {
		tb.Fatalf("runner %T cannot list jobs", r)
	}
	res, err := l.JobList(tb.Context(), river.NewJobListParams().Kinds(kinds...).First(10_000))
	if err != nil {
		tb.Fatalf("JobList: %v", err)
	}
	return res
}

// jobRow is the part of a River job the suite checks.
type jobRow struct {
	Kind        string
	Args        stepArgs
	MaxAttempts int
	Priority    int
	Tags        []string
}

// mustJobs lists the suite's jobs, oldest first.
func mustJobs(tb testing.TB, r jobs.Runner) []jobRow {
	tb.Helper()
	return mustJobsOf(tb, r, stepKind, optsKind)
}

// mustDocumentJobs lists the sello.DocumentJobs, oldest first.
func mustDocumentJobs(tb testing.TB, r jobs.Runner) []jobRow {
	tb.Helper()
	return mustJobsOf(tb, r, sello.DocumentJob{}.Kind())
}

func mustJobsOf(tb testing.TB, r jobs.Runner, kinds ...string) []jobRow {
	tb.Helper()
	var out []jobRow
	for _, j := range mustListJobs(tb, r, kinds...).Jobs {
		row := jobRow{Kind: j.Kind, MaxAttempts: j.MaxAttempts, Priority: j.Priority, Tags: j.Tags}
		if j.Kind != optsKind {
			if err := json.Unmarshal(j.EncodedArgs, &row.Args); err != nil {
				tb.Fatalf("decode job args %s: %v", j.EncodedArgs, err)
			}
		}
		out = append(out, row)
	}
	return out
}

func testJobs(t *testing.T, open Open) {
	t.Run("CreateDocument", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		worked := make(chan stepArgs, 10)
		r := newRunner(t, e.s, func(_ context.Context, a stepArgs) error {
			worked <- a
			return nil
		})

		boom := errors.New("boom")
		failing := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		failing.Prepare = func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) { return nil, boom }
		if _, _, err := e.s.CreateDocument(ctx, failing); !errors.Is(err, boom) {
			t.Fatalf("CreateDocument with a failing Prepare: got %v, want boom", err)
		}
		if jobs := mustDocumentJobs(t, r); len(jobs) != 0 {
			t.Fatalf("jobs after a rolled-back create: got %+v, want none", jobs)
		}
		// Every created document starts with its sello.DocumentJob, in
		// the creating transaction.
		nd := newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)
		nd.IdempotencyKey, nd.RequestHash = "order-1", []byte("h")
		doc := MustCreateDocument(t, e.s, nd)
		job := stepArgs{TenantID: tn.ID, Environment: sello.EnvTest, DocumentID: doc.ID}
		deepEqual(t, "jobs", mustDocumentJobs(t, r), []jobRow{{Kind: sello.DocumentJob{}.Kind(), Args: job, MaxAttempts: sello.DocumentJobMaxAttempts, Priority: 1, Tags: []string{}}})
		want := job
		want.Step = documentStep
		if _, replayed, err := e.s.CreateDocument(ctx, nd); err != nil || !replayed {
			t.Fatalf("replay: %v, replayed %v", err, replayed)
		}
		if jobs := mustDocumentJobs(t, r); len(jobs) != 1 {
			t.Errorf("jobs after a replay: got %d, want 1", len(jobs))
		}

		start(t, r)
		select {
		case got := <-worked:
			deepEqual(t, "worked", got, want)
		case <-time.After(20 * time.Second):
			t.Fatal("the job was not worked in 20 s")
		}
	})
	t.Run("UpdateDocument", func(t *testing.T) {
		e := newEnv(t, open)
		doc := newLifecycleDoc(t, e)
		r := newRunner(t, e.s, func(context.Context, stepArgs) error { return nil })
		step := stepArgs{TenantID: doc.TenantID, Environment: doc.Environment, DocumentID: doc.ID, Step: "submit"}
		ch := signChange()
		ch.Jobs = []sello.Job{step, optsArgs{}}
		mustUpdate(t, e.s, doc, ch)
		want := []jobRow{
			{Kind: stepKind, Args: step, MaxAttempts: river.MaxAttemptsDefault, Priority: 1, Tags: []string{}},
			{Kind: optsKind, MaxAttempts: 3, Priority: 2, Tags: []string{"storetest"}},
		}
		deepEqual(t, "jobs", mustJobs(t, r), want)
		// A change that does not apply inserts no job.
		_, err := e.s.UpdateDocument(t.Context(), doc.TenantID, doc.Environment, doc.ID, ch)
		wantError(t, err, sello.CodeConflict)
		deepEqual(t, "jobs after a conflict", mustJobs(t, r), want)
	})
	t.Run("ErrRunnerConfig", func(t *testing.T) {
		e := newEnv(t, open)
		for _, tc := range []struct {
			workers *river.Workers
			cfg     jobs.Config
		}{
			{nil, jobs.Config{}},
			{river.NewWorkers(), jobs.Config{JobTimeout: time.Minute, RescueAfter: time.Second}},
		} {
			if r, err := e.s.NewJobRunner(tc.workers, tc.cfg); err == nil {
				t.Errorf("NewJobRunner(%T, %+v): got %T, want an error", tc.workers, tc.cfg, r)
			}
		}
	})
	t.Run("Load", func(t *testing.T) { testJobsLoad(t, open) })
}

// testJobsLoad runs the lifecycle under load: producers create documents
// with a sign job while the runner's workers sign them (UpdateDocument with
// a submit job) and submit them, all on one store. On SQLite, River's
// writes and the store's share one write queue; nothing may deadlock or
// fail.
func testJobsLoad(t *testing.T, open Open) {
	const producers, each = 8, 25
	const total = producers * each
	e := newEnv(t, open)
	ctx := t.Context()
	tn := MustCreateTenant(t, e.s)
	MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, total)
	done := make(chan string, total)
	failed := make(chan error, 1)
	logs := &warnings{}
	r := newRunnerLogging(t, e.s, func(ctx context.Context, a stepArgs) error {
		var err error
		switch a.Step {
		case documentStep: // the created document's job signs it
			ch := signChange()
			ch.Jobs = []sello.Job{stepArgs{TenantID: a.TenantID, Environment: a.Environment, DocumentID: a.DocumentID, Step: "submit"}}
			_, err = e.s.UpdateDocument(ctx, a.TenantID, a.Environment, a.DocumentID, ch)
		case "submit":
			_, err = e.s.UpdateDocument(ctx, a.TenantID, a.Environment, a.DocumentID, sello.DocumentChange{
				From: []sello.Status{sello.StatusSigned}, Status: sello.StatusSubmitted, TrackID: "trk-" + a.DocumentID,
				EventType: sello.EventECFSubmitted,
			})
			if err == nil {
				done <- a.DocumentID
			}
		}
		if err != nil {
			select {
			case failed <- fmt.Errorf("%s %s: %w", a.Step, a.DocumentID, err):
			default:
			}
		}
		return err
	}, slog.New(logs))
	started := time.Now()
	start(t, r)
	var wg sync.WaitGroup
	for range producers {
		wg.Go(func() {
			for range each {
				if _, _, err := e.s.CreateDocument(ctx, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal)); err != nil {
					select {
					case failed <- fmt.Errorf("create: %w", err):
					default:
					}
					return
				}
			}
		})
	}
	var ids []string
	timeout := time.After(90 * time.Second)
	for len(ids) < total {
		select {
		case id := <-done:
			ids = append(ids, id)
		case err := <-failed:
			wg.Wait()
			t.Fatalf("after %d of %d documents: %v", len(ids), total, err)
		case <-timeout:
			wg.Wait()
			t.Fatalf("only %d of %d documents submitted in 90 s", len(ids), total)
		}
	}
	wg.Wait()
	t.Logf("%d documents created, signed and submitted through jobs in %v", total, time.Since(started).Round(time.Millisecond))
	if w := logs.all(); len(w) > 0 {
		t.Errorf("River logged %d warnings or errors, first: %s", len(w), w[0])
	}
	slices.Sort(ids)
	if len(slices.Compact(ids)) != total {
		t.Errorf("submitted: got %d distinct documents, want %d", len(slices.Compact(ids)), total)
	}
	docs, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvTest, sello.DocumentFilter{Status: sello.StatusSubmitted, Limit: sello.MaxPageSize})
	if err != nil || len(docs) != min(total, sello.MaxPageSize) {
		t.Errorf("submitted documents: got %d, %v", len(docs), err)
	}
}

// warnings is a slog handler that keeps records of level warning and above.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (w *warnings) Handle(_ context.Context, r slog.Record) error {
	msg := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.String()
		return true
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
	return nil
}

func (w *warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnings) WithGroup(string) slog.Handler      { return w }

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.msgs)
}
