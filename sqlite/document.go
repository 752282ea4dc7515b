package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateDocument implements sello.DocumentStore with sello.CreateDocument,
// in one IMMEDIATE transaction.
func (db *DB) CreateDocument(ctx context.Context, d sello.DocumentDraft) (*sello.Document, bool, error) {
	return sello.CreateDocument(ctx, d, func(fn func(sello.DocumentTx, time.Time) error) error {
		return db.inTx(ctx, func(tx querier) error {
			// now is read under the write lock, so creation times follow
			// commit order.
			return fn(documentTx{db: db, tx: tx}, db.now())
		})
	})
}

// documentTx is sello.DocumentTx over one of the store's transactions.
type documentTx struct {
	db *DB
	tx querier
}

// ClaimIdempotencyKey implements sello.DocumentTx. SQLite has one writer:
// no other transaction holds the key meanwhile.
func (t documentTx) ClaimIdempotencyKey(ctx context.Context, d sello.DocumentDraft, now, expired time.Time) (bool, sello.IdempotencyRecord, error) {
	var claimed int
	err := t.tx.queryRow(ctx, `
		INSERT INTO idempotency_keys (tenant_id, environment, key, request_hash, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, environment, key) DO UPDATE
			SET request_hash = excluded.request_hash, document_id = NULL, snapshot = NULL, created_at = excluded.created_at
			WHERE idempotency_keys.created_at <= ?
		RETURNING 1`,
		d.TenantID, d.Environment, d.IdempotencyKey, d.RequestHash, formatTime(now), formatTime(expired)).Scan(&claimed)
	if err == nil {
		return true, sello.IdempotencyRecord{}, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return false, sello.IdempotencyRecord{}, dbError(err, "claim idempotency key")
	}
	var held sello.IdempotencyRecord
	var snapshot, payload sql.NullString
	err = t.tx.queryRow(ctx, `
		SELECT k.request_hash, k.snapshot, d.payload
		FROM idempotency_keys k LEFT JOIN documents d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
		WHERE k.tenant_id = ? AND k.environment = ? AND k.key = ?`,
		d.TenantID, d.Environment, d.IdempotencyKey).Scan(&held.RequestHash, &snapshot, &payload)
	if err != nil {
		return false, held, dbError(err, "find idempotency key")
	}
	if snapshot.Valid {
		held.Snapshot = []byte(snapshot.String)
	}
	if payload.Valid {
		held.Payload = []byte(payload.String)
	}
	return false, held, nil
}

