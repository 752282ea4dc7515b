package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/xmldsig"
)

// TestVoids: the whole of a void through the real API, the worker and the
// DGII simulator over HTTP, with the CLI beside it, on SQLite and
// PostgreSQL: voided numbers are never assigned; used numbers are refused
// pointing to E34, numbers outside the ranges too; tenants and
// environments are isolated; only tenant:admin voids.
func TestVoids(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		s, _ := mustLifecycleServer(t)
		testVoids(t, s)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		s, _ := mustLifecycleServer(t, "--database-url", pgtest.MustSchema(t))
		testVoids(t, s)
	})
}

const voidsPath = "/TesteCF/anulaciones"

// voidRanges is a POST /{env}/anulaciones body of E31 ranges.
func voidRanges(ranges ...[2]int64) []byte {
	var rs []string
	for _, r := range ranges {
		rs = append(rs, fmt.Sprintf(`{"type":"E31","from":%d,"to":%d}`, r[0], r[1]))
	}
	return []byte(`{"ranges":[` + strings.Join(rs, ",") + `]}`)
}

// voidDone polls a void until DGII's answer is recorded (30 s at most).
func (s *testServer) voidDone(tb testing.TB, key, env, id string) map[string]any {
	tb.Helper()
	var v map[string]any
	var r *response
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		r = s.Do(tb, request{Method: "GET", Path: "/" + env + "/anulaciones/" + id, Key: key})
		if r.Status != http.StatusOK {
			return false
		}
		v = r.JSON(tb)["void"].(map[string]any)
		return v["state"] != "pending"
	}) {
		tb.Fatalf("void %s: still pending after 30 s; last %s", id, r.Body)
	}
	return v
}

