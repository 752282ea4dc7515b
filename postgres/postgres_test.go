package postgres_test

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// MustSchema is pgtest.MustSchema.
var MustSchema = pgtest.MustSchema

// MustOpen opens a store in a fresh schema (see MustSchema), closed at
// cleanup.
func MustOpen(tb testing.TB) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(tb.Context(), MustSchema(tb))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	pgtest.DatabaseURL(t)
	pgtest.HoldTransactions(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
		db := MustOpen(t)
		db.Now = now
		return db
	})
}

// TestNodes runs the suite's two-node contract on two stores, each with
// its own pools and committers, over one schema.
func TestNodes(t *testing.T) {
	pgtest.DatabaseURL(t)
	storetest.RunNodes(t, func(t *testing.T, now func() time.Time) (storetest.Store, storetest.Store) {
		url := MustSchema(t)
		var nodes [2]*postgres.DB
		for i := range nodes {
			db, err := postgres.Open(t.Context(), url)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { db.Close() })
			db.Now = now
			nodes[i] = db
		}
		return nodes[0], nodes[1]
	})
}

func TestRateLimiter(t *testing.T) {
	pgtest.DatabaseURL(t)
	storetest.RunRateLimiter(t, func(t *testing.T, now func() time.Time) sello.RateLimiter {
		l := postgres.NewRateLimiter(MustOpen(t))
		l.Now = now // nil: the database's clock
		return l
	})
}

func TestStatusHistory(t *testing.T) {
	db := MustOpen(t)
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	prepare := func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
		return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
	}
	doc := storetest.MustCreateDocument(t, db, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: prepare})
	_, _, err := db.CreateDocument(ctx, sello.DocumentDraft{TenantID: tn.ID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal,
		Prepare: func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) { return nil, errors.New("boom") }})
	if err == nil {
		t.Fatal("CreateDocument with a failing Prepare: got nil error")
	}
	rows, err := db.Pool().Query(ctx, `SELECT document_id, status, at FROM document_status_history WHERE tenant_id = $1`, tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		ID, Status string
		At         time.Time
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[entry])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != doc.ID || got[0].Status != "queued_for_signing" || !got[0].At.Equal(doc.CreatedAt) {
		t.Errorf("history: got %+v, want one queued_for_signing entry of %s at %v", got, doc.ID, doc.CreatedAt)
	}
}

// TestOpenConcurrently starts several nodes on one empty schema at once:
// the advisory lock makes them migrate one after the other.
func TestOpenConcurrently(t *testing.T) {
	u := MustSchema(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			db, err := postgres.Open(t.Context(), u)
			if err == nil {
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("node %d: %v", i, err)
		}
	}
}

// TestRateLimiterMatchesMemory drives the shared limiter and
// sello.MemoryRateLimiter with one fake clock: every decision is the same.
func TestRateLimiterMatchesMemory(t *testing.T) {
	l := postgres.NewRateLimiter(MustOpen(t))
	for _, plan := range []sello.RatePlan{{Name: "slow", Rate: 3, Burst: 4}, sello.DefaultRatePlan, {Name: "odd", Rate: 7.3, Burst: 1}} {
		t.Run(plan.Name, func(t *testing.T) {
			now := time.Date(2026, 3, 10, 12, 0, 0, 123456789, time.UTC)
			clock := func() time.Time { return now }
			l.Now = clock
			mem := sello.NewMemoryRateLimiter()
			mem.Now = clock
			steps := []time.Duration{0, 0, 0, 0, 0, 10 * time.Millisecond, 90 * time.Millisecond, 333333333 * time.Nanosecond, 0, time.Second, 0, 0, 0, 0, 7 * time.Millisecond, time.Minute, 0}
			for i, step := range steps {
				now = now.Add(step)
				got, err := l.Allow(t.Context(), "key-"+plan.Name, plan)
				if err != nil {
					t.Fatalf("Allow: %v", err)
				}
				want, _ := mem.Allow(t.Context(), "key-"+plan.Name, plan)
				if got != want {
					t.Errorf("call %d (+%v): got %+v, want %+v", i, step, got, want)
				}
			}
		})
	}
}

