package postgres

import (
	"cmp"
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

	// pool serves the store: the API's requests, the jobs' reads and
	// writes, and the inserts of jobs in the store's transactions.
	pool *pgxpool.Pool
	// jobsPool serves the job runners' own queries (River's fetches,
	// completions, leader election, LISTEN and maintenance), so that a
	// store pool the API has exhausted never stalls the queue.
	jobsPool *pgxpool.Pool
	// river inserts jobs in the store's transactions.
	river *river.Client[pgx.Tx]
	// onCommit hears of every commit (ObserveCommits).
	onCommit func(group int, took time.Duration)
	// creates queues document creates for their committers (create.go).
	creates createQueues
}

var _ sello.Store = (*DB)(nil)

// Pools sizes a DB's two connection pools; a zero field takes its default.
type Pools struct {
	// MaxConns bounds the store's pool: the API's requests, the jobs'
	// reads and writes, and the inserts of jobs in the store's
	// transactions. Default: the URL's pool_max_conns, else 20.
	MaxConns int
	// JobsMaxConns bounds the job runners' pool: River's fetches,
	// completions, leader election, LISTEN connection and maintenance.
	// Default 10; at least MinJobsMaxConns.
	JobsMaxConns int
}

// Pool sizes: see Pools.
const (
	DefaultMaxConns     = 20
	DefaultJobsMaxConns = 10
	// MinJobsMaxConns is the smallest jobs pool: River's LISTEN
	// connection, producer, completer and elector may each hold one at
	// once.
	MinJobsMaxConns = 4
)

// Open connects to the database at url (postgres://…), applies the
// embedded migrations, then River's, and returns the store with pools of
// the default sizes (see OpenPools). Parameters pgx does not know, such as
// search_path, are set on every connection.
func Open(ctx context.Context, url string) (*DB, error) {
	return OpenPools(ctx, url, Pools{})
}

// OpenPools is Open with the pools sized by p. The job runners' pool opens
// no connection until a runner starts. It refuses a MaxConns below 1 and a
// JobsMaxConns below MinJobsMaxConns (other than zero, the default).
func OpenPools(ctx context.Context, url string, p Pools) (*DB, error) {
	if p.MaxConns < 0 {
		return nil, fmt.Errorf("open postgres: the store's pool needs at least 1 connection, not %d", p.MaxConns)
	}
	if p.JobsMaxConns != 0 && p.JobsMaxConns < MinJobsMaxConns {
		return nil, fmt.Errorf("open postgres: the jobs pool needs at least %d connections, not %d", MinJobsMaxConns, p.JobsMaxConns)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	jobsCfg := cfg.Copy()
	switch {
	case p.MaxConns > 0:
		cfg.MaxConns = int32(p.MaxConns)
	case !strings.Contains(url, "pool_max_conns"):
		cfg.MaxConns = DefaultMaxConns
	}
	cfg.MinConns = min(cfg.MinConns, cfg.MaxConns)
	jobsCfg.MaxConns = int32(cmp.Or(p.JobsMaxConns, DefaultJobsMaxConns))
	jobsCfg.MinConns = min(jobsCfg.MinConns, jobsCfg.MaxConns)

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
	jobsPool, err := pgxpool.NewWithConfig(ctx, jobsCfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	return &DB{Now: time.Now, pool: pool, jobsPool: jobsPool, river: client}, nil
}

// Pool returns the store's connection pool, for tests and tools that query
// the database directly.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// JobsPool returns the job runners' connection pool (see Pools), for tests.
func (db *DB) JobsPool() *pgxpool.Pool { return db.jobsPool }

// Close implements sello.Store. Stop job runners first. Creates waiting
// for their commit are committed first; later ones fail.
func (db *DB) Close() error {
	db.closeCreates()
	db.jobsPool.Close()
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
	start := time.Now()
	if err := tx.Commit(ctx); err != nil {
		return dbError(err, "commit")
	}
	db.observeCommit(1, start)
	return nil
}

// observeCommit tells ObserveCommits' f of a COMMIT of group writes sent
// at start.
func (db *DB) observeCommit(group int, start time.Time) {
	if db.onCommit != nil {
		db.onCommit(group, time.Since(start))
	}
}

// ObserveCommits has f told of every COMMIT of the store's write
// transactions, in the committing goroutine: how many writes it committed
// (group: 1 for inTx's, the creates of a group for create.go's, as
// SQLite's group commit counts them) and how long the COMMIT took. Call it before the store is used (the server's wiring
// points it at the metrics).
func (db *DB) ObserveCommits(f func(group int, took time.Duration)) { db.onCommit = f }

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
