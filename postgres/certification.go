package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// CreateCertificationRun implements sello.CertificationStore: the run and
// its job in one transaction, or the run of its idempotency key.
func (db *DB) CreateCertificationRun(ctx context.Context, run *sello.CertificationRun) (*sello.CertificationRun, bool, error) {
	stored, replayed := run, false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var key *string
		if run.IdempotencyKey != "" {
			key = &run.IdempotencyKey
			var id string
			err := tx.QueryRow(ctx, `SELECT id FROM certification_runs WHERE tenant_id = $1 AND environment = $2 AND idempotency_key = $3`,
				run.TenantID, run.Environment, run.IdempotencyKey).Scan(&id)
			if err == nil {
				if stored, err = findRun(ctx, tx, run.TenantID, run.Environment, id, ""); err != nil {
					return err
				}
				replayed = true
				return run.Replay(stored)
			} else if !isNoRows(err) {
				return dbError(err, "find certification run by idempotency key")
			}
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO certification_runs (id, tenant_id, environment, state, row_data, failure, idempotency_key, request_hash, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			run.ID, run.TenantID, run.Environment, run.State, run.Rows, run.Failure, key, run.RequestHash, run.CreatedAt, run.UpdatedAt)
		if err != nil {
			return dbError(err, "create certification run")
		}
		return db.insertJobs(ctx, tx, []sello.Job{run.Job()})
	})
	if err != nil {
		return nil, false, err
	}
	return stored, replayed, nil
}

// FindCertificationRun implements sello.CertificationStore. Returns
// NOT_FOUND.
func (db *DB) FindCertificationRun(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.CertificationRun, error) {
	return findRun(ctx, db.pool, tenantID, env, id, "")
}

// FindCertificationRuns implements sello.CertificationStore.
func (db *DB) FindCertificationRuns(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.CertificationRun, error) {
	rs, err := db.pool.Query(ctx, `
		SELECT id, state, row_data, failure, created_at, updated_at FROM certification_runs
		WHERE tenant_id = $1 AND environment = $2 ORDER BY created_at DESC, id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find certification runs")
	}
	defer rs.Close()
	var out []*sello.CertificationRun
	for rs.Next() {
		run := &sello.CertificationRun{TenantID: tenantID, Environment: env}
		var rows []byte
		if err := rs.Scan(&run.ID, &run.State, &rows, &run.Failure, &run.CreatedAt, &run.UpdatedAt); err != nil {
			return nil, dbError(err, "find certification runs")
		}
		if err := json.Unmarshal(rows, &run.Rows); err != nil {
			return nil, fmt.Errorf("decode certification rows: %w", err)
		}
		run.CreatedAt, run.UpdatedAt = utc(run.CreatedAt), utc(run.UpdatedAt)
		out = append(out, run)
	}
	return out, dbError(rs.Err(), "find certification runs")
}

// RecordCertificationRow implements sello.CertificationStore: the run's
// rule (CertificationRun.Record) applied under the run's row lock and
// saved in one transaction.
func (db *DB) RecordCertificationRow(ctx context.Context, tenantID string, env sello.Environment, id string, i int, u sello.CertificationRowUpdate, now time.Time) (*sello.CertificationRun, error) {
	var run *sello.CertificationRun
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if run, err = findRun(ctx, tx, tenantID, env, id, " FOR UPDATE"); err != nil {
			return err
		}
		if _, err := run.Record(i, u, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE certification_runs SET state = $4, row_data = $5, failure = $6, updated_at = $7
			WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
			tenantID, env, id, run.State, run.Rows, run.Failure, run.UpdatedAt); err != nil {
			return dbError(err, "record certification row")
		}
		if u.XML != nil {
			_, err := tx.Exec(ctx, `
				INSERT INTO certification_row_xml (run_id, row_index, tenant_id, xml) VALUES ($1, $2, $3, $4)
				ON CONFLICT (run_id, row_index) DO UPDATE SET xml = excluded.xml`, id, i, tenantID, u.XML)
			return dbError(err, "record certification row xml")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// FindCertificationRowXML implements sello.CertificationStore. Returns
// NOT_FOUND.
func (db *DB) FindCertificationRowXML(ctx context.Context, tenantID string, env sello.Environment, id string, i int) ([]byte, error) {
	var xml []byte
	err := db.pool.QueryRow(ctx, `
		SELECT x.xml FROM certification_row_xml x JOIN certification_runs r ON r.id = x.run_id
		WHERE r.tenant_id = $1 AND r.environment = $2 AND x.run_id = $3 AND x.row_index = $4`,
		tenantID, env, id, i).Scan(&xml)
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "Row %d of certification run %s has no signed XML.", i, id)
	}
	return xml, dbError(err, "find certification row xml")
}

// findRun reads the tenant's run in env, with lock appended to the query.
// Returns NOT_FOUND.
func findRun(ctx context.Context, q rowQuerier, tenantID string, env sello.Environment, id, lock string) (*sello.CertificationRun, error) {
	run := &sello.CertificationRun{ID: id, TenantID: tenantID, Environment: env}
	var rows []byte
	err := q.QueryRow(ctx, `
		SELECT state, row_data, failure, request_hash, created_at, updated_at FROM certification_runs
		WHERE tenant_id = $1 AND environment = $2 AND id = $3`+lock, tenantID, env, id).
		Scan(&run.State, &rows, &run.Failure, &run.RequestHash, &run.CreatedAt, &run.UpdatedAt)
	if isNoRows(err) {
		return nil, sello.CertificationRunNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find certification run")
	}
	if err := json.Unmarshal(rows, &run.Rows); err != nil {
		return nil, fmt.Errorf("decode certification rows: %w", err)
	}
	run.CreatedAt, run.UpdatedAt = utc(run.CreatedAt), utc(run.UpdatedAt)
	return run, nil
}
