package client

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// EventStore remembers the events a receiver applied: its uniqueness
// constraint on the event id (spec §6.4.1).
type EventStore interface {
	// Claim records eventID and reports whether this call recorded it
	// (first) or it was recorded already (a duplicate delivery).
	Claim(ctx context.Context, eventID string) (first bool, err error)
	// Release forgets eventID, so that a later delivery applies it: called
	// when applying the event failed.
	Release(ctx context.Context, eventID string) error
}

// Idempotent wraps handle so that each event is applied once (spec §6.4):
// it claims the event's id first; a duplicate returns nil at once (the
// receiver answers 200 and repeats no effect); when handle fails, the claim
// is released so that Sello's retry applies the event.
//
// A claim is held while handle runs: a concurrent duplicate (a manual replay
// racing a retry) answers 200 without waiting, and if the first then fails,
// its own 500 makes Sello retry it. For exactly-once effects in your
// database, record the id in the same transaction as the effect
// (SQLEventStore.ClaimTx).
func Idempotent(store EventStore, handle func(ctx context.Context, ev *Event) error) func(ctx context.Context, ev *Event) error {
	return func(ctx context.Context, ev *Event) error {
		first, err := store.Claim(ctx, ev.ID)
		if err != nil {
			return fmt.Errorf("claim event %s: %w", ev.ID, err)
		} else if !first {
			return nil
		}
		if err := handle(ctx, ev); err != nil {
			// Release even when the request's context ended.
			if rerr := store.Release(context.WithoutCancel(ctx), ev.ID); rerr != nil {
				return errors.Join(err, fmt.Errorf("release event %s: %w", ev.ID, rerr))
			}
			return err
		}
		return nil
	}
}

// MemoryEventStore is an EventStore in memory, for tests and single-process
// receivers that may forget on restart. It is safe for concurrent use.
type MemoryEventStore struct {
	mu   sync.Mutex
	seen map[string]bool
}

// NewMemoryEventStore returns an empty MemoryEventStore.
func NewMemoryEventStore() *MemoryEventStore {
	return &MemoryEventStore{seen: make(map[string]bool)}
}

// Claim implements EventStore.
func (s *MemoryEventStore) Claim(_ context.Context, eventID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[eventID] {
		return false, nil
	}
	s.seen[eventID] = true
	return true, nil
}

// Release implements EventStore.
func (s *MemoryEventStore) Release(_ context.Context, eventID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, eventID)
	return nil
}

// Placeholders is the bind-parameter style of a SQL driver.
type Placeholders int

// Placeholder styles.
const (
	// QuestionMarks (?) for SQLite and MySQL drivers.
	QuestionMarks Placeholders = iota
	// DollarNumbers ($1) for PostgreSQL drivers (pgx, lib/pq).
	DollarNumbers
)

// receivedAtFormat is fixed-width, so that text order is time order.
const receivedAtFormat = "2006-01-02T15:04:05.000000000Z"

// DefaultEventTable is the table SQLEventStore uses unless told otherwise.
const DefaultEventTable = "sello_events"

// SQLEventStore is an EventStore in the receiver's SQL database, through
// database/sql and the caller's driver: a table whose PRIMARY KEY is the
// event id. It works with SQLite (3.24 or later) and PostgreSQL (9.5 or
// later): a claim is INSERT … ON CONFLICT (event_id) DO NOTHING, so a
// duplicate is told apart without reading driver-specific error codes, and
// without aborting an enclosing PostgreSQL transaction.
type SQLEventStore struct {
	db    *sql.DB
	table string
	ph    Placeholders
	now   func() time.Time
}

// SQLOption configures a SQLEventStore.
type SQLOption func(*SQLEventStore)

// WithTable sets the table name (default DefaultEventTable), optionally
// schema-qualified ("app.sello_events").
func WithTable(name string) SQLOption { return func(s *SQLEventStore) { s.table = name } }

// WithPlaceholders sets the driver's bind-parameter style (default
// QuestionMarks).
func WithPlaceholders(p Placeholders) SQLOption { return func(s *SQLEventStore) { s.ph = p } }

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// NewSQLEventStore returns an EventStore in db. It fails on a table name
// that is not a plain (optionally schema-qualified) identifier. Call
// CreateTable once, or create the table with your migrations.
func NewSQLEventStore(db *sql.DB, opts ...SQLOption) (*SQLEventStore, error) {
	s := &SQLEventStore{db: db, table: DefaultEventTable, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	if db == nil {
		return nil, errors.New("sello: nil *sql.DB")
	}
	if !tableName.MatchString(s.table) {
		return nil, fmt.Errorf("sello: table name %q is not an identifier", s.table)
	}
	return s, nil
}

// CreateTable creates the table if it does not exist:
//
//	CREATE TABLE sello_events (event_id TEXT PRIMARY KEY, received_at TEXT NOT NULL)
//
// received_at is fixed-width RFC 3339 UTC, for pruning old rows (DeleteBefore).
func (s *SQLEventStore) CreateTable(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+s.table+` (event_id TEXT PRIMARY KEY, received_at TEXT NOT NULL)`)
	if err != nil {
		return fmt.Errorf("create table %s: %w", s.table, err)
	}
	return nil
}

// execer is what ClaimTx and Claim share: *sql.DB and *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *SQLEventStore) arg(n int) string {
	if s.ph == DollarNumbers {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

func (s *SQLEventStore) claim(ctx context.Context, db execer, eventID string) (bool, error) {
	if eventID == "" {
		return false, errors.New("sello: empty event id")
	}
	res, err := db.ExecContext(ctx, `INSERT INTO `+s.table+` (event_id, received_at) VALUES (`+s.arg(1)+`, `+s.arg(2)+`) ON CONFLICT (event_id) DO NOTHING`,
		eventID, s.now().UTC().Format(receivedAtFormat))
	if err != nil {
		return false, fmt.Errorf("claim event: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("claim event: %w", err)
	}
	return n == 1, nil
}

// Claim implements EventStore.
func (s *SQLEventStore) Claim(ctx context.Context, eventID string) (bool, error) {
	return s.claim(ctx, s.db, eventID)
}

// ClaimTx claims eventID inside the caller's transaction, so that the claim
// commits or rolls back with the event's effect: exactly once, with no
// Release needed. Use it instead of Idempotent when the effect is in the
// same database.
func (s *SQLEventStore) ClaimTx(ctx context.Context, tx *sql.Tx, eventID string) (bool, error) {
	return s.claim(ctx, tx, eventID)
}

// Release implements EventStore.
func (s *SQLEventStore) Release(ctx context.Context, eventID string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE event_id = `+s.arg(1), eventID); err != nil {
		return fmt.Errorf("release event: %w", err)
	}
	return nil
}

// DeleteBefore forgets the events claimed before t and returns how many. Sello
// retries a delivery for about 27½ hours (27 h 35 min by its schedule, up
// to 33 h with its ±20 % jitter) and keeps events 30 days; keep claims at
// least that long.
func (s *SQLEventStore) DeleteBefore(ctx context.Context, t time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM `+s.table+` WHERE received_at < `+s.arg(1), t.UTC().Format(receivedAtFormat))
	if err != nil {
		return 0, fmt.Errorf("delete events: %w", err)
	}
	return res.RowsAffected()
}
