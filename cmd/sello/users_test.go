package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite"
)

// TestUsersCLI: users create makes the tenant's first owner and prints a
// one-time link valid 24 h; later users join beside the owner; users list
// shows them; every change is in the tenant's audit log.
func TestUsersCLI(t *testing.T) {
	dir := t.TempDir()
	sh := func(args ...string) (string, string, error) { return runCLI(append(args, "--data", dir)...) }
	if _, _, err := sh("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL"); err != nil {
		t.Fatal(err)
	}
	// The first user must be the owner.
	out, _, err := sh("users", "create", "--tenant", "130000002", "--email", "luis@example.com", "--role", "developer")
	if err == nil || out != "" || !strings.Contains(describe(err), "first user must be --role owner") {
		t.Fatalf("a first user who is not an owner: %q, %v", out, err)
	}
	before := time.Now()
	out, _, err = sh("users", "create", "--tenant", "130000002", "--email", "Ana@Example.com", "--role", "owner")
	token, ok := strings.CutPrefix(strings.TrimSpace(out), defaultPortalURL+sello.LinkPath)
	if err != nil || !ok || strings.Count(out, "\n") != 1 || len(token) != 43 {
		t.Fatalf("users create printed %q, %v; want the link alone", out, err)
	}
	out, _, err = sh("users", "create", "--tenant", "130000002", "--email", "luis@example.com", "--role", "developer", "--portal-url", "https://sello.example.com/")
	if err != nil || !strings.HasPrefix(out, "https://sello.example.com"+sello.LinkPath) {
		t.Fatalf("users create --portal-url: %q, %v", out, err)
	}

	db, err := sqlite.Open(t.Context(), filepath.Join(dir, "sello.db"))
	if err != nil {
		t.Fatal(err)
	}
	tn, _ := db.FindTenantByRNC(t.Context(), "130000002")
	link, err := db.FindLink(t.Context(), sello.HashToken(token), time.Now())
	if err != nil {
		t.Fatalf("the printed link: %v", err)
	}
	if link.Purpose != sello.LinkInvite || link.Email != "ana@example.com" || link.TenantID != tn.ID || link.Role != sello.RoleOwner ||
		link.ExpiresAt.Before(before.Add(24*time.Hour-time.Second)) || link.ExpiresAt.After(time.Now().Add(24*time.Hour)) {
		t.Fatalf("link %+v: want an owner's invitation to the tenant for ana@example.com, valid 24 h", link)
	}
	entries, err := db.FindAudit(t.Context(), tn.ID, sello.AuditFilter{})
	db.Close()
	if err != nil || len(entries) != 2 || entries[1].Action != "user.invited" || entries[1].ActorEmail != "operator" ||
		string(entries[1].After) != `{"email":"ana@example.com","role":"owner"}` {
		t.Fatalf("audit after two invitations: %d entries, %v", len(entries), err)
	}

	out, _, err = sh("users", "list", "--tenant", "130000002")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "email role password secondFactor userId memberSince" ||
		strings.Join(strings.Fields(lines[1])[:4], " ") != "ana@example.com owner pending off" ||
		strings.Join(strings.Fields(lines[2])[:4], " ") != "luis@example.com developer pending off" {
		t.Fatalf("users list: %q, %v", out, err)
	}

	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrLastOwner", []string{"users", "create", "--tenant", "130000002", "--email", "ana@example.com", "--role", "admin"}, "keep an owner"},
		{"ErrRole", []string{"users", "create", "--tenant", "130000002", "--email", "eva@example.com", "--role", "root"}, "Unknown role"},
		{"ErrEmail", []string{"users", "create", "--tenant", "130000002", "--email", "eva", "--role", "admin"}, "not an email"},
		{"ErrNoEmail", []string{"users", "create", "--tenant", "130000002", "--role", "admin"}, "--email is required"},
		{"ErrPortalURL", []string{"users", "create", "--tenant", "130000002", "--email", "eva@example.com", "--role", "admin", "--portal-url", "sello.example.com"}, "--portal-url must be"},
		{"ErrTenant", []string{"users", "list", "--tenant", "999999999"}, "No tenant has RNC 999999999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh(tt.args...)
			if err == nil || out != "" || !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("got %q, %v; want a refusal with %q", out, err, tt.msg)
			}
		})
	}
}

