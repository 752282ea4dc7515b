// Package pgtest gives tests a fresh PostgreSQL schema of their own in the
// database named by SELLO_TEST_DATABASE_URL.
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DatabaseURL returns SELLO_TEST_DATABASE_URL. When it is not set the test
// is skipped with a clear message, or fails when SELLO_REQUIRE_POSTGRES is
// set (as in CI, where the suite must run).
func DatabaseURL(tb testing.TB) string {
	tb.Helper()
	u := os.Getenv("SELLO_TEST_DATABASE_URL")
	if u == "" {
		if os.Getenv("SELLO_REQUIRE_POSTGRES") != "" {
			tb.Fatal("SELLO_REQUIRE_POSTGRES is set (as in CI) but SELLO_TEST_DATABASE_URL is not: the PostgreSQL suite must run")
		}
		tb.Skip("SELLO_TEST_DATABASE_URL not set: skipping the PostgreSQL suite (make test-postgres sets it)")
	}
	return u
}

// MustSchema creates a fresh schema, dropped at cleanup, and returns a URL
// whose search_path selects it.
func MustSchema(tb testing.TB) string {
	tb.Helper()
	base := DatabaseURL(tb)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	schema := "sello_test_" + strings.ToLower(rand.Text()[:16])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		conn.Close(ctx)
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("parse SELLO_TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// holdFor is how long HoldTransactions keeps each transaction open.
const holdFor = 2500 * time.Millisecond

// HoldTransactions, when SELLO_TEST_HOLD_TRANSACTIONS is set, keeps a
// transaction with an id open on the server until tb's cleanup, as test
// packages running beside do on a busy server: two connections each hold
// one for 2.5 s, half of that apart, then commit and begin again. Any
// transaction begun meanwhile is younger than one that runs 1.25 s more,
// so the events feed, which lists only events of transactions older than
// every running one and waits at most a second for them (see
// postgres.DB.ListEvents), hides what it wrote for longer than it waits:
// a test that reads the feed once after a write fails every time.
func HoldTransactions(tb testing.TB) {
	tb.Helper()
	if os.Getenv("SELLO_TEST_HOLD_TRANSACTIONS") == "" {
		return
	}
	base := DatabaseURL(tb)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for i := range 2 {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Fatalf("connect: %v", err)
		}
		wg.Go(func() {
			defer conn.Close(context.Background())
			if i == 1 && !pause(ctx, holdFor/2) {
				return
			}
			for ctx.Err() == nil {
				if err := hold(ctx, conn); err != nil && ctx.Err() == nil {
					tb.Errorf("hold a transaction: %v", err)
					return
				}
			}
		})
	}
	tb.Logf("SELLO_TEST_HOLD_TRANSACTIONS: a transaction is open on the server at all times, each for %v", holdFor)
}

// hold begins a transaction on conn, gives it an id, and commits it after
// holdFor or when ctx ends.
func hold(ctx context.Context, conn *pgx.Conn) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		tx.Rollback(context.Background())
		return err
	}
	pause(ctx, holdFor)
	return tx.Commit(context.Background())
}

// pause waits d, and reports whether ctx was still running after it.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
