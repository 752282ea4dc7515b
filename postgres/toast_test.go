package postgres

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/storetest"
)

// TestDocumentsLZ4: a signed XML is stored compressed with LZ4 (migration
// 28), where the server has it, and reads back byte for byte; a later
// transition, which does not set it, keeps its stored value (no new TOAST
// value is written).
func TestDocumentsLZ4(t *testing.T) {
	db, err := Open(t.Context(), pgtest.MustSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lz4 bool
	if err := db.pool.QueryRow(t.Context(), `
		SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'`).Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if !lz4 {
		t.Skip("this PostgreSQL was built without LZ4: migration 28 leaves pglz")
	}
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	doc := storetest.MustCreateDocument(t, db, benchDraft(tn.ID))

	xml := signedXMLOf(doc.ENCF, 20)

	if _, err := db.UpdateDocument(t.Context(), tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: sello.StatusSigned, SignedXML: xml}); err != nil {
		t.Fatal(err)
	}
	var method *string
	if err := db.pool.QueryRow(t.Context(), `SELECT pg_column_compression(signed_xml) FROM documents WHERE id = $1`, doc.ID).Scan(&method); err != nil {
		t.Fatal(err)
	}
	if method == nil || *method != "lz4" {
		t.Errorf("signed_xml compressed with %v, want lz4", deref(method))
	}
	got, err := db.FindDocumentXML(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(xml) {
		t.Errorf("signed XML read back differs (%d bytes, want %d)", len(got), len(xml))
	}

	values := func() int {
		t.Helper()
		var n int
		var toast string
		if err := db.pool.QueryRow(t.Context(), `SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = 'documents'::regclass`).Scan(&toast); err != nil {
			t.Fatal(err)
		}
		if err := db.pool.QueryRow(t.Context(), `SELECT count(DISTINCT chunk_id) FROM `+toast).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := values()
	if _, err := db.UpdateDocument(t.Context(), tn.ID, sello.EnvTest, doc.ID, sello.DocumentChange{Status: sello.StatusSubmitted, TrackID: "trk-1"}); err != nil {
		t.Fatal(err)
	}
	if after := values(); after != before {
		t.Errorf("TOAST values %d after a transition that keeps the XML, want %d (unchanged)", after, before)
	}
}

func deref(s *string) string {
	if s == nil {
		return "none (stored as it was)"
	}
	return *s
}

// signedXMLOf is a signed e-CF's shape: items lines, then base64 (the
// certificate, the signature), which no compressor shrinks.
func signedXMLOf(encf string, items int) []byte {
	cert := make([]byte, 1900)
	rand.Read(cert)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><ECF><Encabezado><IdDoc><eNCF>` + encf + `</eNCF></IdDoc></Encabezado><DetallesItems>`)
	for i := range items {
		fmt.Fprintf(&b, `<Item><NumeroLinea>%d</NumeroLinea><NombreItem>Artículo de ferretería</NombreItem><CantidadItem>2.00</CantidadItem><MontoItem>1000.00</MontoItem></Item>`, i+1)
	}
	b.WriteString(`</DetallesItems><Signature><X509Certificate>` + base64.StdEncoding.EncodeToString(cert) + `</X509Certificate></Signature></ECF>`)
	return []byte(b.String())
}

// BenchmarkSignedXMLCompression is what storing a signed XML costs the
// signing's UPDATE with LZ4 (migration 28) and with pglz (the columns
// set back to it), one after the other in each iteration on connections
// with synchronous_commit off (the commit's wait for the disk is not the
// point): a document inserted, then its signed XML set, each its own
// transaction. The XML is the bench's shape: 3 items and base64, about
// 3.5 KB, which pglz gives up on and LZ4 shrinks by a fifth. Medians:
// lz4-ns/sign, pglz-ns/sign, and the stored sizes.
func BenchmarkSignedXMLCompression(b *testing.B) {
	type side struct {
		conn *pgxpool.Conn
		tn   string
		sign []time.Duration
		size int
	}
	var sides []*side
	for _, method := range []string{"lz4", "pglz"} {
		db, err := Open(b.Context(), pgtest.MustSchema(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		if _, err := db.pool.Exec(b.Context(), `ALTER TABLE documents ALTER COLUMN signed_xml SET COMPRESSION `+method); err != nil {
			b.Fatal(err)
		}
		tn := storetest.MustCreateTenant(b, db)
		conn, err := db.pool.Acquire(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(conn.Release)
		if _, err := conn.Exec(b.Context(), `SET synchronous_commit TO off`); err != nil {
			b.Fatal(err)
		}
		sides = append(sides, &side{conn: conn, tn: tn.ID})
	}
	const insert = `INSERT INTO documents (id, tenant_id, environment, type, encf, status, total, itbis, issue_date, delivery_status, payload, created_at, updated_at)
		VALUES ($1, $2, 'TesteCF', '31', $3, 'queued_for_signing', 23600.00, 3600.00, '2026-11-27', 'not_sent', '{}', now(), now())`
	const sign = `UPDATE documents SET status = 'signed', signed_xml = coalesce($1, signed_xml), updated_at = now() WHERE tenant_id = $2 AND environment = 'TesteCF' AND id = $3`
	n := 0
	for b.Loop() {
		n++
		encf := fmt.Sprintf("E31%010d", n)
		xml := signedXMLOf(encf, 3)
		for _, s := range sides {
			id := fmt.Sprintf("doc%08d", n)
			if _, err := s.conn.Exec(b.Context(), insert, id, s.tn, encf); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if _, err := s.conn.Exec(b.Context(), sign, xml, s.tn, id); err != nil {
				b.Fatal(err)
			}
			s.sign = append(s.sign, time.Since(start))
		}
	}
	for i, name := range []string{"lz4", "pglz"} {
		s := sides[i]
		if err := s.conn.QueryRow(b.Context(), `SELECT avg(pg_column_size(signed_xml))::int FROM documents`).Scan(&s.size); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(median(s.sign), name+"-ns/sign")
		b.ReportMetric(float64(s.size), name+"-bytes/xml")
	}
}
