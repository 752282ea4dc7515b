package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// InVoidTx implements sello.VoidStore: one transaction; CreateVoid locks
// the ranges of each type FOR UPDATE (voidTx.Sequences), the lock every
// create of the type takes to number a document.
func (db *DB) InVoidTx(ctx context.Context, fn func(sello.VoidTx, time.Time) error) error {
	return db.inTx(ctx, func(tx pgx.Tx) error { return fn(voidTx{documentTx{db: db, tx: tx}}, db.now()) })
}

// voidTx is sello.VoidTx over one of the store's transactions: numbering's
// statements (Sequences, SetSequenceNext, VoidOf) and the void's own.
type voidTx struct{ documentTx }

// VoidOf implements sello.VoidLookup. In a create (t.found not nil) it
// also asks whether a document has the number, which the create asks
// next, in the same round trip.
func (t documentTx) VoidOf(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType, n int64) (string, int64, error) {
	const voidSQL = `
		SELECT void_id, range_to FROM void_ranges
		WHERE tenant_id = $1 AND environment = $2 AND type = $3 AND range_from <= $4 AND range_to >= $4
		ORDER BY range_to DESC LIMIT 1`
	var id string
	var through int64
	if t.found == nil {
		err := t.tx.QueryRow(ctx, voidSQL, tenantID, env, typ, n).Scan(&id, &through)
		if isNoRows(err) {
			return "", 0, nil
		}
		return id, through, dbError(err, "find void of number")
	}
	encf := sello.ENCF{Type: typ, Number: n}.String()
	var b pgx.Batch
	b.Queue(voidSQL, tenantID, env, typ, n)
	b.Queue(documentIDByENCFSQL, tenantID, env, encf)
	b.Queue(hasEndpointsSQL, tenantID, env)
	br := t.tx.SendBatch(ctx, &b)
	err := br.QueryRow().Scan(&id, &through)
	if isNoRows(err) {
		err = nil
	}
	if err != nil {
		br.Close()
		return "", 0, dbError(err, "find void of number")
	}
	var doc string
	err = br.QueryRow().Scan(&doc)
	if isNoRows(err) {
		err = nil
	}
	var endpoints bool
	if err == nil {
		err = br.QueryRow().Scan(&endpoints)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, dbError(err, "find document by e-ncf")
	}
	*t.found = foundENCF{tenantID: tenantID, env: env, encf: encf, id: doc, ok: true, endpoints: endpoints, read: true}
	return id, through, nil
}

// hasEndpointsSQL tells whether tenant $1 has a webhook endpoint an event
// in environment $2 would fan out to (eventEndpointsSQL's).
const hasEndpointsSQL = `SELECT EXISTS (SELECT 1 FROM webhook_endpoints
	WHERE tenant_id = $1 AND environment = $2 AND status IN ('active', 'paused'))`

// FindVoidByKey implements sello.VoidTx.
func (t voidTx) FindVoidByKey(ctx context.Context, tenantID string, env sello.Environment, key string) (*sello.Void, error) {
	v, err := findVoid(ctx, t.tx, `idempotency_key = $3`, tenantID, env, key)
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
		WHERE tenant_id = $1 AND environment = $2 AND type = $3 AND encf >= $4 AND encf <= $5
		ORDER BY encf LIMIT $6`,
		tenantID, env, typ, sello.ENCF{Type: typ, Number: from}.String(), sello.ENCF{Type: typ, Number: to}.String(), limit)
}

// VoidedRanges implements sello.VoidTx.
func (t voidTx) VoidedRanges(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType, from, to int64) ([]sello.VoidedRange, error) {
	rows, err := t.tx.Query(ctx, `
		SELECT r.void_id, v.state, r.type, r.range_from, r.range_to
		FROM void_ranges r JOIN voids v ON v.id = r.void_id
		WHERE r.tenant_id = $1 AND r.environment = $2 AND r.type = $3 AND r.range_from <= $4 AND r.range_to >= $5
		ORDER BY r.range_from, r.void_id`, tenantID, env, typ, to, from)
	if err != nil {
		return nil, dbError(err, "find voided ranges")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sello.VoidedRange, error) {
		var v sello.VoidedRange
		err := r.Scan(&v.VoidID, &v.State, &v.Type, &v.From, &v.To)
		return v, err
	})
	return out, dbError(err, "find voided ranges")
}

// InsertVoid implements sello.VoidTx.
func (t voidTx) InsertVoid(ctx context.Context, v *sello.Void) error {
	var key *string
	if v.IdempotencyKey != "" {
		key = &v.IdempotencyKey
	}
	_, err := t.tx.Exec(ctx, `
		INSERT INTO voids (id, tenant_id, environment, state, idempotency_key, request_hash, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		v.ID, v.TenantID, v.Environment, v.State, key, v.RequestHash, v.CreatedAt, v.UpdatedAt)
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", v.TenantID).WithErr(err)
	case kindUnique:
		return sello.Errorf(sello.CodeConflict, "Idempotency-Key %s is already used.", v.IdempotencyKey).WithErr(err)
	}
	if err != nil {
		return dbError(err, "insert void")
	}
	rows := make([][]any, len(v.Ranges))
	for i, r := range v.Ranges {
		rows[i] = []any{v.ID, v.TenantID, string(v.Environment), string(r.Type), r.From, r.To}
	}
	_, err = t.tx.CopyFrom(ctx, pgx.Identifier{"void_ranges"},
		[]string{"void_id", "tenant_id", "environment", "type", "range_from", "range_to"}, pgx.CopyFromRows(rows))
	return dbError(err, "insert void ranges")
}

