package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrate applies every pending migration: the SQL files, and the ones
// SQL alone cannot write (goMigrations). SQLite's write lock serializes two
// processes migrating the same file.
func migrate(ctx context.Context, db *sql.DB) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithGoMigrations(goMigrations()...))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// goMigrations are the migrations written in Go, numbered among the SQL
// files.
func goMigrations() []*goose.Migration {
	return []*goose.Migration{
		goose.NewGoMigration(18, &goose.GoFunc{RunTx: inboundReceiptIndexesUp}, &goose.GoFunc{RunTx: inboundReceiptIndexesDown}),
	}
}

// inboundReceiptIndexesUp is migration 18: the receipt of a document
// under an issuer's e-NCF reads no other document (docs/receptor.md,
// "Limits"). The documents kept from before migration 17 get the SHA-256
// of their bytes, which SQLite cannot compute (PostgreSQL's migration 18
// did), so that a retry of one is found by its bytes too; the document
// DGII accepted under an e-NCF, the count of those it has not confirmed,
// and the count of an issuer's documents for its quota, are read from
// covering indexes: a document's XML comes before those columns in its
// row, and SQLite reaches them through every overflow page of the XML.
func inboundReceiptIndexesUp(ctx context.Context, tx *sql.Tx) error {
	ids, err := legacyInboundIDs(ctx, tx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		var xml []byte
		if err := tx.QueryRowContext(ctx, `SELECT xml FROM inbound_documents WHERE id = ?`, id).Scan(&xml); err != nil {
			return fmt.Errorf("read inbound document %s: %w", id, err)
		}
		sum := sha256.Sum256(xml)
		if _, err := tx.ExecContext(ctx, `UPDATE inbound_documents SET xml_sha256 = ? WHERE id = ?`, sum[:], id); err != nil {
			return fmt.Errorf("hash inbound document %s: %w", id, err)
		}
	}
	for _, q := range []string{
		// The columns the queries test are in the indexes too: SQLite
		// reads a column its query tests from the index, not from the
		// partial index's condition.
		`CREATE INDEX inbound_documents_accepted_ref ON inbound_documents (encf, issuer_rnc, tenant_id, environment, dgii_status, id, security_code, received_at)
			WHERE dgii_status = 'accepted'`,
		`CREATE INDEX inbound_documents_unconfirmed ON inbound_documents (encf, issuer_rnc, tenant_id, environment, received_at, dgii_status)
			WHERE dgii_status IN ('pending', 'not_found')`,
		// The per-issuer quota's count (migration 14) tests dgii_status
		// too: read from the index, it too reads no document's row.
		`DROP INDEX inbound_documents_issuer_received`,
		`CREATE INDEX inbound_documents_issuer_received ON inbound_documents (tenant_id, environment, issuer_rnc, received_at, dgii_status)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// legacyInboundIDs returns the ids of the documents without the SHA-256 of
// their bytes.
func legacyInboundIDs(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM inbound_documents WHERE xml_sha256 IS NULL`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// inboundReceiptIndexesDown undoes migration 18's indexes; the hashes
// stay (migration 17's down drops the column).
func inboundReceiptIndexesDown(ctx context.Context, tx *sql.Tx) error {
	for _, q := range []string{
		`DROP INDEX inbound_documents_unconfirmed`,
		`DROP INDEX inbound_documents_accepted_ref`,
		`DROP INDEX inbound_documents_issuer_received`,
		`CREATE INDEX inbound_documents_issuer_received ON inbound_documents (tenant_id, environment, issuer_rnc, received_at)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
