package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/sqlval"
)

// RedeemReceiverSeed implements sello.ReceiverStore. Returns
// UNAUTHENTICATED and NOT_FOUND.
func (db *DB) RedeemReceiverSeed(ctx context.Context, tenantID string, env sello.Environment, value string, expiresAt time.Time, tok *sello.ReceiverToken) error {
	return db.inTx(ctx, func(tx querier) error {
		_, err := tx.exec(ctx, `
			INSERT INTO receiver_seeds (tenant_id, environment, value, expires_at, used_at) VALUES (?, ?, ?, ?, ?)`,
			tenantID, env, value, formatTime(expiresAt), formatTime(tok.IssuedAt))
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
		_, err = tx.exec(ctx, `
			INSERT INTO receiver_tokens (tenant_id, environment, hash, issued_at, expires_at, signer) VALUES (?, ?, ?, ?, ?, ?)`,
			tenantID, env, tok.Hash, formatTime(tok.IssuedAt), formatTime(tok.ExpiresAt), signer)
		return dbError(err, "create receiver token")
	})
}

// The prunes of DeleteExpiredReceiverAuth: ranges of the expires_at
// indexes (migration 14).
const (
	deleteExpiredSeedsSQL  = `DELETE FROM receiver_seeds WHERE expires_at <= ?`
	deleteExpiredTokensSQL = `DELETE FROM receiver_tokens WHERE expires_at <= ?`
)

// DeleteExpiredReceiverAuth implements sello.ReceiverStore.
func (db *DB) DeleteExpiredReceiverAuth(ctx context.Context, now time.Time) (seeds, tokens int64, err error) {
	err = db.inTx(ctx, func(tx querier) error {
		for _, d := range []struct {
			sql string
			n   *int64
		}{{deleteExpiredSeedsSQL, &seeds}, {deleteExpiredTokensSQL, &tokens}} {
			res, err := tx.exec(ctx, d.sql, formatTime(now))
			if err != nil {
				return dbError(err, "delete expired receiver auth")
			}
			if *d.n, err = res.RowsAffected(); err != nil {
				return dbError(err, "delete expired receiver auth")
			}
		}
		return nil
	})
	return seeds, tokens, err
}

// CheckReceiverToken implements sello.ReceiverStore. Returns
// UNAUTHENTICATED.
func (db *DB) CheckReceiverToken(ctx context.Context, tenantID string, env sello.Environment, hash []byte, now time.Time) (*sello.ReceiverToken, error) {
	tok := &sello.ReceiverToken{TenantID: tenantID, Environment: env, Hash: hash}
	var issued, expires string
	var signer sql.NullString
	err := db.q().queryRow(ctx, `
		SELECT issued_at, expires_at, signer FROM receiver_tokens
		WHERE tenant_id = ? AND environment = ? AND hash = ? AND expires_at > ?`,
		tenantID, env, hash, formatTime(now)).Scan(&issued, &expires, &signer)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.ReceiverTokenRefused()
	} else if err != nil {
		return nil, dbError(err, "check receiver token")
	}
	if tok.IssuedAt, err = parseTime(issued); err != nil {
		return nil, err
	} else if tok.ExpiresAt, err = parseTime(expires); err != nil {
		return nil, err
	}
	if signer.Valid {
		tok.Signer = new(sello.Signer)
		if err := json.Unmarshal([]byte(signer.String), tok.Signer); err != nil {
			return nil, fmt.Errorf("decode token signer: %w", err)
		}
	}
	return tok, nil
}

// SetReceiverAuth implements sello.ReceiverStore. Returns NOT_FOUND.
func (db *DB) SetReceiverAuth(ctx context.Context, tenantID string, required bool) error {
	res, err := db.q().exec(ctx, `UPDATE tenants SET receiver_auth_off = ? WHERE id = ?`, !required, tenantID)
	if err != nil {
		return dbError(err, "set receiver auth")
	} else if n, err := res.RowsAffected(); err != nil {
		return dbError(err, "set receiver auth")
	} else if n == 0 {
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", tenantID)
	}
	return nil
}
