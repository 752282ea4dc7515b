package main

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestSequencesCLIAndAPI: the operator CLI and the API register ranges
// through one operation (sello.RegisterSequence) and see each other's, on
// SQLite and PostgreSQL.
func TestSequencesCLIAndAPI(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testSequencesCLIAndAPI(t, MustRunServer(t)) })
	t.Run("PostgreSQL", func(t *testing.T) {
		testSequencesCLIAndAPI(t, MustRunServer(t, "--database-url", pgtest.MustSchema(t)))
	})
}

func testSequencesCLIAndAPI(t *testing.T, s *testServer) {
	const rnc, path = "101010102", "/TesteCF/secuencias"
	s.cli(t, "tenants", "create", "--rnc", rnc, "--name", "Rangos SRL")
	out := s.cli(t, "sequences", "add", "--tenant", rnc, "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "2", "--expires", "31-12-2099")
	cliID := strings.Fields(out)[0]
	admin := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", rnc, "--env", "TesteCF", "--scopes", "tenant:admin,ecf:create"))

	t.Run("APIRefusesOverlapWithCLIRange", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: path, Key: admin, Body: []byte(`{"type":"31","from":2,"to":10,"expiresOn":"2099-12-31"}`)})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		if msg := e["message"].(string); !strings.Contains(msg, cliID) || !strings.Contains(msg, "(1–2)") {
			t.Fatalf("message %q does not name %s (1–2)", msg, cliID)
		}
	})

	t.Run("CLIRefusesOverlapWithAPIRange", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: path, Key: admin, Body: []byte(`{"type":"E33","from":1,"to":100,"expiresOn":"2099-12-31"}`)})
		if r.Status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		id := r.JSON(t)["sequence"].(map[string]any)["id"].(string)
		_, _, err := runCLI(append([]string{"sequences", "add", "--tenant", rnc, "--env", "TesteCF", "--type", "33", "--from", "50", "--to", "60", "--expires", "31-12-2099"}, s.storageArgs...)...)
		if err == nil || !strings.Contains(describe(err), id) {
			t.Fatalf("CLI: %v; want a refusal naming %s", err, id)
		}
		if list := s.cli(t, "sequences", "list", "--tenant", rnc, "--env", "TesteCF"); !strings.Contains(list, id) {
			t.Fatalf("CLI list misses the API's range:\n%s", list)
		}
	})

	t.Run("Isolation", func(t *testing.T) {
		cert := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", rnc, "--env", "CerteCF", "--scopes", "tenant:admin"))
		other := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "tenant:admin"))
		for name, k := range map[string][2]string{"OtherEnvironment": {cert, "/CerteCF/secuencias"}, "OtherTenant": {other, path}} {
			r := s.Do(t, request{Method: "GET", Path: k[1], Key: k[0]})
			if r.Status != http.StatusOK || strings.Contains(string(r.Body), cliID) {
				t.Errorf("%s: %d %s; want 200 without %s", name, r.Status, r.Body, cliID)
			}
		}
		wantError(t, s.Do(t, request{Method: "GET", Path: "/CerteCF/secuencias", Key: admin}), http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})

	t.Run("Exhausted", func(t *testing.T) {
		body := invoice(func(ecf map[string]any) { apitest.Section(ecf, "Emisor")["RNCEmisor"] = rnc })
		for range 2 {
			if r := s.Do(t, request{Method: "POST", Path: docsPath, Key: admin, Body: body}); r.Status != http.StatusAccepted {
				t.Fatalf("create: %d %s", r.Status, r.Body)
			}
		}
		r := s.Do(t, request{Method: "GET", Path: path, Key: admin})
		if r.Status != http.StatusOK {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		seqs := r.JSON(t)["data"].([]any)
		first := seqs[0].(map[string]any)
		if first["id"] != cliID || first["state"] != "exhausted" || first["next"] != nil || first["used"] != 2.0 || first["left"] != 0.0 {
			t.Fatalf("the used-up range: %v", first)
		}

		// The CLI's list speaks the API: its columns are the API's fields,
		// its values the API's ("-" for null), ISO dates included.
		out := s.cli(t, "sequences", "list", "--tenant", rnc, "--env", "TesteCF")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		header := strings.Fields(lines[0])
		if len(lines)-1 != len(seqs) {
			t.Fatalf("CLI lists %d ranges, API %d:\n%s", len(lines)-1, len(seqs), out)
		}
		for i, line := range lines[1:] {
			api := seqs[i].(map[string]any)
			if got, want := strings.Join(header, " "), strings.Join(slices.Sorted(maps.Keys(api)), " "); strings.Join(slices.Sorted(slices.Values(header)), " ") != want {
				t.Fatalf("CLI columns %s, want the API's fields %s", got, want)
			}
			for j, v := range strings.Fields(line) {
				want := "-"
				switch x := api[header[j]].(type) {
				case string:
					want = x
				case float64:
					want = strconv.FormatFloat(x, 'f', -1, 64)
				}
				if v != want {
					t.Errorf("range %d, %s: CLI %q, API %q", i, header[j], v, want)
				}
			}
		}
	})
}
