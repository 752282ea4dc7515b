package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/sello-do/sello"
)

// AddCertificate implements sello.CertificateStore. Returns NOT_FOUND if the
// tenant does not exist and CONFLICT if the tenant already has the
// certificate in its environment.
func (db *DB) AddCertificate(ctx context.Context, c *sello.Certificate) error {
	if err := c.CheckNew(); err != nil {
		return err
	}
	id, now := sello.NewID(), db.now()
	err := db.inTx(ctx, func(tx querier) error {
		_, err := tx.exec(ctx, `
			INSERT INTO certificates (id, tenant_id, environment, subject, issuer, serial_number, fingerprint,
				not_before, not_after, self_signed, der, sealed_key, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, c.TenantID, c.Environment, c.Subject, c.Issuer, c.SerialNumber, c.Fingerprint,
			formatTime(c.NotBefore), formatTime(c.NotAfter), c.SelfSigned, c.DER, c.SealedKey, formatTime(now))
		switch errorKind(err) {
		case kindForeignKey:
			return sello.Errorf(sello.CodeNotFound, "Tenant %q not found.", c.TenantID).WithErr(err)
		case kindUnique:
			return sello.Errorf(sello.CodeConflict, "Certificate %s is already stored for %s.", c.Fingerprint, c.Environment).WithErr(err)
		}
		return dbError(err, "add certificate")
	})
	if err != nil {
		return err
	}
	c.ID, c.CreatedAt = id, now
	c.NotBefore, c.NotAfter = *sello.StoredTime(&c.NotBefore), *sello.StoredTime(&c.NotAfter)
	return nil
}

const certificateColumns = `id, tenant_id, environment, subject, issuer, serial_number, fingerprint,
	not_before, not_after, self_signed, der, sealed_key, created_at`

// FindCertificates implements sello.CertificateStore: newest first.
func (db *DB) FindCertificates(ctx context.Context, tenantID string, env sello.Environment) ([]*sello.Certificate, error) {
	rows, err := db.q().query(ctx, `
		SELECT `+certificateColumns+` FROM certificates
		WHERE tenant_id = ? AND environment = ?
		ORDER BY created_at DESC, id DESC`, tenantID, env)
	if err != nil {
		return nil, dbError(err, "find certificates")
	}
	defer rows.Close()
	var out []*sello.Certificate
	for rows.Next() {
		c, err := scanCertificate(rows)
		if err != nil {
			return nil, dbError(err, "find certificates")
		}
		out = append(out, c)
	}
	return out, dbError(rows.Err(), "find certificates")
}

// FindSigningCertificate implements sello.CertificateStore: the valid
// certificate added last. Returns NOT_FOUND when none is valid at now.
func (db *DB) FindSigningCertificate(ctx context.Context, tenantID string, env sello.Environment, now time.Time) (*sello.Certificate, error) {
	at := formatTime(now)
	c, err := scanCertificate(db.q().queryRow(ctx, `
		SELECT `+certificateColumns+` FROM certificates
		WHERE tenant_id = ? AND environment = ? AND not_before <= ? AND not_after > ?
		ORDER BY created_at DESC, id DESC
		LIMIT 1`, tenantID, env, at, at))
	if errors.Is(err, sql.ErrNoRows) {
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
	err := db.inTx(ctx, func(tx querier) error {
		var subject, notAfter string
		err := tx.queryRow(ctx, `
			UPDATE certificates SET warned_at = ?
			WHERE tenant_id = ? AND environment = ? AND id = ? AND warned_at IS NULL
			RETURNING subject, not_after`,
			formatTime(now), c.TenantID, c.Environment, c.ID).Scan(&subject, &notAfter)
		if errors.Is(err, sql.ErrNoRows) {
			var one int
			err := tx.queryRow(ctx, `SELECT 1 FROM certificates WHERE tenant_id = ? AND environment = ? AND id = ?`,
				c.TenantID, c.Environment, c.ID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return sello.Errorf(sello.CodeNotFound, "Certificate %q not found in %s.", c.ID, c.Environment)
			}
			return dbError(err, "find certificate")
		} else if err != nil {
			return dbError(err, "warn certificate expiring")
		}
		t, err := parseTime(notAfter)
		if err != nil {
			return err
		}
		warned = true
		return db.insertEvent(ctx, tx, sello.NewCertificateExpiringEvent(c, subject, t, now))
	})
	return warned, err
}

func scanCertificate(s scanner) (*sello.Certificate, error) {
	var c sello.Certificate
	var notBefore, notAfter, created string
	if err := s.Scan(&c.ID, &c.TenantID, &c.Environment, &c.Subject, &c.Issuer, &c.SerialNumber, &c.Fingerprint,
		&notBefore, &notAfter, &c.SelfSigned, &c.DER, &c.SealedKey, &created); err != nil {
		return nil, err
	}
	var err error
	if c.NotBefore, err = parseTime(notBefore); err != nil {
		return nil, err
	} else if c.NotAfter, err = parseTime(notAfter); err != nil {
		return nil, err
	} else if c.CreatedAt, err = parseTime(created); err != nil {
		return nil, err
	}
	return &c, nil
}
