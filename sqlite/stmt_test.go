package sqlite

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/sello-do/sello"
)

func mustOpenInternal(tb testing.TB) *DB {
	tb.Helper()
	db, err := Open(tb.Context(), filepath.Join(tb.TempDir(), "sello.db"))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// TestStmtCache checks that a query's statement is prepared once per
// connection whatever its arguments, and that a closed store refuses
// queries.
func TestStmtCache(t *testing.T) {
	db := mustOpenInternal(t)
	ctx := t.Context()
	db.db.SetMaxOpenConns(1) // one connection, whose statements we count
	count := func() int {
		conn, err := db.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		n := 0
		conn.Raw(func(dc any) error {
			n = len(dc.(*queuedConn).stmts)
			return nil
		})
		return n
	}
	if _, err := db.FindDocumentsByENCF(ctx, "t", sello.EnvTest, []string{"E310000000001"}); err != nil {
		t.Fatal(err)
	}
	before := count()
	if before == 0 {
		t.Fatal("the connection keeps no statement after a query")
	}
	for n := 2; n <= 50; n++ {
		encfs := make([]string, n)
		for i := range encfs {
			encfs[i] = `E31'"` + string(rune('a'+i%26))
		}
		if _, err := db.FindDocumentsByENCF(ctx, "t", sello.EnvTest, encfs); err != nil {
			t.Fatal(err)
		}
	}
	if got := count(); got != before {
		t.Errorf("statements after FindDocumentsByENCF of 2…50 e-NCFs: got %d, want %d", got, before)
	}

	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := db.FindTenants(ctx); err == nil {
		t.Error("FindTenants after Close: got nil error")
	}
}

// TestConnStmtBusy runs a River-pool query again while its own rows are
// open on the same connection: the second run must not disturb the first.
func TestConnStmtBusy(t *testing.T) {
	db := mustOpenInternal(t)
	ctx := t.Context()
	tx, err := db.riverDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT value FROM json_each(?)`
	sum := func(list string) int {
		t.Helper()
		rows, err := tx.QueryContext(ctx, q, list)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			n += v
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows, err := tx.QueryContext(ctx, q, `[1, 2, 3]`)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		got = append(got, v, sum(`[10, 20]`))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if want := []int{1, 30, 2, 30, 3, 30}; !slices.Equal(got, want) {
		t.Errorf("outer rows with the same query run inside: got %v, want %v", got, want)
	}
	if got := sum(`[4, 5]`); got != 9 {
		t.Errorf("after the rows closed: got %d, want 9", got)
	}
}
