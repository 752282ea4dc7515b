package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// Prepared statements.
//
// Every query of the store goes through a querier, which runs it as a
// prepared statement from the store's cache: one *sql.Stmt per SQL text,
// prepared on first use and closed by Close. database/sql prepares a
// *sql.Stmt again on each connection it meets, once, and keeps the
// connection's statement until the connection or the Stmt closes; inside a
// transaction, Tx.StmtContext finds that per-connection statement and
// reuses it. modernc.org/sqlite keeps the compiled SQLite statement of a
// single-statement Stmt and only resets it between runs, so a query is
// compiled once per connection instead of on every call.
//
// A statement is never run again while rows it returned are open on the
// same connection: every loop over rows in this package only scans.

// maxStmts bounds the cache. The store's SQL texts are constants plus a few
// dozen filter combinations; past the bound a query runs unprepared.
const maxStmts = 256

// stmtCache holds the store's prepared statements by SQL text.
type stmtCache struct {
	db *sql.DB

	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, stmts: make(map[string]*sql.Stmt)}
}

// errStmtCacheClosed is what a query after Close gets.
var errStmtCacheClosed = errors.New("sqlite: store closed")

// stmt returns the prepared statement of query, preparing it if needed, or
// nil if the cache is full.
func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	s, ok := c.stmts[query]
	closed, full := c.closed, len(c.stmts) >= maxStmts
	c.mu.Unlock()
	if ok {
		return s, nil
	} else if closed {
		return nil, errStmtCacheClosed
	} else if full {
		return nil, nil
	}
	// Prepare outside the lock: it takes a connection and compiles.
	s, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[query]; ok { // prepared concurrently
		s.Close()
		return prev, nil
	} else if c.closed {
		s.Close()
		return nil, errStmtCacheClosed
	}
	c.stmts[query] = s
	return s, nil
}

// close closes every statement; later queries fail.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.Close())
	}
	c.stmts, c.closed = nil, true
	return errors.Join(errs...)
}

// querier runs the store's SQL through the statement cache, on the pool or,
// when tx is set, in that transaction.
type querier struct {
	stmts *stmtCache
	tx    *sql.Tx // nil: the pool
}

// q is the querier of the pool, for queries outside a transaction.
func (db *DB) q() querier { return querier{stmts: db.stmts} }

// prepared returns query's statement bound to q's transaction, or nil to
// run query unprepared.
func (q querier) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	s, err := q.stmts.stmt(ctx, query)
	if err != nil || s == nil || q.tx == nil {
		return s, err
	}
	// Closed with the transaction; the connection's statement stays.
	return q.tx.StmtContext(ctx, s), nil
}

func (q querier) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	s, err := q.prepared(ctx, query)
	if err != nil {
		return nil, err
	} else if s != nil {
		return s.ExecContext(ctx, args...)
	} else if q.tx != nil {
		return q.tx.ExecContext(ctx, query, args...)
	}
	return q.stmts.db.ExecContext(ctx, query, args...)
}

func (q querier) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := q.prepared(ctx, query)
	if err != nil {
		return nil, err
	} else if s != nil {
		return s.QueryContext(ctx, args...)
	} else if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	return q.stmts.db.QueryContext(ctx, query, args...)
}

func (q querier) queryRow(ctx context.Context, query string, args ...any) row {
	s, err := q.prepared(ctx, query)
	if err != nil {
		return row{err: err}
	} else if s != nil {
		return row{row: s.QueryRowContext(ctx, args...)}
	} else if q.tx != nil {
		return row{row: q.tx.QueryRowContext(ctx, query, args...)}
	}
	return row{row: q.stmts.db.QueryRowContext(ctx, query, args...)}
}

// row is a *sql.Row, or the error that kept the query from running.
type row struct {
	row *sql.Row
	err error
}

// Scan is sql.Row's Scan: sql.ErrNoRows when there is no row.
func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.row.Scan(dest...)
}
