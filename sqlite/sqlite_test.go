package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// MustOpen opens a new store in t's temporary directory, closed at cleanup.
func MustOpen(tb testing.TB) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "sello.db"))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sello.Store { return MustOpen(t) })
}
