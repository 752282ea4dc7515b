package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/postgres/pgtest"
)

// TestPostgres runs the service in its scale-out mode: two nodes on one
// PostgreSQL database, sharing numbering and rate limits, and the operator
// CLI beside them.
func TestPostgres(t *testing.T) {
	dbURL := pgtest.MustSchema(t)
	a := MustRunServer(t, "--database-url", dbURL)
	// The second node finds the demo tenant and prints no keys.
	b := MustRunServer(t, "--database-url", dbURL)
	if len(b.Keys) != 0 {
		t.Fatalf("second node printed keys %v", b.Keys)
	}
	key := a.Keys[sello.EnvTest]

	// Creates spread over both nodes use each number exactly once.
	var wg sync.WaitGroup
	encfs := make([]string, 20)
	for i := range encfs {
		node := a
		if i%2 == 1 {
			node = b
		}
		wg.Go(func() {
			r := node.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
			if r.Status == http.StatusAccepted {
				encfs[i] = document(t, r)["encf"].(string)
			}
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, e := range encfs {
		seen[e] = true
	}
	for n := 1; n <= len(encfs); n++ {
		if e := fmt.Sprintf("E31%010d", n); !seen[e] {
			t.Fatalf("number %s not used; got %v", e, encfs)
		}
	}

	r := b.Do(t, request{Method: "POST", Path: docsPath + "/status/batch", Key: key, Body: []byte(`{"encfs":["E310000000020"]}`)})
	if res := r.JSON(t)["results"].([]any)[0].(map[string]any); res["found"] != true {
		t.Fatalf("node b does not see node a's document: %v", res)
	}

	// A pre-flight runs the create in PostgreSQL's transaction and rolls it
	// back: the create's 409, and no number consumed.
	wantError(t, a.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: invoice(withENCF("E310000000020"))}), http.StatusConflict, sello.CodeConflict)
	if r := b.Do(t, request{Method: "POST", Path: docsPath + "?validate=true", Key: key, Body: invoice()}); r.Status != http.StatusOK {
		t.Fatalf("pre-flight: %d %s", r.Status, r.Body)
	}
	if got := document(t, a.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()}))["encf"]; got != "E310000000021" {
		t.Fatalf("create after the pre-flights took %v, want E310000000021", got)
	}

	// The operator CLI on the same database; the rate limit is shared by the nodes.
	a.cli(t, "tenants", "create", "--rnc", "303030303", "--name", "Limitada SRL", "--plan", "tiny", "--rate", "0.01", "--burst", "3")
	tiny := strings.TrimSpace(a.cli(t, "keys", "create", "--tenant", "303030303", "--env", "TesteCF", "--scopes", "ecf:read"))
	for i, node := range []*testServer{a, b, a} {
		if r := node.Do(t, request{Method: "GET", Path: docsPath, Key: tiny}); r.Status != http.StatusOK {
			t.Fatalf("request %d: %d", i, r.Status)
		}
	}
	wantError(t, b.Do(t, request{Method: "GET", Path: docsPath, Key: tiny}), http.StatusTooManyRequests, sello.CodeRateLimited)
}
