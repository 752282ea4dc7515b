package main

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
)

// dataGroups are the command groups that open the storage.
var dataGroups = []string{"tenants", "keys", "sequences", "certificates", "webhooks"}

// nonCreating returns every storage command but tenants create, as the
// arguments that run it, read from the usage error each group answers to
// an unknown sub-command (so a new command is covered when it is added).
func nonCreating(tb testing.TB) [][]string {
	tb.Helper()
	var cmds [][]string
	for _, group := range dataGroups {
		_, _, err := runCLI(group, "no-such-command")
		m := regexp.MustCompile(`use sello \S+ (\S+)$`).FindStringSubmatch(describe(err))
		if m == nil {
			tb.Fatalf("sello %s no-such-command: %v; want the list of its commands", group, err)
		}
		for _, name := range strings.Split(m[1], "|") {
			if group == "tenants" && name == "create" {
				continue
			}
			cmds = append(cmds, []string{group, name})
		}
	}
	if len(cmds) < 15 {
		tb.Fatalf("found %d commands: %v", len(cmds), cmds)
	}
	return cmds
}

// TestNoData: outside serve and tenants create, a command pointed at a
// folder without Sello's data says so, names the folder, and creates
// nothing, not the folder, not a database.
func TestNoData(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "missing")
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range nonCreating(t) {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			for _, dir := range []string{missing, empty} {
				out, _, err := runCLI(append(args, "--data", dir)...)
				if !errors.Is(err, errNoData) {
					t.Fatalf("--data %s: got %q, %v; want the no-data error", dir, out, err)
				}
				want := "no Sello data at " + dir + " (no sello.db in it): point --data (or SELLO_DATA) at your data folder"
				if msg := describe(err); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "run sello serve or sello tenants create") {
					t.Errorf("message %q; want it to start %q and say how to start new data", msg, want)
				}
			}
			mustEntries(t, root, "empty")
			mustEntries(t, empty)
		})
	}

	// The case: sello webhooks add from the wrong folder, with the
	// default --data.
	t.Run("DefaultFolder", func(t *testing.T) {
		t.Chdir(t.TempDir())
		wd, _ := os.Getwd()
		_, _, err := runCLI("webhooks", "add", "--tenant", "130000002", "--env", "TesteCF", "--url", "https://hooks.example.com/sello", "--generate-secret")
		if !errors.Is(err, errNoData) || !strings.Contains(describe(err), filepath.Join(wd, "sello-data")) {
			t.Fatalf("got %v; want the no-data error naming %s", err, filepath.Join(wd, "sello-data"))
		}
		mustEntries(t, wd)
	})

	// tenants create starts the data, and then the others find it.
	if _, _, err := runCLI("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL", "--data", missing); err != nil {
		t.Fatalf("tenants create: %v", err)
	}
	if out, _, err := runCLI("tenants", "list", "--data", missing); err != nil || !strings.Contains(out, "130000002") {
		t.Fatalf("tenants list after tenants create: %q, %v", out, err)
	}
}

// mustEntries checks that dir holds exactly the names given.
func mustEntries(tb testing.TB, dir string, names ...string) {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		tb.Errorf("%s holds %q; want %q", dir, got, names)
	}
}

