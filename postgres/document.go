package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// CreateDocument implements sello.DocumentStore: in one transaction it
// claims the idempotency key, locks the tenant's ranges of the type, takes
// the e-NCF, calls nd.Prepare and writes the document, its first status,
// its ecf.queued event and its sello.DocumentJob. Returns INVALID_REQUEST, IDEMPOTENCY_KEY_REUSED,
// SEQUENCE_EXHAUSTED, VALIDATION_FAILED, CONFLICT, NOT_FOUND (no such
// tenant) or Prepare's error.
func (db *DB) CreateDocument(ctx context.Context, nd sello.NewDocument) (*sello.Document, bool, error) {
	explicit, err := nd.Check()
	if err != nil {
		return nil, false, err
	}
	var doc *sello.Document
	var replayed bool
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		now := db.now()
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
// key older than the window. A concurrent create with the same key waits
// here until the first commits or rolls back. If the key is live it returns
// the document it created (a replay) or IDEMPOTENCY_KEY_REUSED.
func claimIdempotencyKey(ctx context.Context, tx pgx.Tx, nd sello.NewDocument, now time.Time) (*sello.Document, error) {
	var claimed int
	err := tx.QueryRow(ctx, `
		INSERT INTO idempotency_keys AS k (tenant_id, environment, key, request_hash, created_at)
		VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (tenant_id, environment, key) DO UPDATE
			SET request_hash = excluded.request_hash, document_id = NULL, snapshot = NULL, created_at = excluded.created_at
			WHERE k.created_at <= $6
		RETURNING 1`,
		nd.TenantID, nd.Environment, nd.IdempotencyKey, nd.RequestHash, now,
		now.Add(-sello.IdempotencyWindow)).Scan(&claimed)
	if err == nil {
		return nil, nil
	} else if !isNoRows(err) {
		return nil, dbError(err, "claim idempotency key")
	}
	var hash, snapshot []byte
	var payload *string
	err = tx.QueryRow(ctx, `
		SELECT k.request_hash, k.snapshot, d.payload::text
		FROM idempotency_keys k LEFT JOIN documents d ON d.tenant_id = k.tenant_id AND d.id = k.document_id
		WHERE k.tenant_id = $1 AND k.environment = $2 AND k.key = $3`,
		nd.TenantID, nd.Environment, nd.IdempotencyKey).Scan(&hash, &snapshot, &payload)
	if err != nil {
		return nil, dbError(err, "find idempotency key")
	}
	if !bytes.Equal(hash, nd.RequestHash) {
		return nil, sello.Errorf(sello.CodeIdempotencyKeyReused, "Idempotency-Key %q was already used with a different request.", nd.IdempotencyKey)
	} else if snapshot == nil {
		return nil, fmt.Errorf("idempotency key %q has no snapshot", nd.IdempotencyKey)
	}
	var doc sello.Document
	if err := json.Unmarshal(snapshot, &doc); err != nil {
		return nil, fmt.Errorf("decode idempotency snapshot: %w", err)
	}
	if payload != nil {
		doc.Payload = json.RawMessage(*payload)
	}
	return &doc, nil
}

// lockSequences locks and returns the tenant's ranges of nd.Type in its
// environment, oldest (lowest) first. Every create of that type waits here
// for the one before it, so numbers are never shared or skipped.
func lockSequences(ctx context.Context, tx pgx.Tx, nd sello.NewDocument) ([]*sello.Sequence, error) {
	rows, err := tx.Query(ctx, `
		SELECT `+sequenceColumns+` FROM sequences
		WHERE tenant_id = $1 AND environment = $2 AND type = $3
		ORDER BY range_from
		FOR UPDATE`, nd.TenantID, nd.Environment, nd.Type)
	if err != nil {
		return nil, dbError(err, "lock sequences")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Sequence, error) { return scanSequence(r) })
	return out, dbError(err, "lock sequences")
}

// nextNumber takes the next unused number of the oldest usable range of
// nd.Type, skipping numbers already taken explicitly. Returns
// SEQUENCE_EXHAUSTED.
func nextNumber(ctx context.Context, tx pgx.Tx, nd sello.NewDocument, now time.Time) (sello.ENCF, *sello.Sequence, error) {
	seqs, err := lockSequences(ctx, tx, nd)
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
			if _, err := tx.Exec(ctx, `UPDATE sequences SET next = $1 WHERE tenant_id = $2 AND id = $3`,
				s.Next, nd.TenantID, s.ID); err != nil {
				return sello.ENCF{}, nil, dbError(err, "advance sequence")
			}
		}
		return n, seq, nil
	}
}

// takeNumber checks an explicit e-NCF: unused, inside an unexpired range.
// Returns CONFLICT naming the document that has it, or VALIDATION_FAILED.
func takeNumber(ctx context.Context, tx pgx.Tx, nd sello.NewDocument, n sello.ENCF, now time.Time) (*sello.Sequence, error) {
	seqs, err := lockSequences(ctx, tx, nd)
	if err != nil {
		return nil, err
	}
	// Checked after the lock, so a concurrent create of the same number
	// has committed and is seen.
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
		if _, err := tx.Exec(ctx, `UPDATE sequences SET next = $1 WHERE tenant_id = $2 AND id = $3`,
			seq.Next, nd.TenantID, seq.ID); err != nil {
			return nil, dbError(err, "advance sequence")
		}
	}
	return seq, nil
}

