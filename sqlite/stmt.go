package sqlite

import (
	"context"
	"database/sql"
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
