package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// CreateAPIKey implements sello.APIKeyStore. Returns INVALID_REQUEST,
// NOT_FOUND if the tenant does not exist, or CONFLICT if the hash exists.
func (db *DB) CreateAPIKey(ctx context.Context, k *sello.APIKey) error {
	if _, err := sello.ParseEnvironment(string(k.Environment)); err != nil {
		return err
	} else if len(k.Hash) == 0 {
		return sello.Errorf(sello.CodeInvalidRequest, "API key hash required.")
	}
	id, now := sello.NewID(), db.now()
	k.ExpiresAt, k.RevokedAt = sello.StoredTime(k.ExpiresAt), sello.StoredTime(k.RevokedAt)
	_, err := db.q().exec(ctx, `
		INSERT INTO api_keys (id, tenant_id, environment, name, scopes, hash, last4, expires_at, revoked_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		id, k.TenantID, k.Environment, k.Name, sello.JoinScopes(k.Scopes), k.Hash, k.Last4,
		formatTimePtr(k.ExpiresAt), formatTimePtr(k.RevokedAt), formatTime(now))
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", k.TenantID).WithErr(err)
	case kindUnique:
		return &sello.Error{Code: sello.CodeConflict, Message: "An API key with this hash exists.", Err: err}
	}
	if err != nil {
		return dbError(err, "create api key")
	}
	k.ID, k.CreatedAt = id, now
	return nil
}

const apiKeyColumns = `k.id, k.tenant_id, k.environment, k.name, k.scopes, k.hash, k.last4, k.expires_at, k.revoked_at, k.created_at,
	k.first_used_at, k.last_used_at, k.last_used_address`

// FindAPIKeyByHash implements sello.APIKeyStore. Returns NOT_FOUND.
func (db *DB) FindAPIKeyByHash(ctx context.Context, hash []byte) (*sello.APIKey, *sello.Tenant, error) {
	row := db.q().queryRow(ctx, `
		SELECT `+apiKeyColumns+`, t.id, t.rnc, t.name, t.plan_name, t.plan_rate, t.plan_burst, t.receiver_auth_off, t.created_at
		FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		WHERE k.hash = ?`, hash)
	var t sello.Tenant
	var tCreated string
	k, err := scanAPIKey(row, &t.ID, &t.RNC, &t.Name, &t.Plan.Name, &t.Plan.Rate, &t.Plan.Burst, &t.ReceiverAuthOff, &tCreated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, sello.Errorf(sello.CodeNotFound, "API key not found.")
	} else if err != nil {
		return nil, nil, dbError(err, "find api key")
	}
	if t.CreatedAt, err = parseTime(tCreated); err != nil {
		return nil, nil, err
	}
	return k, &t, nil
}

// FindAPIKey implements sello.APIKeyStore. Returns NOT_FOUND.
func (db *DB) FindAPIKey(ctx context.Context, tenantID, keyID string) (*sello.APIKey, error) {
	row := db.q().queryRow(ctx, `
		SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.tenant_id = ? AND k.id = ?`, tenantID, keyID)
	k, err := scanAPIKey(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sello.Errorf(sello.CodeNotFound, "API key %q not found.", keyID)
	} else if err != nil {
		return nil, dbError(err, "find api key")
	}
	return k, nil
}

// FindAPIKeys implements sello.APIKeyStore.
func (db *DB) FindAPIKeys(ctx context.Context, tenantID string) ([]*sello.APIKey, error) {
	rows, err := db.q().query(ctx, `
		SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.tenant_id = ?
		ORDER BY k.created_at DESC, k.id DESC`, tenantID)
	if err != nil {
		return nil, dbError(err, "find api keys")
	}
	defer rows.Close()
	var out []*sello.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, dbError(err, "find api keys")
		}
		out = append(out, k)
	}
	return out, dbError(rows.Err(), "find api keys")
}

// RevokeAPIKey implements sello.APIKeyStore. Returns NOT_FOUND.
func (db *DB) RevokeAPIKey(ctx context.Context, tenantID, keyID string, now time.Time) error {
	res, err := db.q().exec(ctx, `
		UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?)
		WHERE tenant_id = ? AND id = ?`,
		formatTime(now.Truncate(time.Microsecond)), tenantID, keyID)
	if err != nil {
		return dbError(err, "revoke api key")
	}
	if n, err := res.RowsAffected(); err != nil {
		return dbError(err, "revoke api key")
	} else if n == 0 {
		return sello.Errorf(sello.CodeNotFound, "API key %q not found.", keyID)
	}
	return nil
}

// RecordAPIKeyUse implements sello.APIKeyStore. Times are stored as
// fixed-width UTC text, so comparing them as text compares the times.
func (db *DB) RecordAPIKeyUse(ctx context.Context, tenantID, keyID string, at time.Time, addr string, every time.Duration) (bool, error) {
	at = at.Truncate(time.Microsecond)
	res, err := db.q().exec(ctx, `
		UPDATE api_keys SET first_used_at = coalesce(first_used_at, ?), last_used_at = ?, last_used_address = ?
		WHERE tenant_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
		formatTime(at), formatTime(at), addr, tenantID, keyID, formatTime(at.Add(-every)))
	if err != nil {
		return false, dbError(err, "record api key use")
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, dbError(err, "record api key use")
	}
	return n == 1, nil
}

func scanAPIKey(s scanner, extra ...any) (*sello.APIKey, error) {
	var k sello.APIKey
	var scopes, created string
	var expires, revoked, firstUsed, lastUsed sql.NullString
	dest := append([]any{&k.ID, &k.TenantID, &k.Environment, &k.Name, &scopes, &k.Hash, &k.Last4, &expires, &revoked, &created,
		&firstUsed, &lastUsed, &k.LastUsedAddress}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	if scopes != "" {
		for sc := range strings.SplitSeq(scopes, ",") {
			k.Scopes = append(k.Scopes, sello.Scope(sc))
		}
	}
	var err error
	if k.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	} else if k.ExpiresAt, err = parseTimePtr(expires); err != nil {
		return nil, err
	} else if k.RevokedAt, err = parseTimePtr(revoked); err != nil {
		return nil, err
	} else if k.FirstUsedAt, err = parseTimePtr(firstUsed); err != nil {
		return nil, err
	} else if k.LastUsedAt, err = parseTimePtr(lastUsed); err != nil {
		return nil, err
	}
	return &k, nil
}
