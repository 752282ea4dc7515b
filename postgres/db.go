package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
)

// DB is a Sello store in a PostgreSQL database. It implements sello.Store.
type DB struct {
	// Now returns the current time; tests replace it to move the clock.
	Now func() time.Time

	pool *pgxpool.Pool
	// river inserts jobs in the store's transactions.
	river *river.Client[pgx.Tx]
}

var _ sello.Store = (*DB)(nil)

// Open connects to the database at url (postgres://…), applies the
// embedded migrations, then River's, and returns the store. Parameters pgx
// does not know, such as search_path, are set on every connection. Without
// pool_max_conns in the URL the pool holds up to 20 connections.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, defaultMaxConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	client, err := newInsertClient(pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &DB{Now: time.Now, pool: pool, river: client}, nil
}

// Pool returns the connection pool, for tests and tools that query the
// database directly.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Close implements sello.Store. Stop job runners first.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// now returns the store's clock in UTC at the precision it stores.
func (db *DB) now() time.Time { return db.Now().UTC().Truncate(time.Microsecond) }

// inTx runs fn in a READ COMMITTED transaction and commits it if fn
// succeeds. Rows that must not change underneath are locked explicitly.
func (db *DB) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return dbError(err, "begin")
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return dbError(err, "commit")
	}
	return nil
}

// utc returns a time read from the database in UTC.
func utc(t time.Time) time.Time { return t.UTC() }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// dateValue is a date as pgx writes it to a date column.
func dateValue(d sello.Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

var errNoRows = pgx.ErrNoRows

func isNoRows(err error) bool { return errors.Is(err, errNoRows) }
