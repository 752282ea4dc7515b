package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// FindDocumentByID implements sello.LifecycleStore. Returns NOT_FOUND.
func (db *DB) FindDocumentByID(ctx context.Context, tenantID string, env sello.Environment, id string) (*sello.Document, error) {
	return findDocumentByID(ctx, db.q(), documentColumns, tenantID, env, id)
}

// findDocumentByID reads a document's columns (documentColumns or
// summaryColumns).
func findDocumentByID(ctx context.Context, q querier, columns, tenantID string, env sello.Environment, id string) (*sello.Document, error) {
	doc, err := scanDocument(q.queryRow(ctx, `
		SELECT `+columns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND id = ?`, tenantID, env, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.DocumentIDNotFound(id, env)
	}
	return doc, dbError(err, "find document by id")
}

// UpdateDocument implements sello.LifecycleStore: in one IMMEDIATE
// transaction (the write lock is the row lock) it checks ch.From, sets the
// change's fields, writes a status-history row, the event and the jobs, and
// returns the document as it is after. Returns INVALID_REQUEST for an
// unknown status, NOT_FOUND, or CONFLICT when the document's status is not
// one of ch.From.
func (db *DB) UpdateDocument(ctx context.Context, tenantID string, env sello.Environment, id string, ch sello.DocumentChange) (*sello.Document, error) {
	if err := ch.Check(); err != nil {
		return nil, err
	}
	dgii, err := sqlval.JSONOrNull(ch.DGII)
	if err != nil {
		return nil, err
	}
	from := "" // ",signed,submitted,": the statuses ch.From allows
	if len(ch.From) > 0 {
		from = "," + strings.Join(statusNames(ch.From), ",") + ","
	}
	deliveryFrom := "" // the same for ch.DeliveryFrom
	if len(ch.DeliveryFrom) > 0 {
		deliveryFrom = "," + strings.Join(ch.DeliveryFrom, ",") + ","
	}
	var delivery [3]any // status, code, reason: NULL keeps the stored ones
	if d := ch.Delivery; d != nil {
		delivery = [3]any{d.Status, d.Code, d.Reason}
	}
	var doc *sello.Document
	err = db.inTx(ctx, func(tx querier) error {
		now := db.now()
		// One statement checks From, sets what ch sets (NULL keeps the
		// stored value: a change never clears a field) and returns the
		// document after; a read follows only when nothing matched.
		var err error
		doc, err = scanDocument(tx.queryRow(ctx, `
			UPDATE documents SET status = coalesce(?, status), failure_reason = coalesce(?, failure_reason),
				security_code = coalesce(?, security_code), signed_at = coalesce(?, signed_at),
				qr_url = coalesce(?, qr_url), track_id = coalesce(?, track_id), dgii = coalesce(?, dgii),
				updated_at = ?, signed_xml = coalesce(?, signed_xml), rfce_xml = coalesce(?, rfce_xml),
				delivery_status = coalesce(?, delivery_status), delivery_code = coalesce(?, delivery_code),
				delivery_reason = coalesce(?, delivery_reason), arecf_xml = coalesce(?, arecf_xml),
				contingency = max(contingency, ?)
			WHERE tenant_id = ? AND environment = ? AND id = ? AND (? = '' OR instr(?, ',' || status || ',') > 0)
				AND (? = '' OR instr(?, ',' || delivery_status || ',') > 0)
			RETURNING `+summaryColumns,
			textOrNull(string(ch.Status)), textOrNull(ch.FailureReason()), textOrNull(ch.SecurityCode), formatTimePtr(sello.StoredTime(ch.SignedAt)),
			textOrNull(ch.QRURL), textOrNull(ch.TrackID), dgii,
			formatTime(now), sqlval.BlobOrNull(ch.SignedXML), sqlval.BlobOrNull(ch.RFCEXML),
			delivery[0], delivery[1], delivery[2], sqlval.BlobOrNull(ch.ARECF), ch.Contingency,
			tenantID, env, id, from, from, deliveryFrom, deliveryFrom))
		if errors.Is(err, sql.ErrNoRows) {
			cur, err := findDocumentByID(ctx, tx, summaryColumns, tenantID, env, id)
			if err != nil {
				return err
			}
			return ch.Refusal(cur)
		} else if err != nil {
			return dbError(err, "update document")
		}
		if _, err := tx.exec(ctx, `
			INSERT INTO document_status_history (document_id, tenant_id, status, at, reason) VALUES (?, ?, ?, ?, ?)`,
			doc.ID, doc.TenantID, doc.Status, formatTime(now), ch.Reason); err != nil {
			return dbError(err, "insert document status")
		}
		if err := db.insertJobs(ctx, tx, ch.Jobs); err != nil {
			return err
		}
		ev := ch.Event(doc, now)
		if ev == nil {
			return nil
		}
		return db.insertEvent(ctx, tx, ev)
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// QueueJobs implements sello.LifecycleStore: js in one transaction.
func (db *DB) QueueJobs(ctx context.Context, js ...sello.Job) error {
	return db.inTx(ctx, func(tx querier) error { return db.insertJobs(ctx, tx, js) })
}

// statusNames is from as strings.
func statusNames(from []sello.Status) []string {
	names := make([]string, len(from))
	for i, s := range from {
		names[i] = string(s)
	}
	return names
}

// textOrNull is s, or NULL when empty: coalesce then keeps the stored value.
func textOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// FindDocumentXML implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it is not signed yet.
func (db *DB) FindDocumentXML(ctx context.Context, tenantID string, env sello.Environment, encf string) ([]byte, error) {
	var xml []byte
	err := db.q().queryRow(ctx, `
		SELECT signed_xml FROM documents WHERE tenant_id = ? AND environment = ? AND encf = ?`,
		tenantID, env, encf).Scan(&xml)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.DocumentNotFound(encf, env)
	} else if err != nil {
		return nil, dbError(err, "find document xml")
	} else if xml == nil {
		return nil, sello.Errorf(sello.CodeNotFound, "Document %s is not signed yet.", encf)
	}
	return xml, nil
}

// FindDocumentRFCE implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it has no RFCE.
func (db *DB) FindDocumentRFCE(ctx context.Context, tenantID string, env sello.Environment, id string) ([]byte, error) {
	return db.findDocumentBlob(ctx, "rfce_xml", tenantID, env, id, sello.Errorf(sello.CodeNotFound, "Document %q has no signed RFCE.", id))
}

// FindDocumentARECF implements sello.LifecycleStore. Returns NOT_FOUND when
// there is no such document or it has no acuse.
func (db *DB) FindDocumentARECF(ctx context.Context, tenantID string, env sello.Environment, id string) ([]byte, error) {
	return db.findDocumentBlob(ctx, "arecf_xml", tenantID, env, id, sello.DocumentARECFNotFound(id))
}

// findDocumentBlob reads one XML column of a document by id; none is the
// error when it is NULL.
func (db *DB) findDocumentBlob(ctx context.Context, column, tenantID string, env sello.Environment, id string, none error) ([]byte, error) {
	var xml []byte
	err := db.q().queryRow(ctx, `
		SELECT `+column+` FROM documents WHERE tenant_id = ? AND environment = ? AND id = ?`,
		tenantID, env, id).Scan(&xml)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.DocumentIDNotFound(id, env)
	} else if err != nil {
		return nil, dbError(err, "find document "+column)
	} else if xml == nil {
		return nil, none
	}
	return xml, nil
}

// FindDocumentHistory implements sello.LifecycleStore: oldest first.
// Returns NOT_FOUND when the tenant has no such document in env.
func (db *DB) FindDocumentHistory(ctx context.Context, tenantID string, env sello.Environment, id string) ([]sello.StatusChange, error) {
	rows, err := db.q().query(ctx, `
		SELECT h.status, h.at, h.reason FROM document_status_history h
		JOIN documents d ON d.tenant_id = h.tenant_id AND d.id = h.document_id
		WHERE h.tenant_id = ? AND d.environment = ? AND h.document_id = ?
		ORDER BY h.at, h.id`, tenantID, env, id)
	if err != nil {
		return nil, dbError(err, "find document history")
	}
	defer rows.Close()
	var out []sello.StatusChange
	for rows.Next() {
		var c sello.StatusChange
		var at string
		if err := rows.Scan(&c.Status, &at, &c.Reason); err != nil {
			return nil, dbError(err, "find document history")
		}
		if c.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(err, "find document history")
	} else if len(out) == 0 {
		return nil, sello.DocumentIDNotFound(id, env)
	}
	return out, nil
}