const voidColumns = `id, tenant_id, environment, state, dgii, failure_reason, anecf, idempotency_key, request_hash, created_at, updated_at`

// findVoid reads the tenant's void in env matching where ($3 is arg), with
// its ranges. Returns NOT_FOUND.
func findVoid(ctx context.Context, q querier, where, tenantID string, env sello.Environment, arg any) (*sello.Void, error) {
	v, err := scanVoid(q.QueryRow(ctx, `SELECT `+voidColumns+` FROM voids WHERE tenant_id = $1 AND environment = $2 AND `+where,
		tenantID, env, arg))
	if isNoRows(err) {
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
	rows, err := q.Query(ctx, `
		SELECT void_id, type, range_from, range_to FROM void_ranges
		WHERE tenant_id = $1 AND void_id = ANY($2)`, voids[0].TenantID, ids)
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

func scanVoid(r pgx.Row) (*sello.Void, error) {
	var v sello.Void
	var dgii []byte
	var key *string
	if err := r.Scan(&v.ID, &v.TenantID, &v.Environment, &v.State, &dgii, &v.FailureReason, &v.ANECF, &key, &v.RequestHash,
		&v.CreatedAt, &v.UpdatedAt); err != nil {
		return nil, err
	}
	if dgii != nil {
		v.DGII = &sello.DGIIResult{}
		if err := json.Unmarshal(dgii, v.DGII); err != nil {
			return nil, fmt.Errorf("decode void dgii: %w", err)
		}
	}
	if key != nil {
		v.IdempotencyKey = *key
	}
	v.CreatedAt, v.UpdatedAt = utc(v.CreatedAt), utc(v.UpdatedAt)
	return &v, nil
}

// FindVoid implements sello.VoidStore. Returns NOT_FOUND.
func (db *DB) FindVoid(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.Void, error) {
	return findVoid(ctx, db.pool, `id = $3`, tenantID, env, id)
}

// ListVoids implements sello.VoidStore: newest first, keyset pagination on
// (created_at, id). Returns INVALID_REQUEST for a malformed cursor.
func (db *DB) ListVoids(ctx context.Context, tenantID string, env sello.Environment, f sello.VoidFilter) ([]*sello.Void, string, error) {
	limit := f.PageLimit()
	q := `SELECT ` + voidColumns + ` FROM voids WHERE tenant_id = $1 AND environment = $2`
	args := []any{tenantID, env}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (created_at, id) < ($3, $4)`
		args = append(args, at, id)
	}
	q += fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, limit+1)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, "", dbError(err, "list voids")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Void, error) { return scanVoid(r) })
	if err != nil {
		return nil, "", dbError(err, "list voids")
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = sello.FormatCursor(out[limit-1].CreatedAt, out[limit-1].ID)
	}
	for _, v := range out {
		v.ANECF = nil
	}
	return out, next, loadVoidRanges(ctx, db.pool, out)
}

// RecordVoidOutcome implements sello.VoidStore: the outcome and its event
// in one transaction, the void's row locked. Returns NOT_FOUND or CONFLICT.
func (db *DB) RecordVoidOutcome(ctx context.Context, tenantID string, env sello.Environment, id string, out sello.VoidOutcome) (*sello.Void, error) {
	var v *sello.Void
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if v, err = findVoid(ctx, tx, `id = $3 FOR UPDATE`, tenantID, env, id); err != nil {
			return err
		}
		ev, err := v.Apply(out, db.now())
		if err != nil {
			return err
		}
		var dgii []byte
		if v.DGII != nil {
			if dgii, err = json.Marshal(v.DGII); err != nil {
				return fmt.Errorf("encode void dgii: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `
			UPDATE voids SET state = $1, dgii = $2, failure_reason = $3, anecf = $4, updated_at = $5
			WHERE tenant_id = $6 AND id = $7`,
			v.State, dgii, v.FailureReason, v.ANECF, v.UpdatedAt, tenantID, id); err != nil {
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
