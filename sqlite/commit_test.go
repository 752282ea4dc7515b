package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sello-do/sello/internal/testwait"
)

// openInternal opens a store with a scratch table.
func openInternal(t *testing.T) *DB {
	t.Helper()
	db := mustOpenInternal(t)
	if _, err := db.db.Exec("CREATE TABLE scratch (x INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return db
}

// waitPending waits until n pieces of work wait for the writer.
func waitPending(t *testing.T, db *DB, n int) {
	t.Helper()
	got := 0
	if !testwait.Within(10*time.Second, time.Millisecond, func() bool {
		db.pendingMu.Lock()
		got = len(db.pending)
		db.pendingMu.Unlock()
		return got == n
	}) {
		t.Fatalf("%d pieces of work pending, want %d", got, n)
	}
}

func scratchRows(t *testing.T, db *DB) map[int]bool {
	t.Helper()
	rows, err := db.db.Query("SELECT x FROM scratch")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[int]bool{}
	for rows.Next() {
		var x int
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		got[x] = true
	}
	return got
}

// A group commits the work that succeeded, rolls back the work that failed
// or panicked, and tells each caller its own outcome.
func TestGroupCommit(t *testing.T) {
	db := openInternal(t)
	ctx := t.Context()

	db.writer <- struct{}{} // hold the writer so that the work piles up
	const n = 12
	errFail := errors.New("fail")
	results := make([]error, n)
	panics := make([]any, n)
	cancelled, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			c := ctx
			if i == 9 {
				c = cancelled
			}
			results[i] = db.inTx(c, func(tx querier) error {
				if _, err := tx.exec(c, "INSERT INTO scratch (x) VALUES (?)", i); err != nil {
					return err
				}
				switch i % 4 {
				case 1:
					return errFail // after writing: its row must be rolled back
				case 2:
					if i == 2 {
						panic("boom")
					}
				}
				return nil
			})
		})
		waitPending(t, db, i+1) // in order
	}
	cancel() // work 9's context ends while it waits
	<-db.writer
	wg.Wait()

	rows := scratchRows(t, db)
	for i := range n {
		wantRow := i%4 != 1 && i != 2 && i != 9
		if rows[i] != wantRow {
			t.Errorf("row %d stored = %v, want %v", i, rows[i], wantRow)
		}
		switch {
		case i == 2:
			if panics[i] != "boom" {
				t.Errorf("work 2 panicked with %v in its caller, want boom", panics[i])
			}
		case i == 9:
			if !errors.Is(results[i], context.Canceled) {
				t.Errorf("work 9 = %v, want context.Canceled", results[i])
			}
		case i%4 == 1:
			if !errors.Is(results[i], errFail) {
				t.Errorf("work %d = %v, want its own error", i, results[i])
			}
		default:
			if results[i] != nil || panics[i] != nil {
				t.Errorf("work %d = %v, panic %v; want success", i, results[i], panics[i])
			}
		}
	}
}

// A group is bounded: work beyond maxGroup goes in the next transaction,
// and none is left behind.
func TestGroupCommitBounded(t *testing.T) {
	db := openInternal(t)
	db.writer <- struct{}{}
	n := maxGroup*2 + 3
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- db.inTx(t.Context(), func(tx querier) error {
				_, err := tx.exec(t.Context(), "INSERT INTO scratch (x) VALUES (?)", i)
				return err
			})
		})
	}
	waitPending(t, db, n)
	<-db.writer
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := len(scratchRows(t, db)); got != n {
		t.Fatalf("%d rows, want %d", got, n)
	}
}

// A failed commit fails every piece of the group.
func TestGroupCommitFailure(t *testing.T) {
	db := openInternal(t)
	// A deferred foreign key fails at COMMIT, not at the statement.
	if _, err := db.db.Exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
		CREATE TABLE child (x INTEGER PRIMARY KEY, p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`); err != nil {
		t.Fatal(err)
	}
	db.writer <- struct{}{}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Go(func() {
			errs[i] = db.inTx(t.Context(), func(tx querier) error {
				p := 0
				if i == 1 {
					p = 99 // no such parent
				}
				_, err := tx.exec(t.Context(), "INSERT INTO child (x, p) VALUES (?, NULLIF(?, 0))", i, p)
				return err
			})
		})
		waitPending(t, db, i+1)
	}
	<-db.writer
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Errorf("work %d succeeded; the group's commit failed", i)
		}
	}
	var count int
	if err := db.db.QueryRow("SELECT count(*) FROM child").Scan(&count); err != nil || count != 0 {
		t.Fatalf("child rows = %d (%v), want 0", count, err)
	}
}

// Close commits the work already pending, then refuses more.
func TestGroupCommitClose(t *testing.T) {
	db := openInternal(t)
	db.writer <- struct{}{}
	errs := make(chan error, 1)
	go func() {
		errs <- db.inTx(t.Context(), func(tx querier) error {
			_, err := tx.exec(t.Context(), "INSERT INTO scratch (x) VALUES (1)")
			return err
		})
	}()
	waitPending(t, db, 1)
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	// Close has begun (it takes no more work) and waits for the committer.
	if !testwait.Within(10*time.Second, time.Millisecond, func() bool {
		db.pendingMu.Lock()
		defer db.pendingMu.Unlock()
		return db.closed
	}) {
		t.Fatal("Close did not begin in 10 s")
	}
	<-db.writer
	if err := <-errs; err != nil {
		t.Fatalf("pending work: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := db.inTx(t.Context(), func(querier) error { return nil }); !errors.Is(err, errStoreClosed) {
		t.Fatalf("write after Close: %v, want errStoreClosed", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// After a group of more than one, the next gathers for commitWindow: 16
// writers that each write again as soon as their last write commits share
// every commit after the first ones, all those still writing (the writers
// that got ahead in the first, unwindowed groups finish first). In a
// synctest bubble the window ends only when every writer waits, so the
// groups are exact; without the window the committer takes whoever came
// first, alone.
func TestGroupCommitGathers(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		db, err := Open(t.Context(), filepath.Join(dir, "sello.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		const writers, writes = 16, 10
		type group struct{ n, writing int }
		var (
			mu       sync.Mutex
			groups   []group
			finished atomic.Int64
		)
		db.ObserveCommits(func(n int, _ time.Duration) {
			mu.Lock()
			groups = append(groups, group{n, writers - int(finished.Load())})
			mu.Unlock()
		})
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				defer finished.Add(1)
				for range writes {
					if err := db.inTx(t.Context(), func(querier) error { return nil }); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		// The first writes come one by one. A group that follows a group
		// of several gathers every writer still writing (those that were
		// ahead at the start finish first, so the last groups are smaller).
		gathered := 0
		for i := 1; i < len(groups); i++ {
			if groups[i-1].n < 2 {
				continue
			}
			gathered++
			if groups[i].n < groups[i].writing {
				t.Errorf("groups %v: group %d has %d writers after a group of %d, want the %d still writing", groups, i, groups[i].n, groups[i-1].n, groups[i].writing)
				break
			}
		}
		if gathered < writes/2 {
			t.Errorf("groups %v: only %d groups followed a group of several", groups, gathered)
		}
	})
}
