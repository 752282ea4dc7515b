package postgres_test

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// MustOpen opens a store in a fresh schema of the database at
// SELLO_TEST_DATABASE_URL, dropped at cleanup. It skips the test when the
// variable is not set.
func MustOpen(tb testing.TB) *postgres.DB {
	tb.Helper()
	base := os.Getenv("SELLO_TEST_DATABASE_URL")
	if base == "" {
		tb.Skip("SELLO_TEST_DATABASE_URL not set: skipping the PostgreSQL suite (make test-postgres sets it)")
	}
	ctx := tb.Context()
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
		ctx := context.Background()
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
	db, err := postgres.Open(ctx, u.String())
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sello.Store { return MustOpen(t) })
}

func TestRateLimiter(t *testing.T) {
	storetest.RunRateLimiter(t, func(t *testing.T) sello.RateLimiter { return postgres.NewRateLimiter(MustOpen(t)) })
}
