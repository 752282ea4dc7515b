package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

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

// TestRiverWritesQueue checks that a write River runs outside a
// transaction waits for the store's write queue (not SQLite's busy
// handler, which sleeps and loses the lock to every other writer), that it
// keeps the queue until its rows close, that a plain SELECT does not wait,
// and that statements inside River's own transaction do not take the queue
// a second time.
func TestRiverWritesQueue(t *testing.T) {
	db := mustOpenInternal(t)
	ctx := t.Context()
	const update = `UPDATE river_job SET attempt = attempt WHERE id = -1`
	const returning = `UPDATE river_job SET attempt = attempt WHERE id = -1 RETURNING id`

	db.writer <- struct{}{} // the store is writing
	held := true
	defer func() {
		if held { // a failure below: let Close have the queue
			<-db.writer
		}
	}()
	if _, err := db.riverDB.QueryContext(ctx, "SELECT count(*) FROM river_job"); err != nil {
		t.Fatalf("SELECT while the store writes: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.riverDB.ExecContext(ctx, update)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("River's UPDATE ran while the store held the write queue (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	<-db.writer
	held = false
	if err := <-done; err != nil {
		t.Fatalf("River's UPDATE after the queue was free: %v", err)
	}

	// UPDATE … RETURNING holds the queue until its rows close.
	rows, err := db.riverDB.QueryContext(ctx, returning)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case db.writer <- struct{}{}:
		t.Fatal("the queue was free while UPDATE … RETURNING had open rows")
	default:
	}
	rows.Close()
	select {
	case db.writer <- struct{}{}:
		<-db.writer
	case <-time.After(time.Second):
		t.Fatal("the queue was not given back when the rows closed")
	}

	// Inside River's transaction, writes run at once (the transaction
	// holds the queue).
	tx, err := db.riverDB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, update); err != nil {
		t.Fatalf("UPDATE in River's transaction: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.riverDB.ExecContext(ctx, update); err != nil {
		t.Fatalf("UPDATE after River's transaction: %v", err)
	}
}

func TestReadOnly(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1":                            true,
		"  \n\tselect * FROM river_job":       true,
		"(SELECT 1)":                          true,
		"UPDATE river_job SET x = 1":          false,
		"WITH j AS (SELECT 1) UPDATE x SET y": false,
		"PRAGMA wal_checkpoint":               false,
		"INSERT INTO t VALUES (1)":            false,
		"sel":                                 false,
	} {
		if got := readOnly(q); got != want {
			t.Errorf("readOnly(%q) = %v, want %v", q, got, want)
		}
	}
}
