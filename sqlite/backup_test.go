package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/storetest"
)

// TestBackup copies a store while a writer numbers documents in it: the
// copy passes the check, holds every document committed before the copy
// began and none that was not committed by its end, numbered without a gap
// (one snapshot), and opens as a store.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sello.db")
	db := mustOpenAt(t, dir)
	tn := storetest.MustCreateTenant(t, db)
	storetest.MustAddSequence(t, db, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1_000_000)

	var created atomic.Int64
	warm := make(chan struct{})
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var writeErr error
	wg.Go(func() {
		for ctx.Err() == nil {
			if _, _, err := db.CreateDocument(ctx, newDoc(tn.ID, nil)); err != nil {
				if ctx.Err() == nil {
					writeErr = err
				}
				return
			}
			if created.Add(1) == 50 {
				close(warm)
			}
		}
	})
	select {
	case <-warm:
	case <-t.Context().Done():
		t.Fatal("the writer did not create 50 documents")
	}
	before := created.Load()
	dst := filepath.Join(t.TempDir(), "copy.db")
	err := sqlite.Backup(t.Context(), src, dst)
	after := created.Load()
	stop()
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if writeErr != nil {
		t.Fatalf("the writer failed during the backup: %v", writeErr)
	}

	mustMode(t, dst, 0o600)
	if _, err := os.Stat(dst + ".partial"); !os.IsNotExist(err) {
		t.Errorf("%s.partial left behind (%v)", dst, err)
	}
	report, err := sqlite.CheckBackup(t.Context(), dst)
	if err != nil {
		t.Fatalf("CheckBackup: %v", err)
	}
	if got, want := report.SchemaVersion, sqlite.SchemaVersion(); got != want || want < 23 {
		t.Errorf("schema version %d, want this build's %d", got, want)
	}
	docs, ok := report.Rows("documents")
	if !ok || docs < before || docs > after {
		t.Fatalf("the copy has %d documents (table found: %v); %d were committed before the backup, %d by its end", docs, ok, before, after)
	}
	t.Logf("documents: %d committed before the backup, %d in the copy, %d by the backup's end", before, docs, after)
	if tenants, _ := report.Rows("tenants"); tenants != 1 {
		t.Errorf("the copy has %d tenants, want 1", tenants)
	}
	raw, err := sql.Open("sqlite", dst)
	if err != nil {
		t.Fatal(err)
	}
	var n, highest int64
	err = raw.QueryRow(`SELECT count(*), max(CAST(substr(encf, 4) AS INTEGER)) FROM documents`).Scan(&n, &highest)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n != docs || highest != n {
		t.Errorf("the copy's documents: %d, numbered up to %d: want 1 to %d without a gap", n, highest, docs)
	}

	copyDB, err := sqlite.Open(t.Context(), dst)
	if err != nil {
		t.Fatalf("open the copy as a store: %v", err)
	}
	defer copyDB.Close()
	if _, err := copyDB.FindTenantByID(t.Context(), tn.ID); err != nil {
		t.Errorf("the copy's tenant: %v", err)
	}
}

func TestBackupRefuses(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "sello.db")
	mustOpenAt(t, dir)

	t.Run("ErrExists", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(dst, []byte("an older backup"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := sqlite.Backup(t.Context(), src, dst)
		if err == nil || !strings.Contains(err.Error(), "exists already") {
			t.Fatalf("Backup onto an existing file: %v, want exists already", err)
		}
		if b, _ := os.ReadFile(dst); string(b) != "an older backup" {
			t.Errorf("the existing file changed: %q", b)
		}
	})

	t.Run("ErrNoSource", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "none", "sello.db")
		dst := filepath.Join(t.TempDir(), "copy.db")
		if err := sqlite.Backup(t.Context(), missing, dst); err == nil {
			t.Fatal("Backup of a missing file: nil error")
		}
		for _, p := range []string{missing, dst, dst + ".partial"} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s: %v, want nothing created", p, err)
			}
		}
	})

	t.Run("ErrCorrupt", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "copy.db")
		if err := sqlite.Backup(t.Context(), src, dst); err != nil {
			t.Fatal(err)
		}
		if _, err := sqlite.CheckBackup(t.Context(), dst); err != nil {
			t.Fatalf("CheckBackup of a sound copy: %v", err)
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		// Past the first page (the header and the schema's root), every
		// page is garbage.
		for i := 4096; i < len(b); i++ {
			b[i] = byte(i * 7)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if r, err := sqlite.CheckBackup(t.Context(), dst); err == nil {
			t.Fatalf("CheckBackup of a corrupted copy: nil error, report %+v", r)
		}
	})

	t.Run("ErrNotSello", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.db")
		raw, err := sql.Open("sqlite", other)
		if err != nil {
			t.Fatal(err)
		}
		_, err = raw.Exec(`CREATE TABLE t (x)`)
		raw.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, err = sqlite.CheckBackup(t.Context(), other)
		if err == nil || !strings.Contains(err.Error(), "not a Sello database") {
			t.Fatalf("CheckBackup of another database: %v, want not a Sello database", err)
		}
	})
}
