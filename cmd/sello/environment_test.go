package main

import (
	"strings"
	"testing"
)

// TestCLIEnvironmentAnyCase checks that every --env takes the environment in
// any case: the API paths' TesteCF and the events' testecf alike.
func TestCLIEnvironmentAnyCase(t *testing.T) {
	dir := t.TempDir()
	sh := func(args ...string) (string, error) {
		out, _, err := runCLI(append(args, "--data", dir)...)
		return out, err
	}
	if _, err := sh("tenants", "create", "--rnc", "130000003", "--name", "Prueba SRL"); err != nil {
		t.Fatal(err)
	}
	for env, prefix := range map[string]string{"testecf": "sk_testecf_", "TesteCF": "sk_testecf_", "CERTECF": "sk_certecf_", "ecf": "sk_ecf_"} {
		out, err := sh("keys", "create", "--tenant", "130000003", "--env", env, "--scopes", "status:read")
		if err != nil || !strings.HasPrefix(out, prefix) {
			t.Errorf("keys create --env %s: %q, %v; want a key %s…", env, out, err, prefix)
		}
	}
	if out, err := sh("sequences", "add", "--tenant", "130000003", "--env", "certecf", "--type", "31", "--from", "1", "--to", "10", "--expires", "31-12-2099"); err != nil {
		t.Fatalf("sequences add --env certecf: %q, %v", out, err)
	}
	out, err := sh("sequences", "list", "--tenant", "130000003", "--env", "CerteCF")
	if err != nil || !strings.Contains(out, "E31 ") {
		t.Fatalf("sequences list --env CerteCF: %q, %v; want the range added with --env certecf", out, err)
	}
	if out, err := sh("webhooks", "list", "--tenant", "130000003", "--env", "testecf"); err != nil {
		t.Fatalf("webhooks list --env testecf: %q, %v", out, err)
	}
	if _, err := sh("webhooks", "list", "--tenant", "130000003", "--env", "test"); err == nil || !strings.Contains(describe(err), "TesteCF, CerteCF or eCF") {
		t.Fatalf("webhooks list --env test: %v; want the environments named", err)
	}
}
