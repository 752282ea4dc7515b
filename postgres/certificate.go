package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
)

// AddCertificate implements sello.CertificateStore. Returns INVALID_REQUEST,
// NOT_FOUND if the tenant does not exist and CONFLICT if the tenant already
// has the certificate in its environment.
func (db *DB) AddCertificate(ctx context.Context, c *sello.Certificate) error {
	if err := c.CheckNew(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	notBefore, notAfter := *sello.StoredTime(&c.NotBefore), *sello.StoredTime(&c.NotAfter)
	_, err := db.pool.Exec(ctx, `
		INSERT INTO certificates (id, tenant_id, environment, subject, issuer, serial_number, fingerprint,
			not_before, not_after, self_signed, der, sealed_key, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		id, c.TenantID, c.Environment, c.Subject, c.Issuer, c.SerialNumber, c.Fingerprint,
		notBefore, notAfter, c.SelfSigned, c.DER, c.SealedKey, now)
	switch errorKind(err) {
	case kindForeignKey:
		return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", c.TenantID).WithErr(err)
	case kindUnique:
		return sello.Errorf(sello.CodeConflict, "Certificate %s is already stored for %s.", c.Fingerprint, c.Environment).WithErr(err)
	}
	if err != nil {
		return dbError(err, "add certificate")
	}
	c.ID, c.CreatedAt, c.NotBefore, c.NotAfter = id, now, notBefore, notAfter
	return nil
}

const certificateColumns = `id, tenant_id, environment, subject, issuer, serial_number, fingerprint,
	not_before, not_after, self_signed, der, sealed_key, created_at`

// FindCertificates implements sello.CertificateStore: newest first.
func (db *DB) FindCertificates(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.Certificate, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT `+certificateColumns+` FROM certificates
		WHERE tenant_id = $1 AND environment = $2
		ORDER BY created_at DESC, id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find certificates")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*sello.Certificate, error) { return scanCertificate(r) })
	return out, dbError(err, "find certificates")
}

// FindSigningCertificate implements sello.CertificateStore: the valid
// certificate added last. Returns NOT_FOUND when none is valid at now.
func (db *DB) FindSigningCertificate(ctx context.Context, tenantID string, env sello.Environment, now time.Time) (*sello.Certificate, error) {
	c, err := scanCertificate(db.pool.QueryRow(ctx, `
		SELECT `+certificateColumns+` FROM certificates
		WHERE tenant_id = $1 AND environment = $2 AND not_before <= $3 AND not_after > $3
		ORDER BY created_at DESC, id DESC
		LIMIT 1`, tenantID, env, *sello.StoredTime(&now)))
	if isNoRows(err) {
		return nil, sello.Errorf(sello.CodeNotFound, "No valid signing certificate in %s.", env)
	}
	return c, dbError(err, "find signing certificate")
}

// WarnCertificateExpiring implements sello.CertificateStore: in one
// transaction it marks c warned and writes its certificate.expiring event,
// unless it was warned before (false). Returns NOT_FOUND if the tenant has
// no such certificate in its environment.
func (db *DB) WarnCertificateExpiring(ctx context.Context, c *sello.Certificate, now time.Time) (bool, error) {
	now = *sello.StoredTime(&now)
	warned := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		var subject string
		var notAfter time.Time
		err := tx.QueryRow(ctx, `
			UPDATE certificates SET warned_at = $1
			WHERE tenant_id = $2 AND environment = $3 AND id = $4 AND warned_at IS NULL
			RETURNING subject, not_after`,
			now, c.TenantID, c.Environment, c.ID).Scan(&subject, &notAfter)
		if isNoRows(err) {
			var one int
			err := tx.QueryRow(ctx, `SELECT 1 FROM certificates WHERE tenant_id = $1 AND environment = $2 AND id = $3`,
				c.TenantID, c.Environment, c.ID).Scan(&one)
			if isNoRows(err) {
				return sello.Errorf(sello.CodeNotFound, "Certificate %q not found in %s.", c.ID, c.Environment)
			}
			return dbError(err, "find certificate")
		} else if err != nil {
			return dbError(err, "warn certificate expiring")
		}
		warned = true
		return db.insertEvent(ctx, tx, sello.NewCertificateExpiringEvent(c, subject, notAfter, now))
	})
	return warned, err
}

func scanCertificate(r pgx.Row) (*sello.Certificate, error) {
	var c sello.Certificate
	if err := r.Scan(&c.ID, &c.TenantID, &c.Environment, &c.Subject, &c.Issuer, &c.SerialNumber, &c.Fingerprint,
		&c.NotBefore, &c.NotAfter, &c.SelfSigned, &c.DER, &c.SealedKey, &c.CreatedAt); err != nil {
		return nil, err
	}
	c.NotBefore, c.NotAfter, c.CreatedAt = utc(c.NotBefore), utc(c.NotAfter), utc(c.CreatedAt)
	return &c, nil
}
