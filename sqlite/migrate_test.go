package sqlite

import (
	"crypto/sha256"
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/sello-do/sello"
)

// TestMigrateInboundHashes: a document kept before migration 17 (no
// SHA-256 of its bytes, no DGII confirmation) gets its hash from
// migration 18, so that a retry of its bytes is found by them and answered
// with its acuse; and migration 22 counts the documents DGII has not
// accepted in their issuer's hours.
func TestMigrateInboundHashes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sello.db")
	if err := createFile(path); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path+"?"+pragmas)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, raw, fsys, goose.WithGoMigrations(goMigrations()...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(t.Context(), 17); err != nil {
		t.Fatal(err)
	}
	at := formatTime(time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC))
	later := formatTime(time.Date(2026, 1, 5, 13, 59, 59, 999999000, time.UTC))
	xml := []byte("<ECF><eNCF>E310000000001</eNCF>legacy</ECF>")
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO tenants (id, rnc, name, plan_name, plan_rate, plan_burst, receiver_auth_off, created_at) VALUES ('t1', '130000001', 'Comprador', 'default', 10, 20, 0, ?)`, []any{at}},
		{`INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total, xml, acuse, approval, received_at, updated_at)
			VALUES ('d1', 't1', 'TesteCF', '31', 'E310000000001', '131000001', 'Proveedor', '130000001', '2026-01-05', '1180.00', ?, ?, 'pending', ?, ?)`, []any{xml, []byte("acuse"), at, at}},
		// For migration 22's counts: one DGII accepted (not counted), one
		// pending an hour later.
		{`INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total, xml, acuse, approval, received_at, updated_at, dgii_status)
			VALUES ('d2', 't1', 'TesteCF', '31', 'E310000000002', '131000001', 'Proveedor', '130000001', '2026-01-05', '1180.00', x'00', x'00', 'pending', ?, ?, 'accepted')`, []any{at, at}},
		{`INSERT INTO inbound_documents (id, tenant_id, environment, type, encf, issuer_rnc, issuer_name, buyer_rnc, issue_date, total, xml, acuse, approval, received_at, updated_at, dgii_status)
			VALUES ('d3', 't1', 'TesteCF', '31', 'E310000000003', '131000001', 'Proveedor', '130000001', '2026-01-05', '1180.00', x'01', x'00', 'pending', ?, ?, 'pending')`, []any{later, later}},
	} {
		if _, err := raw.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open (migrating to the latest): %v", err)
	}
	defer db.Close()
	h, err := db.FindInboundENCF(t.Context(), "t1", sello.EnvTest, "131000001", "E310000000001", sha256.Sum256(xml), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Same == nil || h.Same.ID != "d1" || string(h.Same.Acuse) != "acuse" || h.Same.DGII != nil {
		t.Fatalf("the legacy document's bytes: got %+v, want d1 with its acuse", h.Same)
	}
	if h.Accepted != nil || h.Unconfirmed != 0 {
		t.Fatalf("got accepted %+v, %d unconfirmed; want none (the legacy document has no confirmation)", h.Accepted, h.Unconfirmed)
	}
	// Migration 22 counted the documents DGII has not accepted, by hour.
	for _, c := range []struct {
		since time.Time
		want  int
	}{
		{time.Date(2026, 1, 5, 12, 30, 0, 0, time.UTC), 2},
		{time.Date(2026, 1, 5, 13, 0, 0, 0, time.UTC), 1},
		{time.Date(2026, 1, 5, 14, 0, 0, 0, time.UTC), 0},
	} {
		n, err := db.CountInboundFromIssuerHours(t.Context(), "t1", sello.EnvTest, "131000001", c.since)
		if err != nil {
			t.Fatal(err)
		} else if n != c.want {
			t.Errorf("hours' counts since %s: %d, want %d", c.since, n, c.want)
		}
	}
}