// documentIDByENCF returns the id of the document with that e-NCF, or "".
func documentIDByENCF(ctx context.Context, tx pgx.Tx, nd sello.NewDocument, encf string) (string, error) {
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM documents WHERE tenant_id = $1 AND environment = $2 AND encf = $3`,
		nd.TenantID, nd.Environment, encf).Scan(&id)
	if isNoRows(err) {
		return "", nil
	}
	return id, dbError(err, "find document by e-ncf")
}

// insertDocument writes doc, its first status, its ecf.queued event and,
// with an idempotency key, the snapshot a replay returns.
func (db *DB) insertDocument(ctx context.Context, tx pgx.Tx, doc *sello.Document, nd sello.NewDocument) error {
	dgii, err := jsonOrNull(doc.DGII)
	if err != nil {
		return err
	}
	approval, err := jsonOrNull(doc.CommercialApproval)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO documents (id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
			qr_url, total, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
			failure_reason, payload, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)`,
		doc.ID, doc.TenantID, doc.Environment, doc.Type, doc.ENCF, doc.Status, doc.TrackID, doc.SecurityCode,
		doc.SignedAt, doc.QRURL, doc.Total, doc.BuyerRNC, dateValue(doc.IssueDate), dgii,
		doc.Delivery.Status, doc.Delivery.Code, approval, doc.FailureReason, string(doc.Payload),
		doc.CreatedAt, doc.UpdatedAt)
	switch errorKind(err) {
	case kindForeignKey:
		return &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + doc.TenantID + "\" not found.", Err: err}
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "e-NCF " + doc.ENCF + " is already used.", Err: err}
	}
	if err != nil {
		return dbError(err, "insert document")
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO document_status_history (document_id, tenant_id, status, at, reason) VALUES ($1, $2, $3, $4, '')`,
		doc.ID, doc.TenantID, doc.Status, doc.CreatedAt); err != nil {
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
	_, err = tx.Exec(ctx, `
		UPDATE idempotency_keys SET document_id = $1, snapshot = $2
		WHERE tenant_id = $3 AND environment = $4 AND key = $5`,
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

// documentColumns reads total and payload as text: numeric keeps its two
// decimals, json its bytes.
const documentColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total::text, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
	failure_reason, payload::text, created_at, updated_at`

// summaryColumns are documentColumns without the payload, which only
// signing and the printed representation read: a status read of a thousand
// documents does not copy their items.
const summaryColumns = `id, tenant_id, environment, type, encf, status, track_id, security_code, signed_at,
	qr_url, total::text, buyer_rnc, issue_date, dgii, delivery_status, delivery_code, commercial_approval,
	failure_reason, '', created_at, updated_at`

// FindDocument implements sello.DocumentStore. Returns NOT_FOUND.
func (db *DB) FindDocument(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(db.pool.QueryRow(ctx, `
		SELECT `+documentColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND encf = $3`, tenantID, env, encf))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "Document %s not found in %s.", encf, env)
	}
	return doc, dbError(err, "find document")
}

// FindDocumentsByENCF implements sello.DocumentStore.
func (db *DB) FindDocumentsByENCF(ctx context.Context, tenantID string, env sello.Environment, encfs []string) ([]*sello.Document, error) {
	if len(encfs) == 0 {
		return nil, nil
	}
	return db.queryDocuments(ctx, "find documents by e-ncf", `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND encf = ANY($3)`, tenantID, env, encfs)
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
	q := `SELECT ` + summaryColumns + ` FROM documents WHERE tenant_id = $1 AND environment = $2`
	args := []any{tenantID, env}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		q += ` AND status = ` + arg(f.Status)
	}
	if f.Type != "" {
		q += ` AND type = ` + arg(f.Type)
	}
	if f.CreatedFrom != nil {
		q += ` AND created_at >= ` + arg(f.CreatedFrom.UTC().Truncate(time.Microsecond))
	}
	if f.CreatedTo != nil {
		q += ` AND created_at < ` + arg(f.CreatedTo.UTC().Truncate(time.Microsecond))
	}
	if f.Cursor != "" {
		at, id, err := sello.ParseCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		q += ` AND (created_at, id) < (` + arg(at) + `, ` + arg(id) + `)`
	}
	q += ` ORDER BY created_at DESC, id DESC LIMIT ` + arg(limit+1)
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
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, dbError(err, op)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Document, error) { return scanDocument(r) })
	return out, dbError(err, op)
}

func scanDocument(r pgx.Row) (*sello.Document, error) {
	var d sello.Document
	var issueDate time.Time
	var dgii, approval []byte
	var payload string
	if err := r.Scan(&d.ID, &d.TenantID, &d.Environment, &d.Type, &d.ENCF, &d.Status, &d.TrackID, &d.SecurityCode,
		&d.SignedAt, &d.QRURL, &d.Total, &d.BuyerRNC, &issueDate, &dgii, &d.Delivery.Status, &d.Delivery.Code,
		&approval, &d.FailureReason, &payload, &d.CreatedAt, &d.UpdatedAt); err != nil {
		return nil, err
	}
	if payload != "" {
		d.Payload = json.RawMessage(payload)
	}
	d.IssueDate = sello.DateOf(issueDate)
	d.SignedAt, d.CreatedAt, d.UpdatedAt = utcPtr(d.SignedAt), utc(d.CreatedAt), utc(d.UpdatedAt)
	if dgii != nil {
		d.DGII = new(sello.DGIIResult)
		if err := json.Unmarshal(dgii, d.DGII); err != nil {
			return nil, fmt.Errorf("decode dgii result: %w", err)
		}
	}
	if approval != nil {
		d.CommercialApproval = new(sello.CommercialApproval)
		if err := json.Unmarshal(approval, d.CommercialApproval); err != nil {
			return nil, fmt.Errorf("decode commercial approval: %w", err)
		}
	}
	return &d, nil
}
