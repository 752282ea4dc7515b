package main

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres/pgtest"
)

// contingencyArgs run a server against the simulator at url with a
// contingency threshold of 200 ms.
func contingencyArgs(url string) []string {
	return []string{"--dgii-url", url, "--dgii-timeout", "2s", "--contingency-after", "200ms"}
}

// TestContingency: DGII down for longer than --contingency-after. Documents
// are still accepted (202), numbered and signed, those signed in
// contingency say so; dgii.unavailable fires once; when DGII returns
// dgii.available fires once, every document reaches a verdict, DGII gets
// them oldest first and each once. On SQLite, and on PostgreSQL with two
// nodes sharing the work (the transitions still happen once).
func TestContingency(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		sim, url := mustSimulator(t)
		testContingency(t, sim, []*testServer{MustRunServer(t, contingencyArgs(url)...)})
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		dbURL := pgtest.MustSchema(t)
		sim, url := mustSimulator(t)
		a := MustRunServer(t, append(contingencyArgs(url), "--database-url", dbURL)...)
		// b shares a's data folder for its master key (the demo's, in
		// the folder): either node signs any tenant's documents.
		b := MustRunServer(t, append(contingencyArgs(url), "--database-url", dbURL, "--data", a.Data)...)
		testContingency(t, sim, []*testServer{a, b})
	})
}

func testContingency(t *testing.T, sim *dgiisim.Simulator, nodes []*testServer) {
	s := nodes[0]
	key := s.Keys[sello.EnvTest]
	node := func(i int) *testServer { return nodes[i%len(nodes)] }
	create := func(i int, body []byte) string {
		t.Helper()
		r := node(i).Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: body})
		if r.Status != http.StatusAccepted {
			t.Fatalf("create during the outage: %d %s", r.Status, r.Body)
		}
		return document(t, r)["encf"].(string)
	}
	signed := func(d map[string]any) bool { return d["status"] == "signed" }

	sim.SetDown(true)
	// Signed before the threshold passes: not in contingency; its send
	// fails and starts the count.
	encfs := []string{create(0, invoice())}
	if d := s.waitFor(t, key, encfs[0], signed); d["contingency"] != false {
		t.Fatalf("signed before the contingency: contingency %v", d["contingency"])
	}
	unavailable := waitEvents(t, s, key, sello.EventDGIIUnavailable, 1)[0]
	since := unavailable["data"].(map[string]any)["payload"].(map[string]any)["since"]
	if unavailable["document"] != nil || unavailable["environment"] != "testecf" || since == nil {
		t.Fatalf("dgii.unavailable %v", unavailable)
	}

	// In contingency: accepted, numbered, signed, marked. The last is a
	// type 32 under DOP 250,000 (an RFCE).
	for i := 1; i <= 5; i++ {
		encfs = append(encfs, create(i, invoice()))
	}
	encfs = append(encfs, create(6, invoice(func(ecf map[string]any) {
		apitest.IdDoc(ecf)["TipoeCF"] = "32"
		apitest.Section(ecf, "Comprador")["RNCComprador"] = "131880681"
	})))
	for _, e := range encfs[1:] {
		d := s.waitFor(t, key, e, signed)
		if d["contingency"] != true || d["securityCode"] == nil || d["signedAt"] == nil {
			t.Fatalf("%s signed in contingency: %v", e, d)
		}
	}
	st := dgiiStatus(t, node(1), key)
	if st["state"] != "contingency" || st["since"] != since || st["waiting"] != float64(len(encfs)) || st["until"] != nil {
		t.Fatalf("estado-dgii during the outage: %v, want contingency since %v with %d waiting", st, since, len(encfs))
	}
	for _, snd := range sim.Sends() {
		if slices.Contains(encfs, snd.ENCF) {
			t.Fatalf("%s reached DGII while it was down", snd.ENCF)
		}
	}
	// The operator sees it too.
	out := s.cli(t, "dgii", "status", "--tenant", demoRNC)
	if !regexp.MustCompile(`(?m)^TesteCF +contingency +`+regexp.QuoteMeta(since.(string))+` +- +\S+ +`+strconv.Itoa(len(encfs))+` +\S+Z +\S+Z$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^eCF +available +- +- +- +0 +- +-$`).MatchString(out) {
		t.Fatalf("sello dgii status:\n%s", out)
	}

	sim.SetDown(false)
	for _, e := range encfs {
		if d := s.final(t, key, e); d["status"] != "accepted" {
			t.Fatalf("%s after the outage: %v", e, d["status"])
		}
	}
	available := waitEvents(t, s, key, sello.EventDGIIAvailable, 1)[0]
	payload := available["data"].(map[string]any)["payload"].(map[string]any)
	if payload["since"] != since || payload["until"] == nil || payload["waiting"] != float64(len(encfs)) {
		t.Fatalf("dgii.available payload %v, want since %v and %d waiting", payload, since, len(encfs))
	}
	if n := len(listEvents(t, s, key, sello.EventDGIIUnavailable)); n != 1 {
		t.Fatalf("dgii.unavailable %d times, want once", n)
	}

	// DGII got each once, oldest first.
	var arrived []string
	for _, snd := range sim.Sends() {
		if slices.Contains(encfs, snd.ENCF) {
			arrived = append(arrived, snd.ENCF)
		}
	}
	if !slices.Equal(arrived, encfs) {
		t.Fatalf("DGII received %v, want each once in creation order %v", arrived, encfs)
	}

	// The contingency flag is in the documents' events.
	for _, ev := range listEvents(t, s, key, sello.EventECFAccepted) {
		encf := ev["document"].(map[string]any)["encf"].(string)
		if i := slices.Index(encfs, encf); i >= 0 {
			got := ev["data"].(map[string]any)["payload"].(map[string]any)["contingency"]
			if (i > 0) != (got == true) {
				t.Errorf("%s's ecf.accepted: payload contingency %v", encf, got)
			}
		}
	}

	// The drain ends: available, nothing waiting.
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		st = dgiiStatus(t, s, key)
		return st["state"] == "available"
	}) {
		t.Fatalf("estado-dgii after the drain: %v", st)
	}
	if st["waiting"] != float64(0) || st["until"] != payload["until"] || st["since"] != since {
		t.Fatalf("estado-dgii after the drain: %v", st)
	}
}

