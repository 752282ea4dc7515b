package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

const reachabilityColumns = `environment, state, failing_since, last_failure, last_success, since, until, updated_at`

// FindReachability implements sello.ReachabilityStore.
func (db *DB) FindReachability(ctx context.Context, env sello.Environment) (*sello.Reachability, error) {
	r, err := scanReachability(db.pool.QueryRow(ctx, `SELECT `+reachabilityColumns+` FROM dgii_reachability WHERE environment = $1`, env))
	if isNoRows(err) {
		return sello.NewReachability(env), nil
	}
	return r, dbError(err, "find dgii reachability")
}

func scanReachability(row pgx.Row) (*sello.Reachability, error) {
	var r sello.Reachability
	if err := row.Scan(&r.Environment, &r.State, &r.FailingSince, &r.LastFailure, &r.LastSuccess, &r.Since, &r.Until, &r.UpdatedAt); err != nil {
		return nil, err
	}
	r.FailingSince, r.LastFailure, r.LastSuccess = utcPtr(r.FailingSince), utcPtr(r.LastFailure), utcPtr(r.LastSuccess)
	r.Since, r.Until, r.UpdatedAt = utcPtr(r.Since), utcPtr(r.Until), utc(r.UpdatedAt)
	return &r, nil
}

// RecordDGIIOutcome implements sello.ReachabilityStore with
// sello.RecordDGIIOutcome in one transaction, the environment's row locked
// FOR UPDATE: concurrent reports on several nodes apply one after the
// other, so each transition happens once.
func (db *DB) RecordDGIIOutcome(ctx context.Context, env sello.Environment, o sello.DGIIOutcome, after time.Duration) (*sello.Reachability, sello.DGIIState, error) {
	return sello.RecordDGIIOutcome(ctx, env, o, after, func(fn func(sello.ReachabilityTx, time.Time) error) error {
		return db.inTx(ctx, func(tx pgx.Tx) error { return fn(reachabilityTx{db: db, tx: tx}, db.now()) })
	})
}

// reachabilityTx is sello.ReachabilityTx over one of the store's
// transactions.
type reachabilityTx struct {
	db *DB
	tx pgx.Tx
}

// LockReachability implements sello.ReachabilityTx: it creates the row
// when missing, then locks it.
func (t reachabilityTx) LockReachability(ctx context.Context, env sello.Environment) (*sello.Reachability, error) {
	if _, err := t.tx.Exec(ctx, `
		INSERT INTO dgii_reachability (environment, state, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (environment) DO NOTHING`, env, sello.DGIIAvailable, time.Unix(0, 0).UTC()); err != nil {
		return nil, dbError(err, "create dgii reachability")
	}
	r, err := scanReachability(t.tx.QueryRow(ctx, `SELECT `+reachabilityColumns+` FROM dgii_reachability WHERE environment = $1 FOR UPDATE`, env))
	return r, dbError(err, "lock dgii reachability")
}

// SaveReachability implements sello.ReachabilityTx.
func (t reachabilityTx) SaveReachability(ctx context.Context, r *sello.Reachability) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE dgii_reachability SET state = $2, failing_since = $3, last_failure = $4, last_success = $5,
			since = $6, until = $7, updated_at = $8
		WHERE environment = $1`,
		r.Environment, r.State, r.FailingSince, r.LastFailure, r.LastSuccess, r.Since, r.Until, r.UpdatedAt)
	return dbError(err, "save dgii reachability")
}

// ContingencyTenants implements sello.ReachabilityTx.
func (t reachabilityTx) ContingencyTenants(ctx context.Context, env sello.Environment) ([]sello.TenantWaiting, error) {
	rows, err := t.tx.Query(ctx, `
		SELECT c.tenant_id, (SELECT count(*) FROM documents d WHERE d.tenant_id = c.tenant_id AND d.environment = $1
			AND d.status IN ('queued_for_signing', 'signed'))
		FROM (SELECT DISTINCT tenant_id FROM certificates WHERE environment = $1) c
		ORDER BY c.tenant_id`, env)
	if err != nil {
		return nil, dbError(err, "find contingency tenants")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.TenantWaiting, error) {
		var tw sello.TenantWaiting
		err := r.Scan(&tw.TenantID, &tw.Waiting)
		return tw, err
	})
	return out, dbError(err, "find contingency tenants")
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
	rows, err := db.pool.Query(ctx, `
		SELECT `+summaryColumns+` FROM documents
		WHERE environment = $1 AND status IN ('queued_for_signing', 'signed') AND status = 'signed' -- the IN names the partial index
		ORDER BY created_at, id LIMIT $2`, env, limit)
	if err != nil {
		return nil, dbError(err, "find waiting documents")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Document, error) { return scanDocument(r) })
	return out, dbError(err, "find waiting documents")
}

// CountWaitingDocuments implements sello.ReachabilityStore.
func (db *DB) CountWaitingDocuments(ctx context.Context, tenantID string, env sello.Environment) (int, *time.Time, error) {
	var n int
	var oldest *time.Time
	err := db.pool.QueryRow(ctx, `
		SELECT count(*), min(created_at) FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND status IN ('queued_for_signing', 'signed')`,
		tenantID, env).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, dbError(err, "count waiting documents")
	}
	return n, utcPtr(oldest), nil
}
