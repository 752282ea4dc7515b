package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sello-do/sello"
)

const reachabilityColumns = `environment, state, failing_since, last_failure, last_success, since, until, updated_at`

// FindReachability implements sello.ReachabilityStore.
func (db *DB) FindReachability(ctx context.Context, env sello.Environment) (*sello.Reachability, error) {
	return findReachability(ctx, db.q(), env)
}

func findReachability(ctx context.Context, q querier, env sello.Environment) (*sello.Reachability, error) {
	r, err := scanReachability(q.queryRow(ctx, `SELECT `+reachabilityColumns+` FROM dgii_reachability WHERE environment = ?`, env))
	if errors.Is(err, sql.ErrNoRows) {
		return sello.NewReachability(env), nil
	}
	return r, dbError(err, "find dgii reachability")
}

func scanReachability(s scanner) (*sello.Reachability, error) {
	var r sello.Reachability
	var failing, lastFailure, lastSuccess, since, until sql.NullString
	var updated string
	if err := s.Scan(&r.Environment, &r.State, &failing, &lastFailure, &lastSuccess, &since, &until, &updated); err != nil {
		return nil, err
	}
	var err error
	for _, f := range []struct {
		dst **time.Time
		src sql.NullString
	}{{&r.FailingSince, failing}, {&r.LastFailure, lastFailure}, {&r.LastSuccess, lastSuccess}, {&r.Since, since}, {&r.Until, until}} {
		if *f.dst, err = parseTimePtr(f.src); err != nil {
			return nil, err
		}
	}
	if r.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &r, nil
}

// RecordDGIIOutcome implements sello.ReachabilityStore with
// sello.RecordDGIIOutcome, in one IMMEDIATE transaction (the write lock is
// the row lock).
func (db *DB) RecordDGIIOutcome(ctx context.Context, env sello.Environment, o sello.DGIIOutcome, after time.Duration) (*sello.Reachability, sello.DGIIState, error) {
	return sello.RecordDGIIOutcome(ctx, env, o, after, func(fn func(sello.ReachabilityTx, time.Time) error) error {
		return db.inTx(ctx, func(tx querier) error { return fn(reachabilityTx{db: db, tx: tx}, db.now()) })
	})
}

// reachabilityTx is sello.ReachabilityTx over one of the store's
// transactions.
type reachabilityTx struct {
	db *DB
	tx querier
}

// LockReachability implements sello.ReachabilityTx: SQLite has one
// writer, so the transaction holds the row.
func (t reachabilityTx) LockReachability(ctx context.Context, env sello.Environment) (*sello.Reachability, error) {
	return findReachability(ctx, t.tx, env)
}

// SaveReachability implements sello.ReachabilityTx.
func (t reachabilityTx) SaveReachability(ctx context.Context, r *sello.Reachability) error {
	_, err := t.tx.exec(ctx, `
		INSERT INTO dgii_reachability (`+reachabilityColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (environment) DO UPDATE SET state = excluded.state, failing_since = excluded.failing_since,
			last_failure = excluded.last_failure, last_success = excluded.last_success, since = excluded.since,
			until = excluded.until, updated_at = excluded.updated_at`,
		r.Environment, r.State, formatTimePtr(r.FailingSince), formatTimePtr(r.LastFailure), formatTimePtr(r.LastSuccess),
		formatTimePtr(r.Since), formatTimePtr(r.Until), formatTime(r.UpdatedAt))
	return dbError(err, "save dgii reachability")
}

// ContingencyTenants implements sello.ReachabilityTx.
func (t reachabilityTx) ContingencyTenants(ctx context.Context, env sello.Environment) ([]sello.TenantWaiting, error) {
	rows, err := t.tx.query(ctx, `
		SELECT c.tenant_id, (SELECT count(*) FROM documents d WHERE d.tenant_id = c.tenant_id AND d.environment = ?
			AND d.status IN ('queued_for_signing', 'signed'))
		FROM (SELECT DISTINCT tenant_id FROM certificates WHERE environment = ?) c
		ORDER BY c.tenant_id`, env, env)
	if err != nil {
		return nil, dbError(err, "find contingency tenants")
	}
	defer rows.Close()
	var out []sello.TenantWaiting
	for rows.Next() {
		var tw sello.TenantWaiting
		if err := rows.Scan(&tw.TenantID, &tw.Waiting); err != nil {
			return nil, dbError(err, "find contingency tenants")
		}
		out = append(out, tw)
	}
	return out, dbError(rows.Err(), "find contingency tenants")
}

// InsertEvent implements sello.ReachabilityTx.
func (t reachabilityTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// InsertJobs implements sello.ReachabilityTx.
func (t reachabilityTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

// FindWaitingDocuments implements sello.ReachabilityStore (index
// documents_waiting).
func (db *DB) FindWaitingDocuments(ctx context.Context, env sello.Environment, limit int) ([]*sello.Document, error) {
	rows, err := db.q().query(ctx, `
		SELECT `+summaryColumns+` FROM documents
		WHERE environment = ? AND status IN ('queued_for_signing', 'signed') AND status = 'signed' -- the IN names the partial index
		ORDER BY created_at, id LIMIT ?`, env, limit)
	if err != nil {
		return nil, dbError(err, "find waiting documents")
	}
	defer rows.Close()
	var out []*sello.Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, dbError(err, "find waiting documents")
		}
		out = append(out, d)
	}
	return out, dbError(rows.Err(), "find waiting documents")
}

// CountWaitingDocuments implements sello.ReachabilityStore.
func (db *DB) CountWaitingDocuments(ctx context.Context, tenantID string, env sello.Environment) (int, *time.Time, error) {
	var n int
	var oldest sql.NullString
	err := db.q().queryRow(ctx, `
		SELECT count(*), min(created_at) FROM documents
		WHERE tenant_id = ? AND environment = ? AND status IN ('queued_for_signing', 'signed')`,
		tenantID, env).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, dbError(err, "count waiting documents")
	}
	t, err := parseTimePtr(oldest)
	return n, t, err
}