// dgiiStatus reads GET /TesteCF/estado-dgii.
func dgiiStatus(tb testing.TB, s *testServer, key string) map[string]any {
	tb.Helper()
	r := s.Do(tb, request{Method: "GET", Path: "/TesteCF/estado-dgii", Key: key})
	if r.Status != http.StatusOK {
		tb.Fatalf("estado-dgii: %d %s", r.Status, r.Body)
	}
	return r.JSON(tb)["dgii"].(map[string]any)
}

// listEvents lists the tenant's TesteCF events of type typ.
func listEvents(tb testing.TB, s *testServer, key string, typ sello.EventType) []map[string]any {
	tb.Helper()
	r := s.Do(tb, request{Method: "GET", Path: "/TesteCF/eventos?limit=200&type=" + string(typ), Key: key})
	if r.Status != http.StatusOK {
		tb.Fatalf("eventos: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	for _, ev := range r.JSON(tb)["data"].([]any) {
		out = append(out, ev.(map[string]any))
	}
	return out
}

// waitEvents waits up to 30 s for n events of type typ and returns them.
func waitEvents(tb testing.TB, s *testServer, key string, typ sello.EventType, n int) []map[string]any {
	tb.Helper()
	var evs []map[string]any
	if !testwait.Within(30*time.Second, 20*time.Millisecond, func() bool {
		evs = listEvents(tb, s, key, typ)
		return len(evs) >= n
	}) {
		tb.Fatalf("%d %s events within 30 s, want %d", len(evs), typ, n)
	}
	return evs
}

// TestDGIIStatusLastSuccess: once a document is accepted, estado-dgii's
// lastSuccess says when DGII last answered, though DGII never failed (it
// was null while every call succeeded); on SQLite and PostgreSQL.
func TestDGIIStatusLastSuccess(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testDGIIStatusLastSuccess(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testDGIIStatusLastSuccess(t, "--database-url", pgtest.MustSchema(t)) })
}

func testDGIIStatusLastSuccess(t *testing.T, storage ...string) {
	s, _ := mustLifecycleServer(t, storage...)
	key := s.Keys[sello.EnvTest]
	if st := dgiiStatus(t, s, key); st["lastSuccess"] != nil {
		t.Fatalf("before any call to DGII: lastSuccess %v, want null", st["lastSuccess"])
	}
	r := s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice()})
	if r.Status != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	doc := document(t, r)
	if d := s.final(t, key, doc["encf"].(string)); d["status"] != "accepted" {
		t.Fatalf("%s: %v", d["encf"], d["status"])
	}
	st := dgiiStatus(t, s, key)
	last, _ := st["lastSuccess"].(string)
	if st["state"] != "available" || last == "" || last < doc["createdAt"].(string) || st["failingSince"] != nil || st["lastFailure"] != nil {
		t.Fatalf("after an accepted document: %v, want available with lastSuccess after %s", st, doc["createdAt"])
	}
}
