package sqlite

import (
	"context"
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
// A process that opens the file without this store (the sqlite3 shell, say)
// checkpoints as usual; and SQLite checkpoints and removes the log when the
// last connection to the file closes.

// checkpointInterval is how often the store checkpoints.
const checkpointInterval = 500 * time.Millisecond

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
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			// A failure (the file busy with another process's checkpoint)
			// is retried at the next tick.
			db.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		}
	})
	return c
}

// stop ends the checkpoints and waits for the one under way.
func (c *checkpointer) stop() {
	c.cancel()
	c.wg.Wait()
}
