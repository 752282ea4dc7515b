package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sello-do/sello/sqlite"
)

func TestCLI(t *testing.T) {
	dir := t.TempDir()
	sh := func(args ...string) (string, string, error) { return runCLI(append(args, "--data", dir)...) }

	out, _, err := sh("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL")
	if err != nil || out != "130000002\n" {
		t.Fatalf("tenants create: %q, %v", out, err)
	}
	out, _, err = sh("keys", "create", "--tenant", "130000002", "--env", "TesteCF", "--scopes", "ecf:create,status:read", "--name", "erp", "--expires", "2099-01-01")
	if err != nil || !strings.HasPrefix(out, "sk_testecf_") || strings.Count(out, "\n") != 1 || len(strings.TrimSpace(out)) != len("sk_testecf_")+32 {
		t.Fatalf("keys create printed %q, %v; want the key alone", out, err)
	}
	key := strings.TrimSpace(out)
	out, _, err = sh("keys", "list", "--tenant", "130000002")
	if err != nil || !strings.Contains(out, "erp") || !strings.Contains(out, "…"+key[len(key)-4:]) || strings.Contains(out, key) {
		t.Fatalf("keys list: %q, %v (must show last 4, never the key)", out, err)
	}
	out, _, err = sh("sequences", "add", "--tenant", "130000002", "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "1000", "--expires", "2027-12-31")
	if err != nil || !strings.Contains(out, "E310000000001–E310000001000") {
		t.Fatalf("sequences add: %q, %v", out, err)
	}
	// DGII's dd-MM-yyyy is accepted too.
	out, _, err = sh("sequences", "add", "--tenant", "130000002", "--env", "TesteCF", "--type", "33", "--from", "1", "--to", "10", "--expires", "31-12-2027")
	if err != nil || !strings.Contains(out, "E330000000001–E330000000010") {
		t.Fatalf("sequences add dd-MM-yyyy: %q, %v", out, err)
	}
	// The list speaks the API: its field names, ISO dates.
	out, _, err = sh("sequences", "list", "--tenant", "130000002", "--env", "TesteCF")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "id type from to next used left expiresOn state createdAt" ||
		!slices.Equal(strings.Fields(lines[1])[1:9], []string{"E31", "1", "1000", "E310000000001", "0", "1000", "2027-12-31", "active"}) ||
		!slices.Equal(strings.Fields(lines[2])[1:9], []string{"E33", "1", "10", "E330000000001", "0", "10", "2027-12-31", "active"}) {
		t.Fatalf("sequences list: %q, %v", out, err)
	}

	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrDuplicateTenant", []string{"tenants", "create", "--rnc", "130000002", "--name", "Otra"}, ""},
		{"ErrBadRNC", []string{"tenants", "create", "--rnc", "12", "--name", "X"}, "9 or 11 digits"},
		{"ErrUnknownTenant", []string{"keys", "create", "--tenant", "999999999", "--env", "TesteCF", "--scopes", "ecf:create"}, "No tenant has RNC 999999999"},
		{"ErrBadScope", []string{"keys", "create", "--tenant", "130000002", "--env", "TesteCF", "--scopes", "ecf:everything"}, "Unknown scope"},
		{"ErrBadEnv", []string{"keys", "create", "--tenant", "130000002", "--env", "Prod", "--scopes", "ecf:create"}, "Unknown environment"},
		{"ErrPastExpiry", []string{"keys", "create", "--tenant", "130000002", "--env", "TesteCF", "--scopes", "ecf:create", "--expires", "2001-01-01"}, "in the past"},
		{"ErrOverlap", []string{"sequences", "add", "--tenant", "130000002", "--env", "TesteCF", "--type", "31", "--from", "500", "--to", "1500", "--expires", "31-12-2027"}, "overlaps the registered range"},
		{"ErrBadRange", []string{"sequences", "add", "--tenant", "130000002", "--env", "TesteCF", "--type", "31", "--from", "10", "--to", "5"}, "not valid"},
		{"ErrRevokeUnknown", []string{"keys", "revoke", "--tenant", "130000002", "--id", "nope"}, ""},
		{"ErrMissingFlag", []string{"keys", "create", "--tenant", "130000002"}, "--env is required"},
		{"ErrUnknownCommand", []string{"keys", "rotate"}, "unknown command"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh(tt.args...)
			if err == nil {
				t.Fatalf("succeeded with %q", out)
			}
			if out != "" {
				t.Fatalf("printed %q on stdout on failure", out)
			}
			if !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("error %q does not contain %q", describe(err), tt.msg)
			}
		})
	}
}

