package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sello-do/sello"
)

// CreateDocument implements sello.DocumentStore: in one IMMEDIATE
// transaction it claims the idempotency key, takes the e-NCF, calls
// nd.Prepare and writes the document, its first status, its ecf.queued event and its sello.DocumentJob. Returns INVALID_REQUEST, IDEMPOTENCY_KEY_REUSED, SEQUENCE_EXHAUSTED,
// VALIDATION_FAILED, CONFLICT, NOT_FOUND (no such tenant) or Prepare's error.
func (db *DB) CreateDocument(ctx context.Context, nd sello.NewDocument) (*sello.Document, bool, error) {
	explicit, err := nd.Check()
	if err != nil {
		return nil, false, err
	}
	var doc *sello.Document
	var replayed bool
	err = db.inTx(ctx, func(tx querier) error {
		now := db.now() // under the write lock, so creation times follow commit order
		if nd.IdempotencyKey != "" {
			prev, err := claimIdempotencyKey(ctx, tx, nd, now)
			if err != nil || prev != nil {
				doc, replayed = prev, true
				return err
			}
		}
		var n sello.ENCF
		var seq *sello.Sequence
		var err error
		if explicit != nil {
			n = *explicit
			seq, err = takeNumber(ctx, tx, nd, n, now)
		} else {
			n, seq, err = nextNumber(ctx, tx, nd, now)
		}
		if err != nil {
			return err
		}
		if doc, err = nd.Build(n, seq, now); err != nil {
			return err
		}
		if err := db.insertDocument(ctx, tx, doc, nd); err != nil {
			return err
		}
		return db.insertJobs(ctx, tx, []sello.Job{sello.NewDocumentJob(doc)})
	})
	if err != nil {
		return nil, false, err
	}
	return doc, replayed, nil
}

// claimIdempotencyKey claims nd's key for this transaction, taking over a
// key older than the window. If the key is live it returns the document it
// created (a replay) or IDEMPOTENCY_KEY_REUSED.
func claimIdempotencyKey(ctx context.Context, tx querier, nd sello.NewDocument, now time.Time) (*sello.Document, error) {
	var claimed int
	err := tx.queryRow(ctx, `
		INSERT INTO idempotency_keys (tenant_id, environment, key, request_hash, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (tenant_id, environment, key) DO UPDATE
			SET request_hash = excluded.request_hash, document_id = NULL, snapshot = NULL, created_at = excluded.created_at
			WHERE idempotency_keys.created_at <= ?
		RETURNING 1`,
		nd.TenantID, nd.Environment, nd.IdempotencyKey, nd.RequestHash, formatTime(now),
		formatTime(now.Add(-sello.IdempotencyWindow))).Scan(&claimed)
	if err == nil {
		return nil, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, dbError(err, "claim idempotency key")
	}
	var hash []byte
	var snapshot sql.NullString
	var payload sql.NullString
	err = tx.queryRow(ctx, `
		SELECT k.request_hash, k.snapshot, d.payload
		FROM idempotency_keys k LEFT JOIN documents d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
		WHERE k.tenant_id = ? AND k.environment = ? AND k.key = ?`,
		nd.TenantID, nd.Environment, nd.IdempotencyKey).Scan(&hash, &snapshot, &payload)
	if err != nil {
		return nil, dbError(err, "find idempotency key")
	}
	if !bytes.Equal(hash, nd.RequestHash) {
		return nil, sello.Errorf(sello.CodeIdempotencyKeyReused, "Idempotency-Key %q was already used with a different request.", nd.IdempotencyKey)
	} else if !snapshot.Valid {
		return nil, fmt.Errorf("idempotency key %q has no snapshot", nd.IdempotencyKey)
	}
	var doc sello.Document
	if err := json.Unmarshal([]byte(snapshot.String), &doc); err != nil {
		return nil, fmt.Errorf("decode idempotency snapshot: %w", err)
	}
	if payload.Valid {
		doc.Payload = json.RawMessage(payload.String)
	}
	return &doc, nil
}

