package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ReceiveCommercialApproval implements sello.ReceivedApprovalStore: lock the
// document, apply the approval (sello.ReceivedApproval.Apply), write it and
// its event, in one transaction.
func (db *DB) ReceiveCommercialApproval(ctx context.Context, a *sello.ReceivedApproval) (*sello.Document, bool, error) {
	var doc *sello.Document
	changed := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		doc, err = scanDocument(tx.QueryRow(ctx, `
			SELECT `+summaryColumns+` FROM documents
			WHERE tenant_id = $1 AND environment = $2 AND encf = $3 FOR UPDATE`, a.TenantID, a.Environment, a.ENCF))
		if isNoRows(err) {
			return sello.DocumentNotFound(a.ENCF, a.Environment)
		} else if err != nil {
			return dbError(err, "find document")
		}
		now := db.now()
		if changed, err = a.Apply(doc, now); err != nil || !changed {
			return err
		}
		approval, err := sqlval.JSONOrNull(doc.CommercialApproval)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE documents SET commercial_approval = $1, updated_at = $2 WHERE tenant_id = $3 AND id = $4`,
			approval, doc.UpdatedAt, doc.TenantID, doc.ID); err != nil {
			return dbError(err, "record commercial approval")
		}
		return db.insertEvent(ctx, tx, a.Event(doc, now))
	})
	if err != nil {
		return nil, false, err
	}
	return doc, changed, nil
}
