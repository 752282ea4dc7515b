package postgres_test

import (
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello/postgres"
)

// TestExists: Exists finds Sello's data only where Open has migrated, and
// creates nothing where there is none.
func TestExists(t *testing.T) {
	ctx := t.Context()
	mustExists := func(t *testing.T, u string, want bool) {
		t.Helper()
		got, err := postgres.Exists(ctx, u)
		if err != nil || got != want {
			t.Fatalf("Exists: got %v, %v; want %v", got, err, want)
		}
	}
	t.Run("Empty", func(t *testing.T) {
		u := MustSchema(t)
		mustExists(t, u, false)
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil || n != 0 {
			t.Fatalf("tables after Exists: %d, %v; want none", n, err)
		}
	})
	t.Run("Migrated", func(t *testing.T) {
		u := MustSchema(t)
		db, err := postgres.Open(ctx, u+"&pool_max_conns=2")
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		mustExists(t, u+"&pool_max_conns=2", true)
	})
	t.Run("AnotherAppsTenants", func(t *testing.T) {
		u := MustSchema(t)
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `CREATE TABLE tenants (id int)`); err != nil {
			t.Fatal(err)
		}
		mustExists(t, u, false)
	})
	t.Run("NoSuchSchema", func(t *testing.T) {
		p, err := url.Parse(MustSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		q := p.Query()
		q.Set("search_path", "sello_no_such_schema")
		p.RawQuery = q.Encode()
		mustExists(t, p.String(), false)
	})
}
