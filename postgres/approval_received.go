package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ReceiveCommercialApproval implements sello.ReceivedApprovalStore with
// sello.RecordReceivedApproval, in one transaction.
func (db *DB) ReceiveCommercialApproval(ctx context.Context, a *sello.ReceivedApproval) (*sello.Document, bool, error) {
	return sello.RecordReceivedApproval(ctx, a, func(fn func(sello.ReceivedApprovalTx, time.Time) error) error {
		return db.inTx(ctx, func(tx pgx.Tx) error { return fn(receivedApprovalTx{db: db, tx: tx}, db.now()) })
	})
}

// receivedApprovalTx is sello.ReceivedApprovalTx over one of the store's
// transactions.
type receivedApprovalTx struct {
	db *DB
	tx pgx.Tx
}

// LockDocumentByENCF implements sello.ReceivedApprovalTx: the row is
// locked FOR UPDATE.
func (t receivedApprovalTx) LockDocumentByENCF(ctx context.Context, tenantID string, env sello.Environment, encf string) (*sello.Document, error) {
	doc, err := scanDocument(t.tx.QueryRow(ctx, `
		SELECT `+summaryColumns+` FROM documents
		WHERE tenant_id = $1 AND environment = $2 AND encf = $3 FOR UPDATE`, tenantID, env, encf))
	if isNoRows(err) {
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
	_, err = t.tx.Exec(ctx, `UPDATE documents SET commercial_approval = $1, updated_at = $2 WHERE tenant_id = $3 AND id = $4`,
		approval, doc.UpdatedAt, doc.TenantID, doc.ID)
	return dbError(err, "record commercial approval")
}

// InsertEvent implements sello.ReceivedApprovalTx.
func (t receivedApprovalTx) InsertEvent(ctx context.Context, ev *sello.Event) error {
	return t.db.insertEvent(ctx, t.tx, ev)
}
