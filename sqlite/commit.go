package sqlite

import (
	"context"
	"fmt"
)

// Group commit.
//
// SQLite has one writer at a time, and most of a small write transaction's
// time is its commit: appending every page it changed to the log. The
// store's writes are many and small (a document's insert, each step of its
// lifecycle), so it commits them in groups: a transaction that finds the
// writer busy leaves its work in db.pending; whoever takes the writer next
// runs every pending piece of work in one SQLite transaction, each in a
// savepoint of its own, and commits once. A piece that fails rolls back to
// its savepoint and fails alone; the others commit. Nobody is told of a
// success before the commit that makes it durable, and if that commit
// fails, every piece of the group fails with it.
//
// Under no load a group is a single transaction, run as before.

// maxGroup bounds a group, so that the first piece of work in it waits for
// a bounded number of others.
const maxGroup = 64

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
	db.pending = append(db.pending, r)
	db.pendingMu.Unlock()
	for {
		select {
		case <-r.done:
			if r.panicked != nil {
				panic(r.panicked)
			}
			return r.err
		default:
		}
		select {
		case <-r.done:
		case db.writer <- struct{}{}:
			db.commitPending()
			<-db.writer
		}
	}
}

// commitPending runs the pending work, up to maxGroup, in one transaction.
// The caller holds the writer.
func (db *DB) commitPending() {
	db.pendingMu.Lock()
	n := min(len(db.pending), maxGroup)
	group := db.pending[:n:n]
	db.pending = db.pending[n:]
	if len(db.pending) == 0 {
		db.pending = nil // let the array go
	}
	db.pendingMu.Unlock()
	if n == 0 {
		return
	}
	err := db.runGroup(group)
	for _, r := range group {
		if r.err == nil && r.panicked == nil {
			r.err = err
		}
		close(r.done)
	}
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
	q := querier{stmts: db.stmts, tx: tx}
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
	return dbError(tx.Commit(), "commit")
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