// TestNoDataPostgres: the same on PostgreSQL, in an empty schema: the
// command refuses without migrating, and leaves the schema as it found it.
// Not in a new database: DROP DATABASE checkpoints and holds back the
// server's xmin for seconds, and meanwhile the events feed of every
// PostgreSQL suite running on the server shows no new event (likely why
// storetest's webhook tests failed in one run beside it). In a new
// database Exists would look in public, its current_schema(); TestExists
// covers current_schema() through search_path.
func TestNoDataPostgres(t *testing.T) {
	dbURL := pgtest.MustSchema(t)
	for _, args := range nonCreating(t) {
		out, _, err := runCLI(append(args, "--database-url", dbURL)...)
		if !errors.Is(err, errNoData) {
			t.Fatalf("%s: got %q, %v; want the no-data error", strings.Join(args, " "), out, err)
		}
		if msg := describe(err); !strings.HasPrefix(msg, "no Sello data in the PostgreSQL database ") || !strings.Contains(msg, "point --database-url (or SELLO_DATABASE_URL) at your database") {
			t.Fatalf("%s: message %q", strings.Join(args, " "), msg)
		}
	}
	if n := countTables(t, dbURL); n != 0 {
		t.Fatalf("%d tables after the refused commands; want none", n)
	}

	t.Run("PasswordNotShown", func(t *testing.T) {
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), "s3cret-pw")
		_, _, err = runCLI("tenants", "list", "--database-url", u.String())
		if err == nil || strings.Contains(describe(err), "s3cret-pw") {
			t.Fatalf("got %v; want an error without the password", err)
		}
	})

	// tenants create starts the data, and then the others find it.
	if _, _, err := runCLI("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL", "--database-url", dbURL); err != nil {
		t.Fatalf("tenants create: %v", err)
	}
	if out, _, err := runCLI("tenants", "list", "--database-url", dbURL); err != nil || !strings.Contains(out, "130000002") {
		t.Fatalf("tenants list after tenants create: %q, %v", out, err)
	}
}

// countTables counts the tables in the schema dbURL selects.
func countTables(tb testing.TB, dbURL string) int {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestDataFolderModes: the data folder is 0700 and the files in it 0600
// whatever the umask; an existing folder or master key with a wider mode
// is narrowed, with a warning. The umask is the process's: this test must
// not run in parallel with others.
func TestDataFolderModes(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0))

	t.Run("New", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if _, stderr, err := runCLI("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL", "--data", dir); err != nil || stderr != "" {
			t.Fatalf("tenants create: %q, %v", stderr, err)
		}
		mustFileMode(t, dir, 0o700)
		mustFileMode(t, filepath.Join(dir, "sello.db"), 0o600)

		// serve --demo: the master key is generated before the store
		// opens, into a folder that may be there already.
		var stderr strings.Builder
		sf := storageFlags{data: filepath.Join(t.TempDir(), "demo"), stderr: &stderr}
		if err := os.Mkdir(sf.data, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := sf.masterKey(noEnv, true); err != nil {
			t.Fatalf("masterKey: %v", err)
		}
		mustFileMode(t, sf.data, 0o700)
		mustFileMode(t, filepath.Join(sf.data, masterKeyFile), 0o600)
		if want := "sello: warning: the data folder " + sf.data + " was mode 0755"; !strings.HasPrefix(stderr.String(), want) {
			t.Errorf("stderr %q; want %q…", stderr.String(), want)
		}
	})
	t.Run("Existing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, _, err := runCLI("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL", "--data", dir); err != nil {
			t.Fatalf("tenants create: %v", err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "sello.db"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, masterKeyFile), []byte(sello.GenerateMasterKey()+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, err := runCLI("tenants", "list", "--data", dir)
		if err != nil || !strings.Contains(out, "130000002") {
			t.Fatalf("tenants list: %q, %v", out, err)
		}
		for _, want := range []string{
			"sello: warning: the data folder " + dir + " was mode 0755, open to other users; it is now 0700\n",
			"sello: warning: the master key file " + filepath.Join(dir, masterKeyFile) + " was mode 0644, open to other users; it is now 0600\n",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr %q; want %q", stderr, want)
			}
		}
		mustFileMode(t, dir, 0o700)
		for _, name := range []string{"sello.db", masterKeyFile} {
			mustFileMode(t, filepath.Join(dir, name), 0o600)
		}
		// Nothing to say the second time.
		if _, stderr, err := runCLI("tenants", "list", "--data", dir); err != nil || stderr != "" {
			t.Fatalf("tenants list again: %q, %v", stderr, err)
		}
	})
}

func mustFileMode(tb testing.TB, path string, want fs.FileMode) {
	tb.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		tb.Errorf("%s: mode %#o, want %#o", path, got, want)
	}
}