// Sequences implements sello.DocumentTx. SQLite has one writer: nothing
// needs locking.
func (t documentTx) Sequences(ctx context.Context, tenantID string, env sello.Environment, typ sello.DocumentType) ([]*sello.Sequence, error) {
	rows, err := t.tx.query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = ? AND environment = ? AND type = ?
		ORDER BY range_from`, tenantID, env, typ)
	if err != nil {
		return nil, dbError(err, "find sequences")
	}
	defer rows.Close()
	var out []*sello.Sequence
	for rows.Next() {
		s, err := scanSequence(rows)
		if err != nil {
			return nil, dbError(err, "find sequences")
		}
		out = append(out, s)
	}
	return out, dbError(rows.Err(), "find sequences")
}

// DocumentIDByENCF implements sello.DocumentTx.
func (t documentTx) DocumentIDByENCF(ctx context.Context, tenantID string, env sello.Environment, encf string) (string, error) {
	var id string
	err := t.tx.queryRow(ctx, `SELECT id FROM documents WHERE tenant_id = ? AND environment = ? AND encf = ?`,
		tenantID, env, encf).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, dbError(err, "find document by e-ncf")
}

// SetSequenceNext implements sello.DocumentTx.
func (t documentTx) SetSequenceNext(ctx context.Context, seq *sello.Sequence) error {
	_, err := t.tx.exec(ctx, `UPDATE sequences SET next = ? WHERE tenant_id = ? AND id = ?`, seq.Next, seq.TenantID, seq.ID)
	return dbError(err, "advance sequence")
}

// InsertDocument implements sello.DocumentTx.
func (t documentTx) InsertDocument(ctx context.Context, doc *sello.Document) error {
	dgii, err := sqlval.JSONOrNull(doc.DGII)
	if err != nil {
		return err
	}
	approval, err := sqlval.JSONOrNull(doc.CommercialApproval)
	if err != nil {
		return err
	}
	_, err = t.tx.exec(ctx, `
		INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
			qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
			failure_reason, payload, created_at, updated_at, itbis)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		doc.ID, doc.TenantID, doc.Environment, doc.Type, doc.ENCF, doc.Status, doc.TrackID, doc.SecurityCode,
		formatTimePtr(doc.SignedAt), doc.QRURL, doc.Total, doc.BuyerRNC, formatDate(doc.IssueDate), dgii,
		doc.Delivery.Status, doc.Delivery.Code, approval, doc.FailureReason, string(doc.Payload),
		formatTime(doc.CreatedAt), formatTime(doc.UpdatedAt), cmp.Or(doc.ITBIS, "0.00"))
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", doc.TenantID).WithErr(err)
	case kindUnique:
		return sello.Errorf(sello.CodeConflict, "e-NCF %s is already used.", doc.ENCF).WithErr(err)
	}
	if err != nil {
		return dbError(err, "insert document")
	}
	_, err = t.tx.exec(ctx, `
		INSERT INTO document_status_history (document_id, tenant_id, status, at, reason) VALUES (?, ?, ?, ?, '')`,
		doc.ID, doc.TenantID, doc.Status, formatTime(doc.CreatedAt))
	return dbError(err, "insert document status")
}

// InsertEvent implements sello.DocumentTx.
func (t documentTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}

// SaveIdempotencySnapshot implements sello.DocumentTx.
func (t documentTx) SaveIdempotencySnapshot(ctx context.Context, d sello.DocumentDraft, doc *sello.Document, snapshot []byte) error {
	_, err := t.tx.exec(ctx, `
		UPDATE idempotency_keys SET document_id = ?, snapshot = ?
		WHERE tenant_id = ? AND environment = ? AND key = ?`,
		doc.ID, string(snapshot), d.TenantID, d.Environment, d.IdempotencyKey)
	return dbError(err, "store idempotency snapshot")
}

// InsertJobs implements sello.DocumentTx.
func (t documentTx) InsertJobs(ctx context.Context, jobs []sello.Job) error {
	return t.db.insertJobs(ctx, t.tx, jobs)
}

const documentColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
	failure_reason, payload, created_at, updated_at, contingency, itbis`

// summaryColumns are documentColumns without the payload, which only
// signing and the printed representation read: a status read of a thousand
// documents does not copy their items.
const summaryColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, delivery_reason, commercial_approval,
	failure_reason, '', created_at, updated_at, contingency, itbis`

// FindDocument implements sello.DocumentStore. Returns NOT_FOUND.
func (db *DB) FindDocument(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(db.q().queryRow(ctx, `
		SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND encf = ?`, tenantID, env, encf))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.DocumentNotFound(encf, env)
	}
	return doc, dbError(err, "find document")
}

// FindDocumentsByENCF implements sello.DocumentStore.
func (db *DB) FindDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, encfs []string) ([]*sello.Document, error) {
	if len(encfs) == 0 {
		return nil, nil
	}
	// The e-NCFs go in as one JSON array, so the SQL is the same for any
	// number of them and its statement is prepared once.
	list, err := json.Marshal(encfs)
	if err != nil {
		return nil, fmt.Errorf("encode e-ncfs: %w", err)
	}
	return db.queryDocuments(ctx, "find documents by e-ncf", `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND encf IN (SELECT value FROM json_each(?))`,
		tenantID, env, string(list))
}

