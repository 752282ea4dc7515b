package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
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
	scopes := make([]string, len(k.Scopes))
	for i, s := range k.Scopes {
		scopes[i] = string(s)
	}
	_, err := db.pool.Exec(ctx, `
		INSERT INTO api_keys (id, tenant_id, environment, name, scopes, hash, last4, expires_at, revoked_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		id, k.TenantID, k.Environment, k.Name, scopes, k.Hash, k.Last4, k.ExpiresAt, k.RevokedAt, now)
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
	row := db.pool.QueryRow(ctx, `
		SELECT `+apiKeyColumns+`, t.id, t.rnc, t.name, t.plan_name, t.plan_rate, t.plan_burst, t.receiver_auth_off, t.created_at
		FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
		WHERE k.hash = $1`, hash)
	var t sello.Tenant
	k, err := scanAPIKey(row, &t.ID, &t.RNC, &t.Name, &t.Plan.Name, &t.Plan.Rate, &t.Plan.Burst, &t.ReceiverAuthOff, &t.CreatedAt)
	if isNoRows(err) {
		return nil, nil, sello.Errorf(sello.CodeNotFound, "API key not found.")
	} else if err != nil {
		return nil, nil, dbError(err, "find api key")
	}
	t.CreatedAt = utc(t.CreatedAt)
	return k, &t, nil
}

// FindAPIKey implements sello.APIKeyStore. Returns NOT_FOUND.
func (db *DB) FindAPIKey(ctx context.Context, tenantID, keyID string) (*sello.APIKey, error) {
	row := db.pool.QueryRow(ctx, `
		SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.tenant_id = $1 AND k.id = $2`, tenantID, keyID)
	k, err := scanAPIKey(row)
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "API key %q not found.", keyID)
	} else if err != nil {
		return nil, dbError(err, "find api key")
	}
	return k, nil
}

// FindAPIKeys implements sello.APIKeyStore.
func (db *DB) FindAPIKeys(ctx context.Context, tenantID string) ([]*sello.APIKey, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT `+apiKeyColumns+` FROM api_keys k
		WHERE k.tenant_id = $1
		ORDER BY k.created_at DESC, k.id DESC`, tenantID)
	if err != nil {
		return nil, dbError(err, "find api keys")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.APIKey, error) { return scanAPIKey(r) })
	return out, dbError(err, "find api keys")
}

// RevokeAPIKey implements sello.APIKeyStore. Returns NOT_FOUND.
func (db *DB) RevokeAPIKey(ctx context.Context, tenantID, keyID string, now time.Time) error {
	tag, err := db.pool.Exec(ctx, `
		UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1)
		WHERE tenant_id = $2 AND id = $3`,
		now.UTC().Truncate(time.Microsecond), tenantID, keyID)
	if err != nil {
		return dbError(err, "revoke api key")
	} else if tag.RowsAffected() == 0 {
		return sello.Errorf(sello.CodeNotFound, "API key %q not found.", keyID)
	}
	return nil
}

// RecordAPIKeyUse implements sello.APIKeyStore. Of two nodes updating
// the row at once, the second waits for the first and then finds the
// condition false (READ COMMITTED evaluates it again on the updated row).
func (db *DB) RecordAPIKeyUse(ctx context.Context, tenantID, keyID string, at time.Time, addr string, every time.Duration) (bool, error) {
	at = at.UTC().Truncate(time.Microsecond)
	tag, err := db.pool.Exec(ctx, `
		UPDATE api_keys SET first_used_at = coalesce(first_used_at, $1), last_used_at = $1, last_used_address = $2
		WHERE tenant_id = $3 AND id = $4 AND (last_used_at IS NULL OR last_used_at <= $5)`,
		at, addr, tenantID, keyID, at.Add(-every))
	if err != nil {
		return false, dbError(err, "record api key use")
	}
	return tag.RowsAffected() == 1, nil
}

func scanAPIKey(r pgx.Row, extra ...any) (*sello.APIKey, error) {
	var k sello.APIKey
	var scopes []string
	dest := append([]any{&k.ID, &k.TenantID, &k.Environment, &k.Name, &scopes, &k.Hash, &k.Last4, &k.ExpiresAt, &k.RevokedAt, &k.CreatedAt,
		&k.FirstUsedAt, &k.LastUsedAt, &k.LastUsedAddress}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	for _, s := range scopes {
		k.Scopes = append(k.Scopes, sello.Scope(s))
	}
	k.CreatedAt, k.ExpiresAt, k.RevokedAt = utc(k.CreatedAt), utcPtr(k.ExpiresAt), utcPtr(k.RevokedAt)
	k.FirstUsedAt, k.LastUsedAt = utcPtr(k.FirstUsedAt), utcPtr(k.LastUsedAt)
	return &k, nil
}
