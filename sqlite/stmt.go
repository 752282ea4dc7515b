package sqlite

import (
	"context"
	"database/sql"
	"regexp"
)

// Prepared statements.
//
// Every connection of the store, its own and River's, keeps its statements
// (queuedConn in river.go): a query runs as the connection's prepared
// statement of that SQL text, compiled on the first run and only reset
// between runs, so a query is compiled once per connection instead of on
// every call. River's queries, which cannot go through the store's code,
// get the same.
//
// A statement is never run again while rows it returned are open on the
// same connection (the connection runs that query unprepared instead), and
// every loop over rows in this package only scans.
//
// A bound LIMIT is compiled as `LIMIT +?` (stableLimit). The SQLite of
// modernc (3.53) compiles `LIMIT ?` with the value bound at the time (a
// small limit may change the plan), so binding that parameter again marks
// the statement expired and its next step compiles it again: on every run.
// River's fetch of jobs (`LIMIT ?3`, every 20 ms under load) and every list
// were compiled anew each time (0.1 ms of CPU a document in the profile of
// issue 23). `+?` is the same value but not a bare parameter, so SQLite
// compiles the statement once for any value, with the plan it picks for an
// unknown limit: the plan of a first run (nothing bound yet) and of the
// EXPLAIN tests anyway. SQLite's query planner stability guarantee
// (SQLITE_DBCONFIG_ENABLE_QPSG) would do the same, but modernc has no way
// to set it.

// querier runs the store's SQL on the pool or, when tx is set, in that
// transaction.
type querier struct {
	db *sql.DB
	tx *sql.Tx // nil: the pool
}

// q is the querier of the pool, for queries outside a transaction.
func (db *DB) q() querier { return querier{db: db.db} }

func (q querier) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.tx != nil {
		return q.tx.ExecContext(ctx, query, args...)
	}
	return q.db.ExecContext(ctx, query, args...)
}

func (q querier) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if q.tx != nil {
		return q.tx.QueryContext(ctx, query, args...)
	}
	return q.db.QueryContext(ctx, query, args...)
}

func (q querier) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if q.tx != nil {
		return q.tx.QueryRowContext(ctx, query, args...)
	}
	return q.db.QueryRowContext(ctx, query, args...)
}

// boundLimit is a LIMIT whose value is a bare parameter (?, ?3).
var boundLimit = regexp.MustCompile(`(?i)\bLIMIT(\s+)\?`)

// stableLimit returns query with every bound LIMIT written `LIMIT +?`, so
// that a kept statement is not compiled again at each run (see above). The
// store's and River's SQL have no such text inside a string literal.
func stableLimit(query string) string {
	return boundLimit.ReplaceAllString(query, "LIMIT$1+?")
}
