package clienttest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/sello-do/sello/client"
)

func TestSQLEventStoreSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "receiver.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	testSQLEventStore(t, db, "sello_events", client.QuestionMarks)
}

func TestSQLEventStorePostgres(t *testing.T) {
	dsn := os.Getenv("SELLO_TEST_DATABASE_URL")
	if dsn == "" {
		t.Skip("SELLO_TEST_DATABASE_URL not set: skipping the PostgreSQL test of SQLEventStore (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("PostgreSQL at SELLO_TEST_DATABASE_URL: %v", err)
	}
	table := fmt.Sprintf("sello_events_test_%d", time.Now().UnixNano())
	t.Cleanup(func() { db.Exec(`DROP TABLE IF EXISTS ` + table) })
	testSQLEventStore(t, db, table, client.DollarNumbers)
}

func testSQLEventStore(t *testing.T, db *sql.DB, table string, ph client.Placeholders) {
	ctx := t.Context()
	store, err := client.NewSQLEventStore(db, client.WithTable(table), client.WithPlaceholders(ph))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatalf("CreateTable twice: %v", err)
	}

	t.Run("ClaimOnce", func(t *testing.T) {
		first, err := store.Claim(ctx, "e1")
		if err != nil || !first {
			t.Fatalf("first claim: %v, %v", first, err)
		}
		first, err = store.Claim(ctx, "e1")
		if err != nil || first {
			t.Fatalf("second claim: %v, %v; want a duplicate", first, err)
		}
		if first, err := store.Claim(ctx, "e2"); err != nil || !first {
			t.Fatalf("another id: %v, %v", first, err)
		}
	})

	t.Run("Release", func(t *testing.T) {
		if err := store.Release(ctx, "e1"); err != nil {
			t.Fatal(err)
		}
		if first, err := store.Claim(ctx, "e1"); err != nil || !first {
			t.Fatalf("claim after release: %v, %v", first, err)
		}
		if err := store.Release(ctx, "never-claimed"); err != nil {
			t.Fatalf("releasing an unknown id: %v", err)
		}
	})

	t.Run("Idempotent", func(t *testing.T) {
		var applied int
		fail := true
		handle := client.Idempotent(store, func(context.Context, *client.Event) error {
			if fail {
				return errors.New("apply failed")
			}
			applied++
			return nil
		})
		ev := &client.Event{ID: "e3", Type: client.EventECFAccepted}
		if err := handle(ctx, ev); err == nil {
			t.Fatal("failing handler returned nil")
		}
		fail = false
		for range 3 {
			if err := handle(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		if applied != 1 {
			t.Fatalf("applied %d times, want 1", applied)
		}
	})

	t.Run("ClaimTxRollsBack", func(t *testing.T) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if first, err := store.ClaimTx(ctx, tx, "e4"); err != nil || !first {
			t.Fatalf("ClaimTx: %v, %v", first, err)
		}
		// A duplicate inside the same transaction does not abort it.
		if first, err := store.ClaimTx(ctx, tx, "e4"); err != nil || first {
			t.Fatalf("duplicate ClaimTx: %v, %v", first, err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if first, err := store.Claim(ctx, "e4"); err != nil || !first {
			t.Fatalf("claim after rollback: %v, %v; the claim must roll back with the effect", first, err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		// One id claimed from many goroutines: exactly one claim wins.
		var wg sync.WaitGroup
		var wins atomic.Int32
		for range 16 {
			wg.Go(func() {
				if first, err := store.Claim(ctx, "concurrent"); err != nil {
					t.Error(err)
				} else if first {
					wins.Add(1)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("%d claims won, want 1", wins.Load())
		}
	})

	t.Run("DeleteBefore", func(t *testing.T) {
		n, err := store.DeleteBefore(ctx, time.Now().Add(-time.Hour))
		if err != nil || n != 0 {
			t.Fatalf("DeleteBefore an hour ago: %d, %v; want 0", n, err)
		}
		n, err = store.DeleteBefore(ctx, time.Now().Add(time.Hour))
		if err != nil || n < 4 {
			t.Fatalf("DeleteBefore in an hour: %d, %v; want every claim", n, err)
		}
		if first, err := store.Claim(ctx, "e1"); err != nil || !first {
			t.Fatalf("claim after delete: %v, %v", first, err)
		}
	})
}

func TestNewSQLEventStoreRefusesBadTable(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"", "events; DROP TABLE x", "1events", "a.b.c", `"quoted"`} {
		if _, err := client.NewSQLEventStore(db, client.WithTable(name)); err == nil {
			t.Errorf("table %q accepted", name)
		}
	}
	if _, err := client.NewSQLEventStore(db, client.WithTable("app.sello_events")); err != nil {
		t.Errorf("schema-qualified table refused: %v", err)
	}
	if _, err := client.NewSQLEventStore(nil); err == nil {
		t.Error("nil db accepted")
	}
}
