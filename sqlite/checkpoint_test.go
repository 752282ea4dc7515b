package sqlite

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWALBounded: every connection limits the log's file to walSizeLimit
// once it starts again, and truncateLog cuts it to nothing once no reader
// needs it, without waiting long for a reader that holds on.
func TestWALBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sello.db")
	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var limit int64
	if err := db.db.QueryRow("PRAGMA journal_size_limit").Scan(&limit); err != nil {
		t.Fatal(err)
	} else if limit != walSizeLimit {
		t.Fatalf("journal_size_limit %d, want %d", limit, walSizeLimit)
	}
	walSize := func() int64 {
		t.Helper()
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}

	// A reader holds its snapshot while 40 MB are written: no checkpoint
	// can start the log again, so it grows past the limit.
	reader, err := db.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if _, err := reader.ExecContext(t.Context(), "BEGIN DEFERRED"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(t.Context(), "SELECT count(*) FROM tenants").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := db.db.Exec("CREATE TABLE filler (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	for range 400 {
		if _, err := db.db.Exec("INSERT INTO filler VALUES (randomblob(100000))"); err != nil {
			t.Fatal(err)
		}
	}
	if got := walSize(); got <= walSizeLimit {
		t.Fatalf("the log is %d bytes with a reader holding on; want it past %d for the test", got, walSizeLimit)
	}
	start := time.Now()
	if db.truncateLog(t.Context()) {
		t.Fatal("truncateLog cut the log while a reader needs it")
	} else if waited := time.Since(start); waited > 10*truncateWait {
		t.Errorf("truncateLog waited %s for the reader, want about %s", waited, truncateWait)
	}
	if _, err := reader.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if !db.truncateLog(t.Context()) {
		t.Fatal("truncateLog failed with no reader left")
	}
	if got := walSize(); got != 0 {
		t.Errorf("the log is %d bytes after truncateLog, want 0", got)
	}
	// The store's connections wait as long as before.
	var busy int
	if err := db.db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil || busy != 10000 {
		t.Errorf("busy_timeout %d (%v) after truncateLog, want 10000", busy, err)
	}
}