// TestRateLimiterConcurrent has many callers race on one key at one
// instant: exactly Burst pass.
func TestRateLimiterConcurrent(t *testing.T) {
	db := MustOpen(t)
	plan := sello.RatePlan{Name: "hot", Rate: 1, Burst: 25}
	now := time.Now()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			l := postgres.NewRateLimiter(db) // one per node
			l.Now = func() time.Time { return now }
			for range 10 {
				d, err := l.Allow(t.Context(), "hot", plan)
				if err != nil {
					t.Errorf("Allow: %v", err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != int64(plan.Burst) {
		t.Errorf("allowed: got %d, want %d", got, plan.Burst)
	}
}

// TestRateLimiterPrune: Prune deletes the buckets that are full again, and
// only those.
func TestRateLimiterPrune(t *testing.T) {
	db, err := postgres.Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l := postgres.NewRateLimiter(db)
	plan := sello.RatePlan{Name: "p", Rate: 1, Burst: 10}
	l.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	if _, err := l.Allow(t.Context(), "old", plan); err != nil {
		t.Fatal(err)
	}
	l.Now = nil
	if _, err := l.Allow(t.Context(), "live", plan); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Prune(t.Context()); err != nil || n != 1 {
		t.Fatalf("pruned %d (%v), want the full bucket only", n, err)
	}
	if n, err := l.Prune(t.Context()); err != nil || n != 0 {
		t.Fatalf("pruned %d (%v) again, want none", n, err)
	}
}

// BenchmarkCreates: document creates through the store, one tenant's and
// 100 tenants' (storetest.CreateBenches). Run the same in ./sqlite:
//
//	go test ./postgres ./sqlite -run '^$' -bench Creates -benchtime 3000x
func BenchmarkCreates(b *testing.B) {
	pgtest.DatabaseURL(b)
	for _, c := range storetest.CreateBenches {
		b.Run(c.Name(), func(b *testing.B) { storetest.BenchCreates(b, MustOpen(b), c) })
	}
}

// BenchmarkLifecycle: documents' lives through the store, created then
// signed, submitted, accepted and delivered (storetest.BenchLifecycle),
// one tenant's and 100 tenants'. On a local server it also reports the
// CPU the store's backends spent (db-cpu-ns/doc, from /proc; its
// connections are named by application_name). Run the same in ./sqlite:
//
//	go test ./postgres ./sqlite -run '^$' -bench Lifecycle -benchtime 2000x
func BenchmarkLifecycle(b *testing.B) {
	pgtest.DatabaseURL(b)
	for _, c := range storetest.CreateBenches {
		b.Run(c.Name(), func(b *testing.B) {
			u, err := url.Parse(MustSchema(b))
			if err != nil {
				b.Fatal(err)
			}
			app := "sello_bench_" + strings.ToLower(rand.Text()[:12])
			q := u.Query()
			q.Set("application_name", app)
			u.RawQuery = q.Encode()
			db, err := postgres.Open(b.Context(), u.String())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			conn, err := pgx.Connect(b.Context(), pgtest.DatabaseURL(b))
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(b.Context())
			// backends is the CPU of the store's backends by pid, in
			// clock ticks (Linux: 100 a second); nil when /proc does not
			// have them (a remote server).
			backends := func() map[string]int64 {
				rows, err := conn.Query(b.Context(), `SELECT pid::text FROM pg_stat_activity WHERE application_name = $1`, app)
				if err != nil {
					b.Fatal(err)
				}
				pids, err := pgx.CollectRows(rows, pgx.RowTo[string])
				if err != nil {
					b.Fatal(err)
				}
				out := map[string]int64{}
				for _, pid := range pids {
					stat, err := os.ReadFile("/proc/" + pid + "/stat")
					if err != nil {
						return nil
					}
					f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
					utime, _ := strconv.ParseInt(f[11], 10, 64)
					stime, _ := strconv.ParseInt(f[12], 10, 64)
					out[pid] = utime + stime
				}
				return out
			}
			before := backends()
			storetest.BenchLifecycle(b, db, c)
			after := backends()
			if before == nil || after == nil {
				return
			}
			var ticks int64
			for pid, t := range after {
				ticks += t - before[pid]
			}
			b.ReportMetric(float64(ticks)*1e7/float64(b.N), "db-cpu-ns/doc")
		})
	}
}