// typeSequences returns the tenant's ranges of nd.Type in its environment,
// oldest (lowest) first.
func typeSequences(ctx context.Context, tx querier, nd sello.NewDocument) ([]*sello.Sequence, error) {
	rows, err := tx.query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = ? AND environment = ? AND type = ?
		ORDER BY range_from`, nd.TenantID, nd.Environment, nd.Type)
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

// nextNumber takes the next unused number of the oldest usable range of
// nd.Type, skipping numbers already taken explicitly. Returns
// SEQUENCE_EXHAUSTED.
func nextNumber(ctx context.Context, tx querier, nd sello.NewDocument, now time.Time) (sello.ENCF, *sello.Sequence, error) {
	seqs, err := typeSequences(ctx, tx, nd)
	if err != nil {
		return sello.ENCF{}, nil, err
	}
	before := make([]int64, len(seqs))
	for i, s := range seqs {
		before[i] = s.Next
	}
	for {
		seq, err := sello.NextSequence(seqs, nd.Environment, nd.Type, now)
		if err != nil {
			return sello.ENCF{}, nil, err
		}
		n := sello.ENCF{Type: nd.Type, Number: seq.Next}
		seq.Next++
		if id, err := documentIDByENCF(ctx, tx, nd, n.String()); err != nil {
			return sello.ENCF{}, nil, err
		} else if id != "" {
			continue // taken explicitly
		}
		for i, s := range seqs {
			if s.Next == before[i] {
				continue
			}
			if _, err := tx.exec(ctx, `UPDATE sequences SET next = ? WHERE tenant_id = ? AND id = ?`,
				s.Next, nd.TenantID, s.ID); err != nil {
				return sello.ENCF{}, nil, dbError(err, "advance sequence")
			}
		}
		return n, seq, nil
	}
}

// takeNumber checks an explicit e-NCF: unused, inside an unexpired range.
// Returns CONFLICT naming the document that has it, or VALIDATION_FAILED.
func takeNumber(ctx context.Context, tx querier, nd sello.NewDocument, n sello.ENCF, now time.Time) (*sello.Sequence, error) {
	seqs, err := typeSequences(ctx, tx, nd)
	if err != nil {
		return nil, err
	}
	if id, err := documentIDByENCF(ctx, tx, nd, n.String()); err != nil {
		return nil, err
	} else if id != "" {
		return nil, sello.Errorf(sello.CodeConflict, "e-NCF %s is already used by document %s.", n, id)
	}
	seq, err := sello.SequenceOf(seqs, nd.Environment, n, now)
	if err != nil {
		return nil, err
	}
	if seq.Next == n.Number {
		seq.Next++
		if _, err := tx.exec(ctx, `UPDATE sequences SET next = ? WHERE tenant_id = ? AND id = ?`,
			seq.Next, nd.TenantID, seq.ID); err != nil {
			return nil, dbError(err, "advance sequence")
		}
	}
	return seq, nil
}

// documentIDByENCF returns the id of the document with that e-NCF, or "".
func documentIDByENCF(ctx context.Context, tx querier, nd sello.NewDocument, encf string) (string, error) {
	var id string
	err := tx.queryRow(ctx, `SELECT id FROM documents WHERE tenant_id = ? AND environment = ? AND encf = ?`,
		nd.TenantID, nd.Environment, encf).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, dbError(err, "find document by e-ncf")
}

// insertDocument writes doc, its first status, its ecf.queued event and,
// with an idempotency key, the snapshot a replay returns.
func (db *DB) insertDocument(ctx context.Context, tx querier, doc *sello.Document, nd sello.NewDocument) error {
	dgii, err := jsonOrNull(doc.DGII)
	if err != nil {
		return err
	}
	approval, err := jsonOrNull(doc.CommercialApproval)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `
		INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
			qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
			failure_reason, payload, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		doc.ID, doc.TenantID, doc.Environment, doc.Type, doc.ENCF, doc.Status, doc.TrackID, doc.SecurityCode,
		formatTimePtr(doc.SignedAt), doc.QRURL, doc.Total, doc.BuyerRNC, formatDate(doc.IssueDate), dgii,
		doc.Delivery.Status, doc.Delivery.Code, approval, doc.FailureReason, string(doc.Payload),
		formatTime(doc.CreatedAt), formatTime(doc.UpdatedAt))
	switch errorKind(err) {
	case kindForeignKey:
		return &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + doc.TenantID + "\" not found.", Err: err}
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "e-NCF " + doc.ENCF + " is already used.", Err: err}
	}
	if err != nil {
		return dbError(err, "insert document")
	}
	if _, err := tx.exec(ctx, `
		INSERT INTO document_status_history (document_id, tenant_id, status, at, reason) VALUES (?, ?, ?, ?, '')`,
		doc.ID, doc.TenantID, doc.Status, formatTime(doc.CreatedAt)); err != nil {
		return dbError(err, "insert document status")
	}
	ev := sello.NewDocumentEvent(sello.EventECFQueued, doc, "info", "e-CF "+doc.ENCF+" queued for signing.", doc.CreatedAt)
	if err := db.insertEvent(ctx, tx, ev); err != nil {
		return err
	}
	if nd.IdempotencyKey == "" {
		return nil
	}
	snapshot, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode idempotency snapshot: %w", err)
	}
	_, err = tx.exec(ctx, `
		UPDATE idempotency_keys SET document_id = ?, snapshot = ?
		WHERE tenant_id = ? AND environment = ? AND key = ?`,
		doc.ID, string(snapshot), doc.TenantID, doc.Environment, nd.IdempotencyKey)
	return dbError(err, "store idempotency snapshot")
}

// jsonOrNull encodes v, or returns nil (NULL) for a nil pointer.
func jsonOrNull[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return string(b), nil
}

const documentColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
	failure_reason, payload, created_at, updated_at`

// summaryColumns are documentColumns without the payload, which only
// signing and the printed representation read: a status read of a thousand
// documents does not copy their items.
const summaryColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
	failure_reason, '', created_at, updated_at`

// FindDocument implements sello.DocumentStore. Returns NOT_FOUND.
func (db *DB) FindDocument(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(db.q().queryRow(ctx, `
		SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND encf = ?`, tenantID, env, encf))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "Document %s not found in %s.", encf, env)
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
	limit := f.Limit
	if limit <= 0 {
		limit = sello.DefaultPageSize
	}
	limit = min(limit, sello.MaxPageSize)
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
			return nil, "", err
		}
		q += ` AND (created_at, id) < (?, ?)`
		args = append(args, formatTime(at), id)
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ?`
	args = append(args, limit+1)
	docs, err := db.queryDocuments(ctx, "list documents", q, args...)
	if err != nil {
		return nil, "", err
	}
	if len(docs) <= limit {
		return docs, "", nil
	}
	docs = docs[:limit]
	last := docs[limit-1]
	return docs, sello.FormatCursor(last.CreatedAt, last.ID), nil
}

func (db *DB) queryDocuments(ctx context.Context, op, query string, args ...any) ([]*sello.Document, error) {
	rows, err := db.q().query(ctx, query, args...)
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
		&signedAt, &d.QRURL, &d.Total, &d.BuyerRNC, &issueDate, &dgii, &d.Delivery.Status, &d.Delivery.Code,
		&approval, &d.FailureReason, &payload, &created, &updated); err != nil {
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