func testVoids(t *testing.T, s *testServer) {
	key := s.Keys[sello.EnvTest]
	// Three documents, to verdict: E310000000001–3.
	var used []string
	for range 3 {
		r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
		if r.Status != http.StatusAccepted {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		used = append(used, document(t, r)["encf"].(string))
	}
	for _, e := range used {
		s.final(t, key, e)
	}
	if used[2] != "E310000000003" {
		t.Fatalf("documents %v, want E310000000001–3", used)
	}

	var voidID string
	t.Run("AcceptedAndNeverAssigned", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{4, 13})})
		if r.Status != http.StatusAccepted {
			t.Fatalf("void: %d %s", r.Status, r.Body)
		}
		v := r.JSON(t)["void"].(map[string]any)
		voidID = v["id"].(string)
		if v["state"] != "pending" || v["count"] != 10.0 || v["dgii"] != nil {
			t.Fatalf("void: %s", r.Body)
		}
		done := s.voidDone(t, key, "TesteCF", voidID)
		dgii, _ := done["dgii"].(map[string]any)
		if done["state"] != "accepted" || dgii == nil || dgii["codigo"] != 1.0 || dgii["estado"] != "Anulación procesada" {
			t.Fatalf("void after DGII: %v", done)
		}
		// The next document gets the number after the void.
		r = s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
		if got := document(t, r)["encf"]; got != "E310000000014" {
			t.Fatalf("next document: %v, want E310000000014", got)
		}
		// The signed ANECF, as sent.
		x := s.Do(t, request{Method: "GET", Path: voidsPath + "/" + voidID + "/xml", Key: key})
		if x.Status != http.StatusOK || !strings.Contains(string(x.Body), "<SecuenciaeNCFDesde>E310000000004</SecuenciaeNCFDesde>") {
			t.Fatalf("xml: %d %s", x.Status, x.Body)
		}
		if _, err := xmldsig.Verify(x.Body); err != nil {
			t.Fatalf("ANECF signature: %v", err)
		}
		// Listed, newest first.
		l := s.Do(t, request{Method: "GET", Path: voidsPath, Key: key})
		if vs := l.JSON(t)["data"].([]any); l.Status != http.StatusOK || len(vs) != 1 || vs[0].(map[string]any)["id"] != voidID {
			t.Fatalf("list: %d %s", l.Status, l.Body)
		}
		// The CLI lists the API's void and refuses its numbers, naming it.
		if out := s.cli(t, "voids", "list", "--tenant", demoRNC, "--env", "TesteCF"); !strings.Contains(out, voidID) || !strings.Contains(out, "accepted") {
			t.Fatalf("CLI list:\n%s", out)
		}
		_, _, err := runCLI(append([]string{"voids", "add", "--tenant", demoRNC, "--env", "TesteCF", "--type", "31", "--from", "10", "--to", "13"}, s.storageArgs...)...)
		if err == nil || !strings.Contains(describe(err), voidID) {
			t.Fatalf("CLI: %v; want a refusal naming %s", err, voidID)
		}
	})

	t.Run("CLIVoidSeenByAPI", func(t *testing.T) {
		out := s.cli(t, "voids", "add", "--tenant", demoRNC, "--env", "TesteCF", "--range", "31:100-109", "--range", "E32:5-6")
		id := strings.Fields(out)[0]
		v := s.voidDone(t, key, "TesteCF", id)
		if v["state"] != "accepted" || v["count"] != 12.0 || len(v["ranges"].([]any)) != 2 {
			t.Fatalf("CLI void through the API: %v", v)
		}
	})

	t.Run("ErrUsedPointsToE34", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{2, 3})})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		if msg := e["message"].(string); !strings.Contains(msg, "credit note (type 34, E34)") {
			t.Errorf("message %q does not point to E34", msg)
		}
		if d, _ := json.Marshal(e["details"]); !strings.Contains(string(d), "E310000000002") || !strings.Contains(string(d), "E310000000003") {
			t.Errorf("details %s do not name the used numbers", d)
		}
	})

	t.Run("ErrOutsideRanges", func(t *testing.T) {
		r := s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{9_999_999_990, 9_999_999_999})})
		e := wantError(t, r, http.StatusUnprocessableEntity, sello.CodeValidationFailed)
		if d, _ := json.Marshal(e["details"]); !strings.Contains(string(d), "lies in no registered range") {
			t.Errorf("details %s do not name the numbers outside", d)
		}
	})

	t.Run("Idempotency", func(t *testing.T) {
		h := map[string]string{"Idempotency-Key": "void-200"}
		first := s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{200, 200}), Header: h})
		again := s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{200, 200}), Header: h})
		if first.Status != http.StatusAccepted || again.Status != http.StatusAccepted || again.Header.Get("Idempotent-Replayed") != "true" ||
			first.JSON(t)["void"].(map[string]any)["id"] != again.JSON(t)["void"].(map[string]any)["id"] {
			t.Fatalf("replay: %d %s / %d %s", first.Status, first.Body, again.Status, again.Body)
		}
		wantError(t, s.Do(t, request{Method: "POST", Path: voidsPath, Key: key, Body: voidRanges([2]int64{201, 201}), Header: h}),
			http.StatusConflict, sello.CodeIdempotencyKeyReused)
	})

	t.Run("Isolation", func(t *testing.T) {
		const other = "101010103"
		s.cli(t, "tenants", "create", "--rnc", other, "--name", "Otra SRL")
		s.cli(t, "sequences", "add", "--tenant", other, "--env", "TesteCF", "--type", "31", "--from", "1", "--to", "100", "--expires", "31-12-2099")
		otherKey := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", other, "--env", "TesteCF", "--scopes", "tenant:admin"))
		wantError(t, s.Do(t, request{Method: "GET", Path: voidsPath + "/" + voidID, Key: otherKey}), http.StatusNotFound, sello.CodeNotFound)
		wantError(t, s.Do(t, request{Method: "GET", Path: voidsPath + "/" + voidID + "/xml", Key: otherKey}), http.StatusNotFound, sello.CodeNotFound)
		if l := s.Do(t, request{Method: "GET", Path: voidsPath, Key: otherKey}); l.Status != http.StatusOK || len(l.JSON(t)["data"].([]any)) != 0 {
			t.Fatalf("other tenant's list: %d %s", l.Status, l.Body)
		}
		// Its numbers 4–13 are its own: not voided, voidable.
		if r := s.Do(t, request{Method: "POST", Path: voidsPath, Key: otherKey, Body: voidRanges([2]int64{4, 13})}); r.Status != http.StatusAccepted {
			t.Fatalf("other tenant's void: %d %s", r.Status, r.Body)
		}
		// Another environment of the same tenant.
		certKey := s.Keys[sello.EnvCert]
		wantError(t, s.Do(t, request{Method: "GET", Path: "/CerteCF/anulaciones/" + voidID, Key: certKey}), http.StatusNotFound, sello.CodeNotFound)
		if r := s.Do(t, request{Method: "POST", Path: "/CerteCF/anulaciones", Key: certKey, Body: voidRanges([2]int64{4, 13})}); r.Status != http.StatusAccepted {
			t.Fatalf("CerteCF void of the same numbers: %d %s", r.Status, r.Body)
		}
		wantError(t, s.Do(t, request{Method: "GET", Path: "/CerteCF/anulaciones", Key: key}), http.StatusForbidden, sello.CodeEnvironmentMismatch)
	})

	t.Run("ErrScope", func(t *testing.T) {
		k := strings.TrimSpace(s.cli(t, "keys", "create", "--tenant", demoRNC, "--env", "TesteCF", "--scopes", "ecf:create,ecf:validate,status:read,ecf:read"))
		for _, req := range []request{
			{Method: "POST", Path: voidsPath, Key: k, Body: voidRanges([2]int64{300, 301})},
			{Method: "GET", Path: voidsPath, Key: k},
			{Method: "GET", Path: voidsPath + "/" + voidID, Key: k},
			{Method: "GET", Path: voidsPath + "/" + voidID + "/xml", Key: k},
		} {
			e := wantError(t, s.Do(t, req), http.StatusForbidden, sello.CodeInsufficientScope)
			if !strings.Contains(e["message"].(string), "tenant:admin") {
				t.Errorf("%s %s: message %q does not name tenant:admin", req.Method, req.Path, e["message"])
			}
		}
	})
}

// TestVoidsCLIUsage: voids add needs a range, and --range reads
// type:from-to.
func TestVoidsCLIUsage(t *testing.T) {
	dir := t.TempDir()
	sqlitetest.MustSeed(t, dir)
	data := []string{"--data", dir}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"voids", "add", "--tenant", demoRNC, "--env", "TesteCF"}, "give --type, --from and --to, or --range"},
		{[]string{"voids", "add", "--tenant", demoRNC, "--env", "TesteCF", "--range", "31:5"}, "want type:from-to"},
		{[]string{"voids", "add", "--tenant", demoRNC, "--range", "31:1-5"}, "env"},
	} {
		_, stderr, err := runCLI(append(tt.args, data...)...)
		if err == nil || !strings.Contains(describe(err)+stderr, tt.want) {
			t.Errorf("sello %s: %v %s; want an error saying %q", strings.Join(tt.args, " "), err, stderr, tt.want)
		}
	}
}
