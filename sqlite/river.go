package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
	"modernc.org/sqlite"
)

// River's connections.
//
// River gets a pool of its own (riverConns connections) on the same file, so
// that its producer, completer, elector and maintenance services never wait
// for a connection the store holds, nor the store for one of River's. Every
// write River makes on that pool first takes the store's write queue
// (DB.writer), the same one the store's own transactions take: each
// transaction it begins (IMMEDIATE, so a writer for SQLite from BEGIN), and
// each statement it runs outside a transaction that is not a plain SELECT
// (fetching jobs is an UPDATE … RETURNING; completing them, an UPDATE). The
// queue serves them all in arrival order. Left to SQLite's busy handler, a
// statement that meets the store's writer sleeps 1, 2, 5, 10 … 100 ms
// between tries and loses the lock to every writer that comes meanwhile,
// so under load River's fetches slept there while the workers sat idle
// (docs/benchmarks.md).
//
// Nothing holds the queue while it waits for a second transaction: the store
// inserts its jobs with the transaction it already holds, and River never
// nests transactions (it runs on one connection, as its documentation
// advises).
const riverConns = 4

// Polling of the job runner. SQLite has no LISTEN/NOTIFY: River's listener
// polls its notification table every 50 ms, and the producer looks for
// due jobs (retries, snoozes, scheduled jobs) every fetchPollInterval.
const (
	fetchPollInterval = 100 * time.Millisecond
	fetchCooldown     = 20 * time.Millisecond
)

// openRiver opens River's pool, applies River's migrations on their own
// migration line and returns the pool and an insert-only client.
func openRiver(ctx context.Context, dsn string, writer chan struct{}) (*sql.DB, *river.Client[*sql.Tx], error) {
	pool := sql.OpenDB(&queuedConnector{dsn: dsn, driver: &sqlite.Driver{}, writer: writer})
	pool.SetMaxOpenConns(riverConns)
	pool.SetMaxIdleConns(riverConns)
	if err := migrateRiver(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, err
	}
	client, err := river.NewClient(riversqlite.New(pool), jobs.InsertConfig())
	if err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("river client: %w", err)
	}
	return pool, client, nil
}

// migrateRiver applies River's migrations in one IMMEDIATE transaction, so
// two processes opening a new file at once apply them once.
func migrateRiver(ctx context.Context, pool *sql.DB) error {
	m, err := rivermigrate.New(riversqlite.New(pool), &rivermigrate.Config{Logger: jobs.DiscardLogger})
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	defer tx.Rollback()
	// MigrateTx is deprecated because some PostgreSQL migrations cannot
	// share a transaction; River's SQLite migrations are plain DDL.
	if _, err := m.MigrateTx(ctx, tx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// insertJobs inserts js with tx, so they exist only if tx commits
// (jobs.InsertParams says how a sello.Job becomes River's).
func (db *DB) insertJobs(ctx context.Context, tx querier, js []sello.Job) error {
	if len(js) == 0 {
		return nil
	}
	params, err := jobs.InsertParams(js)
	if err != nil {
		return err
	}
	// The fast insert returns no rows: nothing here reads them back, and
	// without RETURNING SQLite does not build and copy each job row.
	if _, err := db.river.InsertManyFastTx(ctx, tx.tx, params); err != nil {
		return fmt.Errorf("insert jobs: %w", err)
	}
	return nil
}

// NewJobRunner is the store's job runner: a River client working the default
// queue with cfg.Workers workers (default 8) on River's own pool, which
// also moves the receipts' confirmation queue into jobs
// (jobs.NewRunner). workers must be a *river.Workers and cfg.Periodic nil
// or []*river.PeriodicJob.
func (db *DB) NewJobRunner(workers *river.Workers, cfg jobs.Config) (jobs.Runner, error) {
	rc, err := jobs.RiverConfig(workers, cfg)
	if err != nil {
		return nil, err
	}
	rc.FetchPollInterval, rc.FetchCooldown = fetchPollInterval, fetchCooldown
	client, err := river.NewClient(riversqlite.New(db.riverDB), rc)
	if err != nil {
		return nil, fmt.Errorf("new job runner: %w", err)
	}
	return jobs.NewRunner(client, db.QueueInboundConfirmJobs, cfg), nil
}

// queuedConnector opens modernc connections that keep their statements and
// whose transactions take the store's write queue before they begin and give
// it back when they end. Without a write queue (the store's own pool, whose
// inTx takes the queue itself) transactions begin at once.
type queuedConnector struct {
	dsn    string
	driver *sqlite.Driver
	writer chan struct{}
}

func (c *queuedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &queuedConn{conn: conn, writer: c.writer}, nil
}

func (c *queuedConnector) Driver() driver.Driver { return c.driver }

// queuedConn forwards to a modernc connection. BeginTx takes the write
// queue (when it has one); ExecContext and QueryContext run the SQL, the
// store's and River's, as statements the connection keeps (see stmt.go).
type queuedConn struct {
	conn   driver.Conn
	writer chan struct{}
	// inTx is set while a transaction begun by BeginTx holds the queue.
	inTx bool
	// stmts are this connection's prepared statements by SQL text, at most
	// maxConnStmts. database/sql never uses a connection from two
	// goroutines at once, so they need no lock.
	stmts map[string]*connStmt
}

// maxConnStmts bounds a connection's statements: the store's SQL texts are
// constants plus a few dozen filter combinations, River runs a few dozen
// distinct queries; past the bound (migration scripts, say) a query is
// prepared for one run.
const maxConnStmts = 256

// connStmt is a kept statement; busy while rows it returned are open, when
// the same query runs unprepared instead.
type connStmt struct {
	stmt driver.Stmt
	busy bool
}

// The interfaces modernc's connection implements and database/sql uses.
var (
	_ driver.ConnBeginTx        = (*queuedConn)(nil)
	_ driver.ConnPrepareContext = (*queuedConn)(nil)
	_ driver.ExecerContext      = (*queuedConn)(nil)
	_ driver.QueryerContext     = (*queuedConn)(nil)
	_ driver.Pinger             = (*queuedConn)(nil)
	_ driver.SessionResetter    = (*queuedConn)(nil)
	_ driver.Validator          = (*queuedConn)(nil)
)

func (c *queuedConn) Prepare(query string) (driver.Stmt, error) {
	return c.conn.Prepare(stableLimit(query))
}

// Close closes the kept statements, then the connection.
func (c *queuedConn) Close() error {
	var errs []error
	for _, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
	}
	c.stmts = nil
	return errors.Join(append(errs, c.conn.Close())...)
}

func (c *queuedConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *queuedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.writer == nil {
		return c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	}
	select {
	case c.writer <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	tx, err := c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		<-c.writer
		return nil, err
	}
	c.inTx = true
	return &queuedTx{tx: tx, conn: c}, nil
}

// queue takes the write queue for a statement run outside a transaction
// that may write, and returns what gives it back (nil when it took
// nothing). Inside a transaction the transaction holds the queue already.
func (c *queuedConn) queue(ctx context.Context, query string) (release func(), err error) {
	if c.writer == nil || c.inTx || readOnly(query) {
		return nil, nil
	}
	select {
	case c.writer <- struct{}{}:
		return func() { <-c.writer }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readOnly reports whether query is a plain SELECT, which WAL lets run
// beside the writer. Anything else (UPDATE, INSERT, DELETE, a WITH that may
// end in one, PRAGMA) is taken for a write.
func readOnly(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n(")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select")
}

func (c *queuedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, stableLimit(query))
}

// stmt returns query's kept statement, preparing it if needed, or nil to
// run query unprepared: the statement is busy or the connection keeps
// enough.
func (c *queuedConn) stmt(ctx context.Context, query string) (*connStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	} else if len(c.stmts) >= maxConnStmts {
		return nil, nil
	}
	st, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = make(map[string]*connStmt)
	}
	s := &connStmt{stmt: st}
	c.stmts[query] = s
	return s, nil
}

