package sqlite

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Checkpoints.
//
// In WAL mode every commit appends the pages it changed to the log, and a
// checkpoint copies the log back into the database file. By default the
// commit that takes the log past 1,000 pages checkpoints itself, inside the
// write lock and with an fsync of each file, so about one write in a
// hundred stalls every other writer of the store for the time of the copy.
// The store turns that off (wal_autocheckpoint=0 on every connection) and
// checkpoints from a goroutine of its own in PASSIVE mode, which copies what
// no reader still needs without taking the write lock: writers carry on
// meanwhile. When the log has been copied entirely, the next writer starts
// it again from its beginning, so it does not grow without bound.
//
// The log's file, though, keeps the size of its longest run: while a
// reader holds an old snapshot (a long read, a flood of requests) no
// checkpoint can copy the whole log, and the file grows. So every
// connection sets journal_size_limit (walSizeLimit): when the log starts
// again, SQLite cuts its file back to that size. And every
// truncateInterval the store checkpoints in TRUNCATE mode, which copies the
// whole log and cuts the file to nothing: it holds this process's writers
// back (they take the writer, see commit.go) and waits at most truncateWait
// for readers, else it leaves the log to the next try.
//
// A process that opens the file without this store (the sqlite3 shell, say)
// checkpoints as usual; and SQLite checkpoints and removes the log when the
// last connection to the file closes.

// checkpointInterval is how often the store checkpoints.
const checkpointInterval = 500 * time.Millisecond

// The log's bounds: walSizeLimit is the journal_size_limit of every
// connection (pragmas); truncateInterval how often the log is cut to
// nothing, and truncateWait how long that waits for readers.
const (
	walSizeLimit     = 32 << 20
	truncateInterval = time.Minute
	truncateWait     = 100 * time.Millisecond
)

// checkpointer checkpoints db until stop.
type checkpointer struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (db *DB) startCheckpointer() *checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{cancel: cancel}
	c.wg.Go(func() {
		t := time.NewTicker(checkpointInterval)
		defer t.Stop()
		truncated := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// A failure (the file busy with another process's checkpoint,
			// a reader that held on) is retried at the next tick.
			if time.Since(truncated) >= truncateInterval {
				db.truncateLog(ctx)
				truncated = time.Now()
				continue
			}
			db.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		}
	})
	return c
}

// truncateLog checkpoints in TRUNCATE mode, holding the writer, on a
// connection that waits at most truncateWait for readers. It reports
// whether the log was copied and cut.
func (db *DB) truncateLog(ctx context.Context) bool {
	select {
	case db.writer <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-db.writer }()
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", truncateWait.Milliseconds())); err != nil {
		return false
	}
	// The connection goes back to the pool with the store's busy timeout.
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA busy_timeout = 10000")
	var busy, logged, copied int
	err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &copied)
	return err == nil && busy == 0
}

// stop ends the checkpoints and waits for the one under way.
func (c *checkpointer) stop() {
	c.cancel()
	c.wg.Wait()
}
