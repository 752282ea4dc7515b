package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"modernc.org/sqlite"
)

// pragmas configure every connection: WAL so readers never block the writer,
// a busy timeout so two processes can share the file, and IMMEDIATE
// transactions so a writer takes the write lock at BEGIN and never fails on
// a lock upgrade halfway through. Commits do not checkpoint: the store does,
// and keeps the log's file within walSizeLimit (see checkpoint.go).
const pragmas = "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(0)&_pragma=journal_size_limit(33554432)&_pragma=temp_store(MEMORY)&_txlock=immediate"

// maxIdleConns is how many of the store's connections stay open unused:
// enough for the reads of a full set of job workers and requests, so that a
// burst does not open connections (pragmas, statements prepared again) only
// to close them after.
const maxIdleConns = 64

// DB is a Sello store in an SQLite file. It implements sello.Store.
type DB struct {
	// Now returns the current time; tests replace it to move the clock.
	Now func() time.Time

	db *sql.DB
	// writer queues this process's write transactions in Go, in arrival
	// order, instead of leaving them to SQLite's busy handler, which polls
	// and can starve a writer for seconds under load. busy_timeout still
	// arbitrates between processes. River's transactions take it too (see
	// river.go).
	writer chan struct{}
	// pending are the write transactions waiting for the writer, which
	// commits them together (see commit.go).
	pendingMu  sync.Mutex
	pending    []*writeReq
	closed     bool          // under pendingMu: no more work is taken
	wake       chan struct{} // tells the committer that work is pending
	stopCommit chan struct{}
	committer  sync.WaitGroup
	// onCommit hears of every group committed (ObserveCommits).
	onCommit func(group int, took time.Duration)

	// riverDB is River's own pool on the file; river inserts jobs in the
	// store's transactions.
	riverDB *sql.DB
	// checkpoints copies the log into the file (see checkpoint.go).
	checkpoints *checkpointer
	river       *river.Client[*sql.Tx]
}

var _ sello.Store = (*DB)(nil)

// Open opens the SQLite file at path, creating it if needed, and applies
// the embedded migrations, then River's. The path must not contain '?'.
// The file and the ones SQLite keeps beside it (-wal, -shm, -journal) are
// made mode 0600 whatever the umask, existing ones included.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := createFile(path); err != nil {
		return nil, err
	}
	dsn := path + "?" + pragmas
	// The store's own connections keep their statements too (the
	// connector without a write queue: inTx takes it), so River's insert
	// of a document's job in the store's transaction is compiled once per
	// connection.
	sqlDB := sql.OpenDB(&queuedConnector{dsn: dsn, driver: &sqlite.Driver{}})
	// Keep enough idle connections for the job workers' and requests'
	// reads: a connection closed on release is opened again (pragmas) and
	// prepares its statements again at the next burst.
	sqlDB.SetMaxIdleConns(maxIdleConns)
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	if err := restrictFiles(path); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if err := migrate(ctx, sqlDB); err != nil {
		sqlDB.Close()
		return nil, err
	}
	writer := make(chan struct{}, 1)
	riverDB, client, err := openRiver(ctx, dsn, writer)
	if err != nil {
		sqlDB.Close()
		return nil, err
	}
	db := &DB{Now: time.Now, db: sqlDB, writer: writer, riverDB: riverDB, river: client}
	db.wake, db.stopCommit = make(chan struct{}, 1), make(chan struct{})
	db.committer.Go(db.commit)
	db.checkpoints = db.startCheckpointer()
	return db, nil
}

// ObserveCommits has f told of every COMMIT of the store's write
// transactions, in the committer's goroutine: how many it committed
// together (see commit.go) and how long the COMMIT took. Call it before
// the store is used (the server's wiring points it at the metrics). River's
// own transactions are not the store's.
func (db *DB) ObserveCommits(f func(group int, took time.Duration)) { db.onCommit = f }

// SQL returns the underlying database, for tests and tools that read the
// file directly.
func (db *DB) SQL() *sql.DB { return db.db }

// Close implements sello.Store. Stop job runners first.
func (db *DB) Close() error {
	db.pendingMu.Lock()
	closed := db.closed
	db.closed = true
	db.pendingMu.Unlock()
	if closed {
		return nil
	}
	close(db.stopCommit)
	db.committer.Wait() // it commits what was pending first
	db.checkpoints.stop()
	return errors.Join(db.riverDB.Close(), db.db.Close())
}

// now returns the store's clock in UTC at the precision it stores.
func (db *DB) now() time.Time { return db.Now().UTC().Truncate(time.Microsecond) }

// timeFormat stores times in UTC with microseconds; fixed width, so text
// order is time order.
const timeFormat = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func formatTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse stored time %q: %w", s, err)
	}
	return t, nil
}

func parseTimePtr(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseTime(s.String)
	return &t, err
}

func formatDate(d sello.Date) string { return d.String() }

func parseDate(s string) (sello.Date, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return sello.Date{}, fmt.Errorf("parse stored date %q: %w", s, err)
	}
	return sello.DateOf(t), nil
}
