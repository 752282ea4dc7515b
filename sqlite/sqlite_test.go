package sqlite_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// MustOpen opens a new store in t's temporary directory, closed at cleanup.
// The file starts as a copy of a migrated one: migrating (Sello's and
// River's schemas) is slow under the race detector, and Open still checks
// both migration lines.
func MustOpen(tb testing.TB) *sqlite.DB {
	tb.Helper()
	return mustOpenAt(tb, tb.TempDir())
}

// mustOpenAt is MustOpen at dir/sello.db.
func mustOpenAt(tb testing.TB, dir string) *sqlite.DB {
	tb.Helper()
	path := filepath.Join(dir, "sello.db")
	if err := os.WriteFile(path, mustTemplate(tb), 0o600); err != nil {
		tb.Fatal(err)
	}
	return mustOpenPath(tb, path)
}

// mustOpenPath opens the store at path, closed at cleanup.
func mustOpenPath(tb testing.TB, path string) *sqlite.DB {
	tb.Helper()
	db, err := sqlite.Open(tb.Context(), path)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

var template struct {
	once sync.Once
	file []byte
	err  error
}

// mustTemplate returns the bytes of a new, migrated, closed store file.
func mustTemplate(tb testing.TB) []byte {
	tb.Helper()
	template.once.Do(func() {
		dir, err := os.MkdirTemp("", "sello-sqlite-template-")
		if err != nil {
			template.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "sello.db")
		db, err := sqlite.Open(context.Background(), path)
		if err != nil {
			template.err = err
			return
		}
		if err := db.Close(); err != nil {
			template.err = err
			return
		}
		template.file, template.err = os.ReadFile(path)
	})
	if template.err != nil {
		tb.Fatalf("template store: %v", template.err)
	}
	return template.file
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Store {
		db := MustOpen(t)
		db.Now = now
		return db
	})
}

// TestNodes runs the suite's two-node contract on two stores over one
// file, as a server and the operator CLI share it.
func TestNodes(t *testing.T) {
	storetest.RunNodes(t, func(t *testing.T, now func() time.Time) (storetest.Store, storetest.Store) {
		dir := t.TempDir()
		a, b := mustOpenAt(t, dir), mustOpenPath(t, filepath.Join(dir, "sello.db"))
		a.Now, b.Now = now, now
		return a, b
	})
}

// newDoc is a create of type 31 with the next number.
func newDoc(tenantID string, prepare func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error)) sello.DocumentDraft {
	if prepare == nil {
		prepare = func(n sello.ENCF, _ *sello.Sequence) (*sello.PreparedDocument, error) {
			return &sello.PreparedDocument{Payload: json.RawMessage(`{"ECF":{"eNCF":"` + n.String() + `"}}`), Total: "10.00", IssueDate: sello.Date{Year: 2026, Month: 3, Day: 1}}, nil
		}
	}
	return sello.DocumentDraft{TenantID: tenantID, Environment: sello.EnvTest, Type: sello.TypeCreditoFiscal, Prepare: prepare}
}

func TestStatusHistory(t *testing.T) {
	db := MustOpen(t)
	ctx := t.Context()
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 10)
	doc := storetest.MustCreateDocument(t, db, newDoc(tn.ID, nil))
	_, _, err := db.CreateDocument(ctx, newDoc(tn.ID, func(sello.ENCF, *sello.Sequence) (*sello.PreparedDocument, error) {
		return nil, errors.New("boom")
	}))
	if err == nil {
		t.Fatal("CreateDocument with a failing Prepare: got nil error")
	}
	rows, err := db.SQL().QueryContext(ctx, `SELECT document_id, status, at FROM document_status_history WHERE tenant_id = ?`, tn.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, status, at string
		if err := rows.Scan(&id, &status, &at); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+" "+status+" "+at)
	}
	want := []string{doc.ID + " queued_for_signing " + doc.CreatedAt.Format("2006-01-02T15:04:05.000000Z")}
	if !slices.Equal(got, want) {
		t.Errorf("history: got %q, want %q", got, want)
	}
}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sello.db")
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	tn := storetest.MustCreateTenant(t, db)
	db.Close()
	db, err = sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open again: %v", err)
	}
	defer db.Close()
	if _, err := db.FindTenantByID(t.Context(), tn.ID); err != nil {
		t.Errorf("FindTenantByID after reopening: %v", err)
	}
}

// TestTwoProcesses numbers documents from this process and a child process
// (the server and the operator CLI) on one file at once: every number is
// used exactly once.
func TestTwoProcesses(t *testing.T) {
	const each = 60
	path := filepath.Join(t.TempDir(), "sello.db")
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "SELLO_SQLITE_HELPER="+path, "SELLO_SQLITE_HELPER_TENANT="+tn.ID, "SELLO_SQLITE_HELPER_N="+strconv.Itoa(each))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper: %v", err)
	}
	for range each {
		storetest.MustCreateDocument(t, db, newDoc(tn.ID, nil))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out.String())
	}
	seq := mustOneSequence(t, db, tn.ID)
	if seq.Next != 2*each+1 {
		t.Errorf("Next: got %d, want %d", seq.Next, 2*each+1)
	}
	var n, distinct, lo, hi int64
	if err := db.SQL().QueryRowContext(t.Context(), `
		SELECT count(*), count(DISTINCT encf), min(CAST(substr(encf, 4) AS INTEGER)), max(CAST(substr(encf, 4) AS INTEGER))
		FROM documents WHERE tenant_id = ?`, tn.ID).Scan(&n, &distinct, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != 2*each || distinct != n || lo != 1 || hi != 2*each {
		t.Errorf("documents: got %d (%d distinct) numbered %d…%d, want %d numbered 1…%d", n, distinct, lo, hi, 2*each, 2*each)
	}
}

// TestHelperProcess is the child process of TestTwoProcesses.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv("SELLO_SQLITE_HELPER")
	if path == "" {
		t.Skip("helper process for TestTwoProcesses")
	}
	n, _ := strconv.Atoi(os.Getenv("SELLO_SQLITE_HELPER_N"))
	db, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	for range n {
		storetest.MustCreateDocument(t, db, newDoc(os.Getenv("SELLO_SQLITE_HELPER_TENANT"), nil))
	}
}

func mustOneSequence(tb testing.TB, s sello.Store, tenantID string) *sello.Sequence {
	tb.Helper()
	seqs, err := s.FindSequences(tb.Context(), tenantID, sello.EnvTest)
	if err != nil || len(seqs) != 1 {
		tb.Fatalf("FindSequences: %d, %v", len(seqs), err)
	}
	return seqs[0]
}

// TestOpenPragmas opens a path with spaces, '#' and '%' and checks the
// connection settings two processes rely on.
func TestOpenPragmas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "datos #1 %20")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(t.Context(), filepath.Join(dir, "sello.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	var mode string
	var foreignKeys, busy int
	for q, dest := range map[string]any{"PRAGMA journal_mode": &mode, "PRAGMA foreign_keys": &foreignKeys, "PRAGMA busy_timeout": &busy} {
		if err := db.SQL().QueryRowContext(t.Context(), q).Scan(dest); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if mode != "wal" || foreignKeys != 1 || busy != 10000 {
		t.Errorf("journal_mode, foreign_keys, busy_timeout: got %s, %d, %d; want wal, 1, 10000", mode, foreignKeys, busy)
	}
	if _, err := os.Stat(filepath.Join(dir, "sello.db")); err != nil {
		t.Errorf("database file: %v", err)
	}
}