// ListDocuments implements sello.DocumentStore: newest first, keyset
// pagination on (created_at, id). Returns INVALID_REQUEST for a malformed
// cursor.
func (db *DB) ListDocuments(ctx context.Context, tenantID string, env sello.Environment, f sello.DocumentFilter) ([]*sello.Document, string, error) {
	limit := f.PageSize()
	q, args, err := listDocumentsSQL(tenantID, env, f, limit+1)
	if err != nil {
		return nil, "", err
	}
	docs, err := db.queryDocuments(ctx, "list documents", q, args...)
	if err != nil {
		return nil, "", err
	}
	docs, next := sello.NextDocumentPage(docs, limit)
	return docs, next, nil
}

// listDocumentsSQL is ListDocuments' query of rows documents under f, and
// its arguments. Each filter is an equality or a range of created_at that
// an index of migrations 1 and 24 leads with, after the tenant and the
// environment (the buyer's: documents_tenant_env_buyer_created;
// TestDocumentQueriesUseIndexes). Returns INVALID_REQUEST for a malformed
// cursor.
func listDocumentsSQL(tenantID string, env sello.Environment, f sello.DocumentFilter, rows int) (string, []any, error) {
	q := `SELECT ` + summaryColumns + ` FROM documents WHERE tenant_id = ? AND environment = ?`
	args := []any{tenantID, env}
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, f.Status)
	}
	if f.Type != "" {
		q += ` AND type = ?`
		args = append(args, f.Type)
	}
	if f.BuyerRNC != "" {
		q += ` AND buyer_rnc = ?`
		args = append(args, f.BuyerRNC)
	}
	if f.ENCF != "" {
		q += ` AND encf = ?`
		args = append(args, f.ENCF)
	}
	if f.CreatedFrom != nil {
		q += ` AND created_at >= ?`
		args = append(args, formatTime(f.CreatedFrom.Truncate(time.Microsecond)))
	}
	if f.CreatedTo != nil {
		q += ` AND created_at < ?`
		args = append(args, formatTime(f.CreatedTo.Truncate(time.Microsecond)))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return "", nil, err
		}
		q += ` AND (created_at, id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	return q, append(args, rows), nil
}

func (db *DB) queryDocuments(ctx context.Context, op, query string, args ...any) ([]*sello.Document, error) {
	return queryDocumentsIn(ctx, db.q(), op, query, args...)
}

// queryDocumentsIn reads documents with q, the store's or a transaction's.
func queryDocumentsIn(ctx context.Context, q querier, op, query string, args ...any) ([]*sello.Document, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, op)
	}
	defer rows.Close()
	var out []*sello.Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, dbError(err, op)
		}
		out = append(out, d)
	}
	return out, dbError(rows.Err(), op)
}

func scanDocument(s scanner) (*sello.Document, error) {
	var d sello.Document
	var signedAt, dgii, approval sql.NullString
	var issueDate, payload, created, updated string
	if err := s.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.Status, &d.TrackID, &d.SecurityCode,
		&signedAt, &d.QRURL, &d.Total, &d.BuyerRNC, &issueDate, &dgii, &d.Delivery.Status, &d.Delivery.Code, &d.Delivery.Reason,
		&approval, &d.FailureReason, &payload, &created, &updated, &d.Contingency, &d.ITBIS); err != nil {
		return nil, err
	}
	if payload != "" {
		d.Payload = json.RawMessage(payload)
	}
	var err error
	if d.SignedAt, err = parseTimePtr(signedAt); err != nil {
		return nil, err
	} else if d.IssueDate, err = parseDate(issueDate); err != nil {
		return nil, err
	} else if d.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if d.UpdatedAt, err = parseTime(updated); err != nil {
		return nil, err
	}
	if dgii.Valid {
		d.DGII = new(sello.DGIIResult)
		if err := json.Unmarshal([]byte(dgii.String), d.DGII); err != nil {
			return nil, fmt.Errorf("decode dgii result: %w", err)
		}
	}
	if approval.Valid {
		d.CommercialApproval = new(sello.CommercialApproval)
		if err := json.Unmarshal([]byte(approval.String), d.CommercialApproval); err != nil {
			return nil, fmt.Errorf("decode commercial approval: %w", err)
		}
	}
	return &d, nil
}
