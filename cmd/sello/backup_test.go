package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/sqlite"
)

// TestBackupCLI backs up a running server's SQLite database while clients
// create documents, then restores the copy into a new data folder (with
// the master key, kept apart from it) and serves it: every document
// created before the backup began is there.
func TestBackupCLI(t *testing.T) {
	s := MustRunServer(t)
	key := s.Keys[sello.EnvTest]

	var mu sync.Mutex
	var created []string // e-NCFs answered 202, in order
	var writeErr error
	warm := make(chan struct{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			encf, err := postInvoice(s.URL+docsPath, key)
			mu.Lock()
			if err != nil {
				writeErr = err
				mu.Unlock()
				return
			}
			if created = append(created, encf); len(created) == 10 {
				close(warm)
			}
			mu.Unlock()
		}
	})
	<-warm
	mu.Lock()
	before := slices.Clone(created)
	mu.Unlock()
	out := filepath.Join(t.TempDir(), "sello-backup.db")
	stdout, stderr, err := runCLI("backup", "--data", s.Data, "--out", out)
	mu.Lock()
	after := len(created)
	mu.Unlock()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("sello backup: %v\nstderr: %s", err, stderr)
	}
	if writeErr != nil {
		t.Fatalf("a create failed during the backup: %v", writeErr)
	}
	if !regexp.MustCompile(`^copied .+sello\.db to .+sello-backup\.db: \d+ bytes in `).MatchString(stdout) {
		t.Errorf("sello backup printed:\n%s\nwant copied … to …: N bytes in …", stdout)
	}
	if want := fmt.Sprintf("integrity ok; schema version %d (this sello's: %d)\n", sqlite.SchemaVersion(), sqlite.SchemaVersion()); !strings.Contains(stdout, want) {
		t.Errorf("sello backup printed:\n%s\nwant %q", stdout, want)
	}
	docs := backupRows(t, stdout, "documents")
	if docs < len(before) || docs > after {
		t.Fatalf("the copy has %d documents; %d were created before the backup, %d by its end", docs, len(before), after)
	}

	// --check alone reads the same copy.
	checked, stderr, err := runCLI("backup", "--check", out)
	if err != nil {
		t.Fatalf("sello backup --check: %v\nstderr: %s", err, stderr)
	}
	if got := backupRows(t, checked, "documents"); got != docs {
		t.Errorf("--check counts %d documents, the backup %d", got, docs)
	}

	// The restore: the copy as sello.db, and the master key, in a new
	// data folder.
	s.Stop(t)
	restored := t.TempDir()
	mustCopyFile(t, out, filepath.Join(restored, "sello.db"))
	mustCopyFile(t, filepath.Join(s.Data, masterKeyFile), filepath.Join(restored, masterKeyFile))
	r := mustStartServer(t, restored, false)
	for _, encf := range before {
		if got := r.Do(t, request{Method: "GET", Path: docsPath + "/" + encf, Key: key}); got.Status != http.StatusOK {
			t.Fatalf("restored: GET %s: %d %s", encf, got.Status, got.Body)
		}
	}
}

func TestBackupCLIRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"PostgreSQL", []string{"--database-url", "postgres://sello@db.example/sello", "--out", "x.db"}, "pg_dump"},
		{"NoFile", nil, "needs --out FILE"},
		{"Both", []string{"--out", "a.db", "--check", "b.db"}, "needs --out FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCLI(append([]string{"backup", "--data", t.TempDir()}, tc.args...)...)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(u.msg, tc.want) {
				t.Fatalf("sello backup %s: %v, want a usage error saying %q", strings.Join(tc.args, " "), err, tc.want)
			}
		})
	}
	t.Run("ErrNoData", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(t.TempDir(), "copy.db")
		_, _, err := runCLI("backup", "--data", dir, "--out", out)
		if err == nil || !strings.Contains(err.Error(), "no Sello data at "+dir) {
			t.Fatalf("sello backup of an empty folder: %v, want no Sello data at %s", err, dir)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("the folder now holds %v, want nothing", entries)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want nothing created", out, err)
		}
	})
}

// postInvoice creates a demo invoice and returns its e-NCF.
func postInvoice(url, key string) (string, error) {
	req, err := http.NewRequest("POST", url, bytes.NewReader(invoice()))
	if err != nil {
		return "", err
	}
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var body struct {
		Document struct {
			ENCF string `json:"encf"`
		} `json:"document"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("create: %d (%v)", resp.StatusCode, err)
	}
	return body.Document.ENCF, nil
}

// backupRows reads a table's rows from sello backup's report.
func backupRows(tb testing.TB, report, table string) int {
	tb.Helper()
	m := regexp.MustCompile(`(?m)^` + table + ` +(\d+)$`).FindStringSubmatch(report)
	if m == nil {
		tb.Fatalf("no %s row in:\n%s", table, report)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func mustCopyFile(tb testing.TB, from, to string) {
	tb.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}
