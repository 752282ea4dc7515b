package postgres_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/postgres"
)

// TestPools checks the sizes of the store's pool and the job runners' pool,
// and that they are two pools.
func TestPools(t *testing.T) {
	u := MustSchema(t)
	withMax := func(n string) string {
		p, _ := url.Parse(u)
		q := p.Query()
		q.Set("pool_max_conns", n)
		p.RawQuery = q.Encode()
		return p.String()
	}
	for _, tt := range []struct {
		name           string
		url            string
		pools          postgres.Pools
		store, jobs    int32
		wantErrContain string
	}{
		{name: "Defaults", url: u, store: 20, jobs: 10},
		{name: "URL", url: withMax("7"), store: 7, jobs: 10},
		{name: "Sized", url: u, pools: postgres.Pools{MaxConns: 6, JobsMaxConns: 5}, store: 6, jobs: 5},
		{name: "SizedOverURL", url: withMax("7"), pools: postgres.Pools{MaxConns: 3, JobsMaxConns: 4}, store: 3, jobs: 4},
		{name: "ErrJobsTooSmall", url: u, pools: postgres.Pools{JobsMaxConns: 3}, wantErrContain: "the jobs pool needs at least 4 connections, not 3"},
		{name: "ErrStoreNegative", url: u, pools: postgres.Pools{MaxConns: -1}, wantErrContain: "the store's pool needs at least 1 connection, not -1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, err := postgres.OpenPools(t.Context(), tt.url, tt.pools)
			if tt.wantErrContain != "" {
				if err == nil {
					db.Close()
					t.Fatalf("OpenPools(%+v): got nil error, want %q", tt.pools, tt.wantErrContain)
				}
				if !strings.Contains(err.Error(), tt.wantErrContain) {
					t.Fatalf("OpenPools(%+v): got %q, want %q", tt.pools, err, tt.wantErrContain)
				}
				return
			}
			if err != nil {
				t.Fatalf("OpenPools: %v", err)
			}
			defer db.Close()
			if db.Pool() == db.JobsPool() {
				t.Fatal("the store and the job runners share one pool")
			}
			if got := db.Pool().Config().MaxConns; got != tt.store {
				t.Errorf("store pool: got %d connections, want %d", got, tt.store)
			}
			if got := db.JobsPool().Config().MaxConns; got != tt.jobs {
				t.Errorf("jobs pool: got %d connections, want %d", got, tt.jobs)
			}
			// Both reach the same schema.
			for name, p := range map[string]*pgxpool.Pool{"store": db.Pool(), "jobs": db.JobsPool()} {
				var n int
				if err := p.QueryRow(t.Context(), "SELECT count(*) FROM river_job").Scan(&n); err != nil {
					t.Errorf("%s pool: %v", name, err)
				}
			}
		})
	}
}

// pingArgs is a job that needs nothing of the store.
type pingArgs struct{}

func (pingArgs) Kind() string { return "pool_test_ping" }

type pingWorker struct {
	river.WorkerDefaults[pingArgs]
	worked chan int64
}

func (w *pingWorker) Work(_ context.Context, j *river.Job[pingArgs]) error {
	w.worked <- j.ID
	return nil
}

// TestJobsWithAPIPoolExhausted holds every connection of the store's pool,
// as an API under load does, and shows the job runner still elects its
// leader, fetches a job, works it and completes it: River runs on its own
// pool. On one shared pool the runner waits for a connection the API never
// gives back.
func TestJobsWithAPIPoolExhausted(t *testing.T) {
	u := MustSchema(t)
	db, err := postgres.OpenPools(t.Context(), u, postgres.Pools{MaxConns: 4, JobsMaxConns: postgres.MinJobsMaxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })

	// The API holds every store connection.
	for range db.Pool().Config().MaxConns {
		c, err := db.Pool().Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Release)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	_, err = db.Pool().Acquire(ctx)
	cancel()
	if err == nil {
		t.Fatal("the store's pool still gives connections: the test holds none of them")
	}

	// Another node inserts a job, through a connection of its own.
	other, err := pgxpool.New(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(other.Close)
	inserter, err := river.NewClient(riverpgxv5.New(other), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := inserter.Insert(t.Context(), pingArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}

	w := &pingWorker{worked: make(chan int64, 1)}
	ws := river.NewWorkers()
	river.AddWorker(ws, w)
	runner, err := db.NewJobRunner(ws, jobs.Config{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	startCtx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := runner.Start(startCtx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := runner.StopAndCancel(ctx); err != nil {
			t.Errorf("StopAndCancel: %v", err)
		}
	})

	select {
	case id := <-w.worked:
		if id != job.Job.ID {
			t.Fatalf("worked job %d, want %d", id, job.Job.ID)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the job was not worked in 15 s while the store's pool was exhausted")
	}
	waitFor(t, other, "the job completed", `SELECT state = 'completed' FROM river_job WHERE id = $1`, job.Job.ID)
	waitFor(t, other, "a leader elected", `SELECT count(*) = 1 FROM river_leader`)
}

// waitFor polls query, which returns one boolean, until it is true or 15 s
// pass.
func waitFor(tb testing.TB, pool *pgxpool.Pool, what, query string, args ...any) {
	tb.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var ok bool
		err := pool.QueryRow(tb.Context(), query, args...).Scan(&ok)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			tb.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("not %s within 15 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
