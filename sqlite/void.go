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

// InVoidTx implements sello.VoidStore: one IMMEDIATE transaction, whose
// single writer is the lock numbering takes too.
func (db *DB) InVoidTx(ctx context.Context, fn func(sello.VoidTx, time.Time) error) error {
	return db.inTx(ctx, func(tx querier) error {
		return fn(voidTx{documentTx{db: db, tx: tx}}, db.now())
	})
}

// voidTx is sello.VoidTx over one of the store's transactions: numbering's
// statements (Sequences, SetSequenceNext, VoidOf) and the void's own.
type voidTx struct{ documentTx }

// VoidOf implements sello.VoidLookup.
func (t documentTx) VoidOf(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType, n int64) (string, int64, error) {
	var id string
	var through int64
	err := t.tx.queryRow(ctx, `
		SELECT void_id, range_to FROM void_ranges
		WHERE tenant_id = ? AND environment = ? AND type = ? AND range_from <= ? AND range_to >= ?
		ORDER BY range_to DESC LIMIT 1`, tenantID, env, typ, n, n).Scan(&id, &through)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil
	}
	return id, through, dbError(err, "find void of number")
}

// FindVoidByKey implements sello.VoidTx.
func (t voidTx) FindVoidByKey(ctx context.Context, tenantID string, env sello.Environment, key string) (*sello.Void, error) {
	v, err := findVoid(ctx, t.tx, `idempotency_key = ?`, tenantID, env, key)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		return nil, nil
	}
	return v, err
}

// DocumentsInRange implements sello.VoidTx: e-NCFs have a fixed width, so
// the range is a range of the unique (tenant, environment, e-NCF) index.
func (t voidTx) DocumentsInRange(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType, from, to int64, limit int) ([]*sello.Document, error) {
	return queryDocumentsIn(ctx, t.tx, "find documents in range", `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND encf >= ? AND encf <= ?
		ORDER BY encf LIMIT ?`,
		tenantID, env, sello.ENCF{Type: typ, Number: from}.String(), sello.ENCF{Type: typ, Number: to}.String(), limit)
}

// VoidedRanges implements sello.VoidTx.
func (t voidTx) VoidedRanges(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType, from, to int64) ([]sello.VoidedRange, error) {
	rows, err := t.tx.query(ctx, `
		SELECT r.void_id, v.state, r.type, r.range_from, r.range_to
		FROM void_ranges r JOIN voids v ON v.id = r.void_id
		WHERE r.tenant_id = ? AND r.environment = ? AND r.type = ? AND r.range_from <= ? AND r.range_to >= ?
		ORDER BY r.range_from, r.void_id`, tenantID, env, typ, to, from)
	if err != nil {
		return nil, dbError(err, "find voided ranges")
	}
	defer rows.Close()
	var out []sello.VoidedRange
	for rows.Next() {
		var r sello.VoidedRange
		if err := rows.Scan(&r.VoidID, &r.State, &r.Type, &r.From, &r.To); err != nil {
			return nil, dbError(err, "find voided ranges")
		}
		out = append(out, r)
	}
	return out, dbError(rows.Err(), "find voided ranges")
}

