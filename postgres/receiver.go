package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// CreateReceiverSeed implements sello.ReceiverStore. Returns NOT_FOUND.
func (db *DB) CreateReceiverSeed(ctx context.Context, tenantID string, env sello.Environment, value string, expiresAt time.Time) error {
	now := db.now()
	return db.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM receiver_seeds WHERE tenant_id = $1 AND expires_at <= $2`, tenantID, now); err != nil {
			return dbError(err, "forget expired seeds")
		}
		_, err := tx.Exec(ctx, `INSERT INTO receiver_seeds (tenant_id, environment, value, expires_at) VALUES ($1, $2, $3, $4)`,
			tenantID, env, value, expiresAt)
		if errorKind(err) == kindForeignKey {
			return &sello.Error{Code: sello.CodeNotFound, Message: "Tenant \"" + tenantID + "\" not found.", Err: err}
		}
		return dbError(err, "create receiver seed")
	})
}

// RedeemReceiverSeed implements sello.ReceiverStore. Returns
// UNAUTHENTICATED.
func (db *DB) RedeemReceiverSeed(ctx context.Context, tenantID string, env sello.Environment, value string, tok *sello.ReceiverToken, now time.Time) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			UPDATE receiver_seeds SET used_at = $1
			WHERE tenant_id = $2 AND environment = $3 AND value = $4 AND used_at IS NULL AND expires_at > $1`,
			now, tenantID, env, value)
		if err != nil {
			return dbError(err, "redeem receiver seed")
		} else if tag.RowsAffected() == 0 {
			return sello.ReceiverSeedRefused()
		}
		if _, err := tx.Exec(ctx, `DELETE FROM receiver_tokens WHERE tenant_id = $1 AND expires_at <= $2`, tenantID, now); err != nil {
			return dbError(err, "forget expired tokens")
		}
		signer, err := sqlval.JSONOrNull(tok.Signer)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO receiver_tokens (tenant_id, environment, hash, issued_at, expires_at, signer) VALUES ($1, $2, $3, $4, $5, $6)`,
			tenantID, env, tok.Hash, tok.IssuedAt, tok.ExpiresAt, signer)
		return dbError(err, "create receiver token")
	})
}

// CheckReceiverToken implements sello.ReceiverStore. Returns
// UNAUTHENTICATED.
func (db *DB) CheckReceiverToken(ctx context.Context, tenantID string, env sello.Environment, hash []byte, now time.Time) (*sello.ReceiverToken, error) {
	tok := &sello.ReceiverToken{TenantID: tenantID, Environment: env, Hash: hash}
	var signer []byte
	err := db.pool.QueryRow(ctx, `
		SELECT issued_at, expires_at, signer FROM receiver_tokens
		WHERE tenant_id = $1 AND environment = $2 AND hash = $3 AND expires_at > $4`,
		tenantID, env, hash, now).Scan(&tok.IssuedAt, &tok.ExpiresAt, &signer)
	if isNoRows(err) {
		return nil, sello.ReceiverTokenRefused()
	} else if err != nil {
		return nil, dbError(err, "check receiver token")
	}
	tok.IssuedAt, tok.ExpiresAt = utc(tok.IssuedAt), utc(tok.ExpiresAt)
	if signer != nil {
		tok.Signer = new(sello.Signer)
		if err := json.Unmarshal(signer, tok.Signer); err != nil {
			return nil, fmt.Errorf("decode token signer: %w", err)
		}
	}
	return tok, nil
}

// SetReceiverAuth implements sello.ReceiverStore. Returns NOT_FOUND.
func (db *DB) SetReceiverAuth(ctx context.Context, tenantID string, required bool) error {
	tag, err := db.pool.Exec(ctx, `UPDATE tenants SET receiver_auth_off = $1 WHERE id = $2`, !required, tenantID)
	if err != nil {
		return dbError(err, "set receiver auth")
	} else if tag.RowsAffected() == 0 {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return nil
}
