package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sello-do/sello"
)

// DB is a Sello store in a PostgreSQL database. It implements sello.Store.
type DB struct {
	// Now returns the current time; tests replace it to move the clock.
	Now func() time.Time

	pool *pgxpool.Pool
}

var _ sello.Store = (*DB)(nil)

// Open connects to the database at url (postgres://…), applies the
// embedded migrations and returns the store. Parameters pgx does not know,
// such as search_path, are set on every connection.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
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
	return &DB{Now: time.Now, pool: pool}, nil
}

// Pool returns the connection pool, for work that must share a
// transaction with the store's rows (River jobs).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// Close implements sello.Store.
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

// storedTime returns t as it reads back: UTC, microseconds.
func storedTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}

// dateValue is a date as pgx writes it to a date column.
func dateValue(d sello.Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

var errNoRows = pgx.ErrNoRows

func isNoRows(err error) bool { return errors.Is(err, errNoRows) }
