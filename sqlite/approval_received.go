package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// ReceiveCommercialApproval implements sello.ReceivedApprovalStore: read the
// document, apply the approval (sello.ReceivedApproval.Apply), write it and
// its event, in one IMMEDIATE transaction.
func (db *DB) ReceiveCommercialApproval(ctx context.Context, a *sello.ReceivedApproval) (*sello.Document, bool, error) {
	var doc *sello.Document
	changed := false
	err := db.inTx(ctx, func(tx querier) error {
		var err error
		doc, err = scanDocument(tx.queryRow(ctx, `
			SELECT `+summaryColumns+` FROM documents
			WHERE tenant_id = ? AND environment = ? AND encf = ?`, a.TenantID, a.Environment, a.ENCF))
		if errors.Is(err, sql.ErrNoRows) {
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
		if _, err := tx.exec(ctx, `UPDATE documents SET commercial_approval = ?, updated_at = ? WHERE tenant_id = ? AND id = ?`,
			approval, formatTime(doc.UpdatedAt), doc.TenantID, doc.ID); err != nil {
			return dbError(err, "record commercial approval")
		}
		return db.insertEvent(ctx, tx, a.Event(doc, now))
	})
	if err != nil {
		return nil, false, err
	}
	return doc, changed, nil
}