// TestSequencesAddChecks: sequences add (sello.RegisterSequence, as the
// API) refuses an expiry for types 32 and 34, which DGII gives none,
// requires one for the others, and refuses a range already expired.
func TestSequencesAddChecks(t *testing.T) {
	dir := t.TempDir()
	sh := func(args ...string) (string, string, error) {
		return runCLI(append(append([]string{"sequences", "add", "--tenant", "130000002", "--env", "TesteCF"}, args...), "--data", dir)...)
	}
	if _, _, err := runCLI("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL", "--data", dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrExpiresType32", []string{"--type", "32", "--from", "1", "--to", "100", "--expires", "31-12-2099"}, "Type 32 has no sequence expiry"},
		{"ErrExpiresTypeE34", []string{"--type", "E34", "--from", "1", "--to", "100", "--expires", "31-12-2099"}, "Type 34 has no sequence expiry"},
		{"ErrNoExpiry", []string{"--type", "33", "--from", "1", "--to", "100"}, "Type 33 needs the expiry"},
		{"ErrExpired", []string{"--type", "33", "--from", "1", "--to", "100", "--expires", "31-12-2020"}, "expired on 2020-12-31"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh(tt.args...)
			if err == nil || out != "" || !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("got %q, %v; want a refusal with %q", out, err, tt.msg)
			}
		})
	}
	t.Run("OKType32WithoutExpiry", func(t *testing.T) {
		out, errOut, err := sh("--type", "32", "--from", "1", "--to", "100")
		if err != nil || !strings.Contains(out, "E320000000001–E320000000100") || errOut != "" {
			t.Fatalf("got %q %q, %v", out, errOut, err)
		}
	})
	t.Run("OKWithExpiry", func(t *testing.T) {
		out, errOut, err := sh("--type", "31", "--from", "1", "--to", "100", "--expires", "31-12-2099")
		if err != nil || out == "" || errOut != "" {
			t.Fatalf("got %q %q, %v", out, errOut, err)
		}
	})
}

func TestReceiverAuthCLI(t *testing.T) {
	dir := t.TempDir()
	sh := func(args ...string) (string, string, error) { return runCLI(append(args, "--data", dir)...) }
	if _, _, err := sh("tenants", "create", "--rnc", "130000002", "--name", "Prueba SRL"); err != nil {
		t.Fatal(err)
	}
	authOff := func() bool {
		t.Helper()
		db, err := sqlite.Open(t.Context(), filepath.Join(dir, "sello.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tn, err := db.FindTenantByRNC(t.Context(), "130000002")
		if err != nil {
			t.Fatal(err)
		}
		return tn.ReceiverAuthOff
	}
	if authOff() {
		t.Fatal("a new tenant's receiver takes documents without a token")
	}
	out, _, err := sh("tenants", "set-receiver-auth", "--tenant", "130000002", "--required", "off")
	if err != nil || out != "receiver authentication off for 130000002\n" || !authOff() {
		t.Fatalf("--required off: %q, %v, off %v", out, err, authOff())
	}
	if out, _, err := sh("tenants", "set-receiver-auth", "--tenant", "130000002", "--required", "on"); err != nil || authOff() {
		t.Fatalf("--required on: %q, %v, off %v", out, err, authOff())
	}
	for _, args := range [][]string{
		{"--tenant", "130000002", "--required", "maybe"},
		{"--tenant", "130000002"},
		{"--tenant", "999999999", "--required", "off"},
	} {
		if out, _, err := sh(append([]string{"tenants", "set-receiver-auth"}, args...)...); err == nil || out != "" {
			t.Errorf("set-receiver-auth %v: %q, %v; want an error", args, out, err)
		}
	}
}
