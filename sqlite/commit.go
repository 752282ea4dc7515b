package sqlite

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Group commit.
//
// SQLite has one writer at a time, and most of a small write transaction's
// time is its commit: appending every page it changed to the log. The
// store's writes are many and small (a document's insert, each step of its
// lifecycle), so it commits them in groups: inTx leaves its work in
// db.pending and wakes the committer, one goroutine that takes the writer
// and runs every pending piece of work in one SQLite transaction, each in a
// savepoint of its own, and commits once; then again, as long as work is
// pending. A piece that fails rolls back to
// its savepoint and fails alone; the others commit. Nobody is told of a
// success before the commit that makes it durable, and if that commit
// fails, every piece of the group fails with it.
//
// Under no load a group is a single transaction, run as before. River's own
// transactions take the writer between two groups.
//
// Under load, a group is as large as the work that arrived while the last
// one committed, and the writers that group woke up (a document's job
// writes its next step a moment after the last) come just after the
// committer has started on the next. So after a group of more than one,
// the committer lets the next one gather for commitWindow before it takes
// the writer, as PostgreSQL's commit_delay does when other transactions are
// active: the pages every transaction dirties (the indexes' last leaves,
// River's queue, the day's totals, the freelist) are then written to the
// log once for more transactions. With the lifecycle's writes from 16
// goroutines, groups went from about 5 to 15 transactions and the log's
// writes per document down by a quarter (docs/benchmarks.md). A write that
// comes alone still commits at once.

// maxGroup bounds a group, so that the first piece of work in it waits for
// a bounded number of others.
const maxGroup = 64

// commitWindow is how long the next group gathers after a group of more
// than one (see above): a few times what a piece of work takes to run, a
// fraction of what a group's commit takes under load.
const commitWindow = 250 * time.Microsecond

// writeReq is one transaction's work.
type writeReq struct {
	ctx context.Context
	fn  func(tx querier) error

	err      error
	panicked any // what fn panicked with, raised again in inTx's goroutine
	done     chan struct{}
}

// inTx runs fn in a write transaction and returns when that transaction
// has committed (nil) or failed. fn may share the transaction with others
// (see above): it sees their changes, they see its own.
func (db *DB) inTx(ctx context.Context, fn func(tx querier) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("wait to write: %w", err)
	}
	r := &writeReq{ctx: ctx, fn: fn, done: make(chan struct{})}
	db.pendingMu.Lock()
	if db.closed {
		db.pendingMu.Unlock()
		return errStoreClosed
	}
	db.pending = append(db.pending, r)
	db.pendingMu.Unlock()
	select {
	case db.wake <- struct{}{}:
	default: // the committer is already awake
	}
	<-r.done
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// commit runs the committer: a goroutine that, whenever work is pending,
// takes the writer and commits it, group after group, until none is left.
// Being one goroutine that keeps running while there is work, it hands
// the writer to nobody between two groups.
func (db *DB) commit() {
	for {
		stop := false
		select {
		case <-db.wake:
		case <-db.stopCommit:
			stop = true // after what is pending
		}
		for {
			db.writer <- struct{}{}
			n := db.commitPending()
			<-db.writer
			if n == 0 {
				break
			} else if n > 1 && !stop {
				db.gather()
			}
		}
		if stop {
			return
		}
	}
}

// gather waits commitWindow for the next group to gather, less when a full
// group is pending already or the store is closing.
func (db *DB) gather() {
	db.pendingMu.Lock()
	full := len(db.pending) >= maxGroup
	db.pendingMu.Unlock()
	if full {
		return
	}
	t := time.NewTimer(commitWindow)
	defer t.Stop()
	select {
	case <-t.C:
	case <-db.stopCommit:
	}
}

// errStoreClosed is what a write after Close gets.
var errStoreClosed = errors.New("sqlite: store closed")

// commitPending runs the pending work, up to maxGroup, in one transaction,
// and returns how many pieces it ran. The caller holds the writer.
func (db *DB) commitPending() int {
	db.pendingMu.Lock()
	n := min(len(db.pending), maxGroup)
	group := db.pending[:n:n]
	db.pending = db.pending[n:]
	if len(db.pending) == 0 {
		db.pending = nil // let the array go
	}
	db.pendingMu.Unlock()
	if n == 0 {
		return 0
	}
	err := db.runGroup(group)
	for _, r := range group {
		if r.err == nil && r.panicked == nil {
			r.err = err
		}
		close(r.done)
	}
	return n
}

// runGroup runs group in one transaction, setting each piece's err, and
// returns the error of the transaction itself.
func (db *DB) runGroup(group []*writeReq) error {
	// The transaction outlives any one request's context: each piece's
	// statements run with its own.
	tx, err := db.db.BeginTx(context.Background(), nil)
	if err != nil {
		return dbError(err, "begin")
	}
	defer tx.Rollback()
	q := querier{db: db.db, tx: tx}
	if len(group) == 1 {
		r := group[0]
		if r.run(q); r.err != nil || r.panicked != nil {
			return nil // r carries why
		}
	} else {
		for _, r := range group {
			if err := r.ctx.Err(); err != nil {
				r.err = fmt.Errorf("wait to write: %w", err)
				continue
			}
			if _, err := tx.Exec("SAVEPOINT w"); err != nil {
				return dbError(err, "savepoint")
			}
			if r.run(q); r.err != nil || r.panicked != nil {
				if _, err := tx.Exec("ROLLBACK TO w"); err != nil {
					return dbError(err, "rollback to savepoint")
				}
			}
			if _, err := tx.Exec("RELEASE w"); err != nil {
				return dbError(err, "release savepoint")
			}
		}
	}
	start := time.Now()
	if err := tx.Commit(); err != nil {
		return dbError(err, "commit")
	}
	if db.onCommit != nil {
		db.onCommit(len(group), time.Since(start))
	}
	return nil
}

// run runs r's work, catching a panic.
func (r *writeReq) run(q querier) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
		}
	}()
	r.err = r.fn(q)
}
