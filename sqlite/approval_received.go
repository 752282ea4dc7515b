package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ReceiveCommercialApproval implements sello.ReceivedApprovalStore with
// sello.RecordReceivedApproval, in one IMMEDIATE transaction.
func (db *DB) ReceiveCommercialApproval(ctx context.Context, a *sello.ReceivedApproval) (*sello.Document, bool, error) {
	return sello.RecordReceivedApproval(ctx, a, func(fn func(sello.ReceivedApprovalTx, time.Time) error) error {
		return db.inTx(ctx, func(tx querier) error { return fn(receivedApprovalTx{db: db, tx: tx}, db.now()) })
	})
}

// receivedApprovalTx is sello.ReceivedApprovalTx over one of the store's
// transactions.
type receivedApprovalTx struct {
	db *DB
	tx querier
}

// LockDocumentByENCF implements sello.ReceivedApprovalTx. SQLite has one
// writer: the IMMEDIATE transaction holds the document.
func (t receivedApprovalTx) LockDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(t.tx.queryRow(ctx, `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = ? AND environment = ? AND encf = ?`, tenantID, env, encf))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.DocumentNotFound(encf, env)
	}
	return doc, dbError(err, "find document")
}

// SetCommercialApproval implements sello.ReceivedApprovalTx.
func (t receivedApprovalTx) SetCommercialApproval(ctx context.Context, doc *sello.Document) error {
	approval, err := sqlval.JSONOrNull(doc.CommercialApproval)
	if err != nil {
		return err
	}
	_, err = t.tx.exec(ctx, `UPDATE documents SET commercial_approval = ?, updated_at = ? WHERE tenant_id = ? AND id = ?`,
		approval, formatTime(doc.UpdatedAt), doc.TenantID, doc.ID)
	return dbError(err, "record commercial approval")
}

// InsertEvent implements sello.ReceivedApprovalTx.
func (t receivedApprovalTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}
