package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sello-do/sello"
)

// CreateCertificationRun implements sello.CertificationStore: the run and
// its job in one transaction, or the run of its idempotency key.
func (db *DB) CreateCertificationRun(ctx context.Context, run *sello.CertificationRun) (*sello.CertificationRun, bool, error) {
	rows, failure, err := encodeRun(run)
	if err != nil {
		return nil, false, err
	}
	stored, replayed := run, false
	err = db.inTx(ctx, func(tx querier) error {
		if run.IdempotencyKey != "" {
			var id string
			err := tx.queryRow(ctx, `SELECT id FROM certification_runs WHERE tenant_id = ? AND environment = ? AND idempotency_key = ?`,
				run.TenantID, run.Environment, run.IdempotencyKey).Scan(&id)
			if err == nil {
				if stored, err = findRun(ctx, tx, run.TenantID, run.Environment, id); err != nil {
					return err
				}
				replayed = true
				return run.Replay(stored)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return dbError(err, "find certification run by idempotency key")
			}
		}
		var key any
		if run.IdempotencyKey != "" {
			key = run.IdempotencyKey
		}
		_, err := tx.exec(ctx, `
			INSERT INTO certification_runs (id, tenant_id, environment, state, row_data, failure, idempotency_key, request_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			run.ID, run.TenantID, run.Environment, run.State, rows, failure, key, run.RequestHash, formatTime(run.CreatedAt), formatTime(run.UpdatedAt))
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
	return findRun(ctx, db.q(), tenantID, env, id)
}

// FindCertificationRuns implements sello.CertificationStore.
func (db *DB) FindCertificationRuns(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.CertificationRun, error) {
	rs, err := db.q().query(ctx, `
		SELECT id, state, row_data, failure, created_at, updated_at FROM certification_runs
		WHERE tenant_id = ? AND environment = ? ORDER BY created_at DESC, id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find certification runs")
	}
	defer rs.Close()
	var out []*sello.CertificationRun
	for rs.Next() {
		run := &sello.CertificationRun{TenantID: tenantID, Environment: env}
		var rows, created, updated string
		var failure sql.NullString
		if err := rs.Scan(&run.ID, &run.State, &rows, &failure, &created, &updated); err != nil {
			return nil, dbError(err, "find certification runs")
		}
		if err := decodeRun(run, rows, failure.String, created, updated); err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, dbError(rs.Err(), "find certification runs")
}

// RecordCertificationRow implements sello.CertificationStore: the run's
// rule (CertificationRun.Record) applied and saved in one transaction (the
// single writer is the lock).
func (db *DB) RecordCertificationRow(ctx context.Context, tenantID string, env sello.Environment, id string, i int, u sello.CertificationRowUpdate, now time.Time) (*sello.CertificationRun, error) {
	var run *sello.CertificationRun
	err := db.inTx(ctx, func(tx querier) error {
		var err error
		if run, err = findRun(ctx, tx, tenantID, env, id); err != nil {
			return err
		}
		if _, err := run.Record(i, u, now); err != nil {
			return err
		}
		rows, failure, err := encodeRun(run)
		if err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `
			UPDATE certification_runs SET state = ?, row_data = ?, failure = ?, updated_at = ?
			WHERE tenant_id = ? AND environment = ? AND id = ?`,
			run.State, rows, failure, formatTime(run.UpdatedAt), tenantID, env, id); err != nil {
			return dbError(err, "record certification row")
		}
		if u.XML != nil {
			_, err := tx.exec(ctx, `
				INSERT INTO certification_row_xml (run_id, row_index, tenant_id, xml) VALUES (?, ?, ?, ?)
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
	err := db.q().queryRow(ctx, `
		SELECT x.xml FROM certification_row_xml x JOIN certification_runs r ON r.id = x.run_id
		WHERE r.tenant_id = ? AND r.environment = ? AND x.run_id = ? AND x.row_index = ?`,
		tenantID, env, id, i).Scan(&xml)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "Row %d of certification run %s has no signed XML.", i, id)
	}
	return xml, dbError(err, "find certification row xml")
}

// findRun reads the tenant's run in env. Returns NOT_FOUND.
func findRun(ctx context.Context, q querier, tenantID string, env sello.Environment, id string) (*sello.CertificationRun, error) {
	run := &sello.CertificationRun{ID: id, TenantID: tenantID, Environment: env}
	var rows string
	var failure sql.NullString
	var created, updated string
	err := q.queryRow(ctx, `
		SELECT state, row_data, failure, request_hash, created_at, updated_at FROM certification_runs
		WHERE tenant_id = ? AND environment = ? AND id = ?`, tenantID, env, id).
		Scan(&run.State, &rows, &failure, &run.RequestHash, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.CertificationRunNotFound(id)
	} else if err != nil {
		return nil, dbError(err, "find certification run")
	}
	return run, decodeRun(run, rows, failure.String, created, updated)
}

// encodeRun returns the run's rows and failure as stored.
func encodeRun(run *sello.CertificationRun) (rows string, failure any, err error) {
	b, err := json.Marshal(run.Rows)
	if err != nil {
		return "", nil, fmt.Errorf("encode certification rows: %w", err)
	}
	if run.Failure != nil {
		f, err := json.Marshal(run.Failure)
		if err != nil {
			return "", nil, fmt.Errorf("encode certification failure: %w", err)
		}
		failure = string(f)
	}
	return string(b), failure, nil
}

// decodeRun sets the run's stored columns.
func decodeRun(run *sello.CertificationRun, rows, failure, created, updated string) error {
	var err error
	if rows != "" {
		if err := json.Unmarshal([]byte(rows), &run.Rows); err != nil {
			return fmt.Errorf("decode certification rows: %w", err)
		}
	}
	if failure != "" {
		if err := json.Unmarshal([]byte(failure), &run.Failure); err != nil {
			return fmt.Errorf("decode certification failure: %w", err)
		}
	}
	if run.CreatedAt, err = parseTime(created); err != nil {
		return err
	}
	run.UpdatedAt, err = parseTime(updated)
	return err
}