// InsertVoid implements sello.VoidTx.
func (t voidTx) InsertVoid(ctx context.Context, v *sello.Void) error {
	var key any
	if v.IdempotencyKey != "" {
		key = v.IdempotencyKey
	}
	_, err := t.tx.exec(ctx, `
		INSERT INTO voids (id, tenant_id, environment, state, idempotency_key, request_hash, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		v.ID, v.TenantID, v.Environment, v.State, key, v.RequestHash, formatTime(v.CreatedAt), formatTime(v.UpdatedAt))
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", v.TenantID).WithErr(err)
	case kindUnique:
		return sello.Errorf(sello.CodeConflict, "Idempotency-Key %s is already used.", v.IdempotencyKey).WithErr(err)
	}
	if err != nil {
		return dbError(err, "insert void")
	}
	for _, r := range v.Ranges {
		if _, err := t.tx.exec(ctx, `
			INSERT INTO void_ranges (void_id, tenant_id, environment, type, range_from, range_to) VALUES (?, ?, ?, ?, ?, ?)`,
			v.ID, v.TenantID, v.Environment, r.Type, r.From, r.To); err != nil {
			return dbError(err, "insert void range")
		}
	}
	return nil
}

const voidColumns = `id, tenant_id, environment, state, dgii, failure_reason, anecf, idempotency_key, request_hash, created_at, updated_at`

// findVoid reads the tenant's void in env matching where (one ? for arg),
// with its ranges. Returns NOT_FOUND.
func findVoid(ctx context.Context, q querier, where, tenantID string, env sello.Environment, arg any) (*sello.Void, error) {
	v, err := scanVoid(q.queryRow(ctx, `SELECT `+voidColumns+` FROM voids WHERE tenant_id = ? AND environment = ? AND `+where,
		tenantID, env, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.VoidNotFound(fmt.Sprint(arg))
	} else if err != nil {
		return nil, dbError(err, "find void")
	}
	if err := loadVoidRanges(ctx, q, []*sello.Void{v}); err != nil {
		return nil, err
	}
	return v, nil
}

// loadVoidRanges reads the ranges of voids, by type and start.
func loadVoidRanges(ctx context.Context, q querier, voids []*sello.Void) error {
	if len(voids) == 0 {
		return nil
	}
	byID := map[string]*sello.Void{}
	ids := make([]string, len(voids))
	for i, v := range voids {
		byID[v.ID], ids[i] = v, v.ID
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("encode void ids: %w", err)
	}
	rows, err := q.query(ctx, `
		SELECT void_id, type, range_from, range_to FROM void_ranges
		WHERE tenant_id = ? AND void_id IN (SELECT value FROM json_each(?))`, voids[0].TenantID, string(list))
	if err != nil {
		return dbError(err, "find void ranges")
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var r sello.VoidRange
		if err := rows.Scan(&id, &r.Type, &r.From, &r.To); err != nil {
			return dbError(err, "find void ranges")
		}
		byID[id].Ranges = append(byID[id].Ranges, r)
	}
	if err := rows.Err(); err != nil {
		return dbError(err, "find void ranges")
	}
	for _, v := range voids {
		sello.SortVoidRanges(v.Ranges)
	}
	return nil
}

func scanVoid(s scanner) (*sello.Void, error) {
	var v sello.Void
	var dgii, key sql.NullString
	var anecf, hash []byte
	var created, updated string
	if err := s.Scan(&v.ID, &v.TenantID, &v.Environment, &v.State, &dgii, &v.FailureReason, &anecf, &key, &hash, &created, &updated); err != nil {
		return nil, err
	}
	if dgii.Valid {
		v.DGII = &sello.DGIIResult{}
		if err := json.Unmarshal([]byte(dgii.String), v.DGII); err != nil {
			return nil, fmt.Errorf("decode void dgii: %w", err)
		}
	}
	v.ANECF, v.IdempotencyKey, v.RequestHash = anecf, key.String, hash
	var err error
	if v.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	if v.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	return &v, nil
}

// FindVoid implements sello.VoidStore. Returns NOT_FOUND.
func (db *DB) FindVoid(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.Void, error) {
	return findVoid(ctx, db.q(), `id = ?`, tenantID, env, id)
}

// ListVoids implements sello.VoidStore: newest first, keyset pagination on
// (created_at, id). Returns INVALID_REQUEST for a malformed cursor.
func (db *DB) ListVoids(ctx context.Context, tenantID string, env sello.Environment, f sello.VoidFilter) ([]*sello.Void, string, error) {
	limit := f.PageLimit()
	q := `SELECT ` + voidColumns + ` FROM voids WHERE tenant_id = ? AND environment = ?`
	args := []any{tenantID, env}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (created_at, id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.q().query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list voids")
	}
	var out []*sello.Void
	for rows.Next() {
		v, err := scanVoid(rows)
		if err != nil {
			rows.Close()
			return nil, "", dbError(err, "list voids")
		}
		v.ANECF = nil
		out = append(out, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, "", dbError(err, "list voids")
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = sello.FormatCursor(out[limit-1].CreatedAt, out[limit-1].ID)
	}
	return out, next, loadVoidRanges(ctx, db.q(), out)
}

// RecordVoidOutcome implements sello.VoidStore: the outcome and its event
// in one transaction. Returns NOT_FOUND or CONFLICT.
func (db *DB) RecordVoidOutcome(ctx context.Context, tenantID string, env sello.Environment, id string, out sello.VoidOutcome) (*sello.Void, error) {
	var v *sello.Void
	err := db.inTx(ctx, func(tx querier) error {
		var err error
		if v, err = findVoid(ctx, tx, `id = ?`, tenantID, env, id); err != nil {
			return err
		}
		ev, err := v.Apply(out, db.now())
		if err != nil {
			return err
		}
		var dgii any
		if v.DGII != nil {
			b, err := json.Marshal(v.DGII)
			if err != nil {
				return fmt.Errorf("encode void dgii: %w", err)
			}
			dgii = string(b)
		}
		if _, err := tx.exec(ctx, `
			UPDATE voids SET state = ?, dgii = ?, failure_reason = ?, anecf = ?, updated_at = ?
			WHERE tenant_id = ? AND id = ?`,
			v.State, dgii, v.FailureReason, v.ANECF, formatTime(v.UpdatedAt), tenantID, id); err != nil {
			return dbError(err, "record void outcome")
		}
		if ev != nil {
			return db.insertEvent(ctx, tx, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}
