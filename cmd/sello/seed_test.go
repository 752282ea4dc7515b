package main

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

// seedStore puts in the data folder dir the store sello opens there
// (dir/sello.db): a copy of sqliteTemplate, as an earlier run would have
// left it, migrated and empty.
func seedStore(tb testing.TB, dir string) {
	tb.Helper()
	file, err := sqliteTemplate()
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sello.db"), file, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// sqliteTemplate is the file of a new SQLite store, migrated and closed,
// made once for the package. Migrating a new file takes about a second
// under -race (SQLite is C translated to Go, every memory access checked);
// opening a copy, tens of milliseconds.
var sqliteTemplate = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "sello-cmd-test-")
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
