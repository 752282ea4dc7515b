// Package sqlitetest gives tests a fresh SQLite store fast: a copy of a
// store file migrated once per test binary. Migrating a new file takes
// about a second under -race (SQLite is C translated to Go, every memory
// access checked); opening a copy, tens of milliseconds. The sqlite
// package's own tests, and the operator CLI's, still start from an empty
// folder, so migrations and file modes stay covered.
package sqlitetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/sello-do/sello/sqlite"
)

// template is the file of a new SQLite store, migrated and closed.
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "sello-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sello.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	// Closed, the store has checkpointed its log into the file.
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sqlite template: the log %s-wal is still there (%v)", path, err)
	}
	return os.ReadFile(path)
})

// MustSeed puts in the data folder dir the store sello opens there
// (dir/sello.db), migrated and empty, as an earlier run would have left it.
func MustSeed(tb testing.TB, dir string) {
	tb.Helper()
	file, err := template()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sello.db"), file, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// MustOpen opens a fresh store in a folder of the test; it is closed at
// the end of the test.
func MustOpen(tb testing.TB) *sqlite.DB {
	tb.Helper()
	dir := tb.TempDir()
	MustSeed(tb, dir)
	db, err := sqlite.Open(tb.Context(), filepath.Join(dir, "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
