package sqlite_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
)

// TestOpenFileModes: the database file and the files SQLite keeps beside it
// are 0600 whatever the umask, new or left by an older Sello. The umask is
// the process's: this test must not run in parallel with others.
func TestOpenFileModes(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0))

	t.Run("New", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sello.db")
		db, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer db.Close()
		storetest.MustCreateTenant(t, db) // writes to the log
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			mustMode(t, p, 0o600)
		}
	})
	t.Run("Existing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sello.db")
		db, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		db.Close()
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if err := os.WriteFile(path+suffix, nil, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		db, err = sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("Open again: %v", err)
		}
		defer db.Close()
		storetest.MustCreateTenant(t, db)
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			mustMode(t, p, 0o600)
		}
		// SQLite may delete an empty rollback journal; if it is there, it
		// is 0600.
		if _, err := os.Stat(path + "-journal"); !errors.Is(err, fs.ErrNotExist) {
			mustMode(t, path+"-journal", 0o600)
		}
	})
}

func mustMode(tb testing.TB, path string, want fs.FileMode) {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		tb.Errorf("%s: mode %#o, want %#o", filepath.Base(path), got, want)
	}
}
