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

// RedeemReceiverSeed implements sello.ReceiverStore. Returns
// UNAUTHENTICATED and NOT_FOUND.
func (db *DB) RedeemReceiverSeed(ctx context.Context, tenantID string, env sello.Environment, value string, expiresAt time.Time, tok *sello.ReceiverToken) error {
	return db.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO receiver_seeds (tenant_id, environment, value, expires_at, used_at) VALUES ($1, $2, $3, $4, $5)`,
			tenantID, env, value, expiresAt, tok.IssuedAt)
		switch errorKind(err) {
		case kindUnique:
			return sello.ReceiverSeedRefused()
		case kindForeignKey:
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID).WithErr(err)
		}
		if err != nil {
			return dbError(err, "redeem receiver seed")
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

// The prunes of DeleteExpiredReceiverAuth: ranges of the expires_at
// indexes (migration 15).
const (
	deleteExpiredSeedsSQL  = `DELETE FROM receiver_seeds WHERE expires_at <= $1`
	deleteExpiredTokensSQL = `DELETE FROM receiver_tokens WHERE expires_at <= $1`
)

// DeleteExpiredReceiverAuth implements sello.ReceiverStore.
func (db *DB) DeleteExpiredReceiverAuth(ctx context.Context, now time.Time) (seeds, tokens int64, err error) {
	err = db.inTx(ctx, func(tx pgx.Tx) error {
		for _, d := range []struct {
			sql string
			n   *int64
		}{{deleteExpiredSeedsSQL, &seeds}, {deleteExpiredTokensSQL, &tokens}} {
			tag, err := tx.Exec(ctx, d.sql, now)
			if err != nil {
				return dbError(err, "delete expired receiver auth")
			}
			*d.n = tag.RowsAffected()
		}
		return nil
	})
	return seeds, tokens, err
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
