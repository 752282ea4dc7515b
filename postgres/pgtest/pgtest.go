// Package pgtest gives tests a fresh PostgreSQL schema of their own in the
// database named by SELLO_TEST_DATABASE_URL.
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"

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