// TestAuditVerifyCLI: audit verify passes on whole chains and, after an
// entry is edited in the database (its trigger dropped first), fails
// naming the tenant and the edited entry's seq; on both engines.
func TestAuditVerifyCLI(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		dir := t.TempDir()
		testAuditVerify(t, []string{"--data", dir}, func(t *testing.T, refused, drop, edit string) {
			db, err := sqlite.Open(t.Context(), filepath.Join(dir, "sello.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err = db.SQL().ExecContext(t.Context(), refused); err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Fatalf("UPDATE of an audit entry: %v; want the trigger's refusal", err)
			}
			for _, q := range []string{drop, edit} {
				if _, err := db.SQL().ExecContext(t.Context(), q); err != nil {
					t.Fatal(err)
				}
			}
		}, "DROP TRIGGER audit_log_no_update")
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		u := pgtest.MustSchema(t)
		testAuditVerify(t, []string{"--database-url", u}, func(t *testing.T, refused, drop, edit string) {
			conn, err := pgx.Connect(t.Context(), u)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(t.Context())
			if _, err = conn.Exec(t.Context(), refused); err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Fatalf("UPDATE of an audit entry: %v; want the trigger's refusal", err)
			}
			for _, q := range []string{drop, edit} {
				if _, err := conn.Exec(t.Context(), q); err != nil {
					t.Fatal(err)
				}
			}
		}, "ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_change")
	})
}

func testAuditVerify(t *testing.T, storage []string, tamper func(t *testing.T, refused, drop, edit string), drop string) {
	sh := func(args ...string) (string, string, error) { return runCLI(append(args, storage...)...) }
	for _, rnc := range []string{"130000002", "130000003"} {
		if _, _, err := sh("tenants", "create", "--rnc", rnc, "--name", "Prueba SRL"); err != nil {
			t.Fatal(err)
		}
		for _, email := range []string{"ana@example.com", "luis@example.com", "eva@example.com"} {
			if _, _, err := sh("users", "create", "--tenant", rnc, "--email", email, "--role", "owner"); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, _, err := sh("audit", "verify")
	if err != nil || strings.Count(out, " ok\n") != 2 || !strings.Contains(out, "130000003  3") {
		t.Fatalf("audit verify of whole chains: %q, %v", out, err)
	}
	out, _, err = sh("audit", "list", "--tenant", "130000002", "--limit", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 || !strings.HasPrefix(lines[1], "3 ") || !strings.Contains(lines[1], "user.invited") || !strings.Contains(lines[1], `{"email":"eva@example.com","role":"owner"}`) {
		t.Fatalf("audit list: %q, %v", out, err)
	}

	tamper(t, `UPDATE audit_log SET actor_email = 'someone@example.com' WHERE seq = 2`, drop,
		`UPDATE audit_log SET actor_email = 'someone@example.com' WHERE seq = 2 AND tenant_id = (SELECT id FROM tenants WHERE rnc = '130000003')`)

	for _, args := range [][]string{{"audit", "verify"}, {"audit", "verify", "--tenant", "130000003"}} {
		out, _, err = sh(args...)
		if err == nil || !strings.Contains(describe(err), "tenant 130000003 is broken at seq 2") || !strings.Contains(out, "BROKEN at seq 2") {
			t.Fatalf("%v after an edit: %q, %v; want the tenant and seq 2 named", args, out, err)
		}
	}
	if out, _, err := sh("audit", "verify", "--tenant", "130000002"); err != nil || !strings.Contains(out, " ok") {
		t.Fatalf("the other tenant's chain: %q, %v", out, err)
	}
}