func (c *queuedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	release, err := c.queue(ctx, query)
	if err != nil {
		return nil, err
	} else if release != nil {
		defer release()
	}
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	} else if s == nil {
		return c.conn.(driver.ExecerContext).ExecContext(ctx, stableLimit(query), args)
	}
	return s.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

// QueryContext runs query; a write outside a transaction keeps the write
// queue until its rows close, since SQLite keeps the write lock until then.
func (c *queuedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	release, err := c.queue(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, query, args)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	if release == nil {
		return rows, nil
	}
	return &releasingRows{Rows: rows, release: release}, nil
}

func (c *queuedConn) query(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	} else if s == nil {
		return c.conn.(driver.QueryerContext).QueryContext(ctx, stableLimit(query), args)
	}
	rows, err := s.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &connStmtRows{Rows: rows, stmt: s}, nil
}

// connStmtRows are the rows of a kept statement, which is free again when
// they close. They have no column types: River does not ask for them.
type connStmtRows struct {
	driver.Rows
	stmt *connStmt
}

func (r *connStmtRows) Close() error {
	r.stmt.busy = false
	return r.Rows.Close()
}

// releasingRows give the write queue back once, when they close.
type releasingRows struct {
	driver.Rows
	release func()
	once    sync.Once
}

func (r *releasingRows) Close() error {
	defer r.once.Do(r.release)
	return r.Rows.Close()
}

func (c *queuedConn) Ping(ctx context.Context) error {
	return c.conn.(driver.Pinger).Ping(ctx)
}

func (c *queuedConn) ResetSession(ctx context.Context) error {
	return c.conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *queuedConn) IsValid() bool { return c.conn.(driver.Validator).IsValid() }

// queuedTx gives the write queue back once, when it commits or rolls back.
type queuedTx struct {
	tx   driver.Tx
	conn *queuedConn
	once sync.Once
}

func (t *queuedTx) Commit() error {
	defer t.release()
	return t.tx.Commit()
}

func (t *queuedTx) Rollback() error {
	defer t.release()
	return t.tx.Rollback()
}

func (t *queuedTx) release() {
	t.once.Do(func() {
		t.conn.inTx = false
		<-t.conn.writer
	})
}

// CountJobs counts River's unfinished jobs (jobs.LiveStates) by kind and
// state, reading at most limit of them (jobs.MaxCounted when limit is not
// positive), for the metrics. It reads the state's index and, for the
// kind, the rows.
func (db *DB) CountJobs(ctx context.Context, limit int) ([]jobs.Count, error) {
	if limit <= 0 {
		limit = jobs.MaxCounted
	}
	rows, err := db.db.QueryContext(ctx, `SELECT kind, state, count(*) FROM (
		SELECT kind, state FROM river_job
		WHERE state IN ('available', 'pending', 'retryable', 'running', 'scheduled') LIMIT ?
	) GROUP BY kind, state ORDER BY kind, state`, limit)
	if err != nil {
		return nil, dbError(err, "count jobs")
	}
	defer rows.Close()
	var out []jobs.Count
	for rows.Next() {
		var c jobs.Count
		if err := rows.Scan(&c.Kind, &c.State, &c.N); err != nil {
			return nil, dbError(err, "count jobs")
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err(), "count jobs")
}
