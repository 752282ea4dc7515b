package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/sqlite/sqlitetest"
)

// hookReceiver is a webhook receiver on loopback that keeps every request.
type hookReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []hookRequest
	// arrived signals each request (the receiver's test signal).
	arrived chan struct{}
}

type hookRequest struct {
	header http.Header
	body   []byte
}

func mustHookReceiver(tb testing.TB) *hookReceiver {
	tb.Helper()
	rc := &hookReceiver{arrived: make(chan struct{}, 1)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, hookRequest{r.Header.Clone(), body})
		rc.mu.Unlock()
		select {
		case rc.arrived <- struct{}{}:
		default: // a signal is waiting already
		}
		w.WriteHeader(http.StatusOK)
	}))
	tb.Cleanup(rc.Close)
	return rc
}

// events verifies every request received so far with the SDK, as a
// receiver does, checks that the body's id and type are the headers', and
// returns the events.
func (rc *hookReceiver) events(tb testing.TB, secrets ...string) []*client.Event {
	tb.Helper()
	rc.mu.Lock()
	reqs := append([]hookRequest(nil), rc.reqs...)
	rc.mu.Unlock()
	var evs []*client.Event
	for _, r := range reqs {
		ev, err := client.VerifyWebhook(r.body, r.header.Get(client.HeaderSignature), secrets, time.Now())
		if err != nil {
			tb.Fatalf("the SDK does not verify a delivery: %v\n%s", err, r.body)
		}
		if ev.ID != r.header.Get(client.HeaderEventID) || string(ev.Type) != r.header.Get(client.HeaderEventType) {
			tb.Fatalf("body id %s type %s, headers %s %s", ev.ID, ev.Type, r.header.Get(client.HeaderEventID), r.header.Get(client.HeaderEventType))
		}
		evs = append(evs, ev)
	}
	return evs
}

// waitEvents waits (30 s at most) until cond holds for the events received,
// checking again at each request.
func (rc *hookReceiver) waitEvents(tb testing.TB, cond func([]*client.Event) bool, secrets ...string) []*client.Event {
	tb.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		evs := rc.events(tb, secrets...)
		if cond(evs) {
			return evs
		}
		select {
		case <-rc.arrived:
		case <-timeout.C:
			tb.Fatalf("the receiver's %d events do not meet the condition within 30 s: %v", len(evs), eventTypes(evs, ""))
		}
	}
}

// eventTypes lists the types of the events of a document (all when encf
// is ""), sorted.
func eventTypes(evs []*client.Event, encf string) []string {
	var types []string
	for _, e := range evs {
		if encf == "" || e.Document != nil && e.Document.ENCF == encf {
			types = append(types, string(e.Type))
		}
	}
	slices.Sort(types)
	return types
}

// notElectronic is a buyer absent from the simulator's directory: its
// documents end at acceptance (delivery not_electronic, no event), so the
// webhook tests count four events per document.
const notElectronic = "101010101"

// lifecycleEvents are the events of an accepted document, sorted.
const lifecycleEvents = "ecf.accepted ecf.queued ecf.signed ecf.submitted"

func hasLifecycle(encf string) func([]*client.Event) bool {
	return func(evs []*client.Event) bool { return strings.Join(eventTypes(evs, encf), " ") == lifecycleEvents }
}

// deliveryRows parses the table of `sello webhooks deliveries` or `list`
// into rows of fields.
func deliveryRows(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// TestWebhooksEndToEnd: a real server with --demo delivers a document's
// lifecycle to an endpoint added with the CLI; the operator reads the
// delivery log, pauses, resumes and replays.
func TestWebhooksEndToEnd(t *testing.T) {
	s, _ := mustLifecycleServer(t)
	rc := mustHookReceiver(t)
	out := s.cli(t, "webhooks", "add", "--tenant", demoRNC, "--env", "TesteCF", "--url", rc.URL+"/sello", "--generate-secret", "--allow-loopback")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || len(lines[0]) != 36 || !strings.HasPrefix(lines[1], "whsec_") {
		t.Fatalf("webhooks add printed %q; want the endpoint id and the secret", out)
	}
	endpointID, secret := lines[0], lines[1]
	key := s.Keys[sello.EnvTest]

	encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(notElectronic))}))["encf"].(string)
	if d := s.final(t, key, encf); d["status"] != "accepted" {
		t.Fatalf("status %v", d["status"])
	}
	evs := rc.waitEvents(t, hasLifecycle(encf), secret)
	for _, e := range evs {
		if e.TenantID == "" || e.Environment != client.EnvTest || e.Document.Status == "" {
			t.Fatalf("event %+v", e)
		}
	}

	// The delivery log: four succeeded deliveries, one attempt each.
	var rows [][]string
	if !testwait.Within(10*time.Second, 20*time.Millisecond, func() bool {
		rows = deliveryRows(s.cli(t, "webhooks", "deliveries", "--endpoint", endpointID))
		succeeded := 0
		for _, r := range rows {
			if r[4] == "succeeded" && r[5] == "1" {
				succeeded++
			}
		}
		return len(rows) == 4 && succeeded == 4
	}) {
		t.Fatalf("deliveries: %v; want 4 succeeded", rows)
	}
	var types []string
	for _, r := range rows {
		types = append(types, r[3])
	}
	if slices.Sort(types); strings.Join(types, " ") != lifecycleEvents {
		t.Fatalf("delivered types %v", types)
	}

	t.Run("PauseResume", func(t *testing.T) {
		if out := s.cli(t, "webhooks", "pause", "--endpoint", endpointID); !strings.Contains(out, "paused") {
			t.Fatalf("pause printed %q", out)
		}
		encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(notElectronic))}))["encf"].(string)
		s.final(t, key, encf)
		// Each of the document's four deliveries is held: none is
		// attempted until the endpoint is resumed.
		held := 0
		if !testwait.Within(10*time.Second, 20*time.Millisecond, func() bool {
			held = 0
			for _, r := range deliveryRows(s.cli(t, "webhooks", "deliveries", "--tenant", demoRNC, "--env", "TesteCF")) {
				if r[4] == "held" {
					held++
				}
			}
			return held == 4
		}) {
			t.Fatalf("%d held deliveries, want 4", held)
		}
		if got := eventTypes(rc.events(t, secret), encf); len(got) != 0 {
			t.Fatalf("events %v delivered while paused", got)
		}
		if out := s.cli(t, "webhooks", "resume", "--endpoint", endpointID); !strings.Contains(out, "4 held deliveries queued") {
			t.Fatalf("resume printed %q", out)
		}
		rc.waitEvents(t, hasLifecycle(encf), secret)
	})

	t.Run("Replay", func(t *testing.T) {
		before := len(rc.events(t, secret))
		original := rows[0][0]
		replay := strings.TrimSpace(s.cli(t, "webhooks", "replay", "--delivery", original))
		if len(replay) != 36 || replay == original {
			t.Fatalf("replay printed %q", replay)
		}
		evs := rc.waitEvents(t, func(evs []*client.Event) bool { return len(evs) > before }, secret)
		log := s.cli(t, "webhooks", "attempts", "--delivery", original)
		if !strings.Contains(log, evs[before].ID) {
			t.Fatalf("the replay sent event %s; the original delivery:\n%s", evs[before].ID, log)
		}
		n := 0
		for _, e := range evs {
			if e.ID == evs[before].ID {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("event %s received %d times, want twice (the delivery and its replay)", evs[before].ID, n)
		}
	})

	t.Run("Test", func(t *testing.T) {
		before := len(rc.events(t, secret))
		s.cli(t, "webhooks", "test", "--endpoint", endpointID)
		evs := rc.waitEvents(t, func(evs []*client.Event) bool { return len(evs) > before }, secret)
		if e := evs[before]; e.Type != "webhook_endpoint.test" || e.Data.Payload["endpointId"] != endpointID {
			t.Fatalf("test event %+v", e)
		}
	})
}

// TestWebhooksCLI: the operator commands against a store, without a
// server: checks, output, and the errors an operator meets.
func TestWebhooksCLI(t *testing.T) {
	dir := t.TempDir()
	sqlitetest.MustSeed(t, dir)
	env := map[string]string{"SELLO_MASTER_KEY": sello.GenerateMasterKey()}
	sh := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), append(args, "--data", dir), func(k string) string { return env[k] }, &out, &errOut)
		return out.String(), errOut.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, errOut, err := sh(args...)
		if err != nil {
			t.Fatalf("sello %s: %v\n%s", strings.Join(args, " "), describe(err), errOut)
		}
		return out
	}
	must("tenants", "create", "--rnc", "131793916", "--name", "Ganchos SRL")
	secret := "whsec_supplied_by_the_customer_0123456789"
	id := strings.TrimSpace(must("webhooks", "add", "--tenant", "131793916", "--env", "eCF", "--url", "https://hooks.example.com/sello",
		"--secret", secret, "--events", "ecf.accepted, ecf.rejected"))
	if len(id) != 36 {
		t.Fatalf("add printed %q; want the endpoint id alone (the secret was supplied)", id)
	}

	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrHTTPInECF", []string{"--env", "eCF", "--url", "http://hooks.example.com/", "--generate-secret"}, "https"},
		{"ErrLoopbackInECF", []string{"--env", "eCF", "--url", "https://127.0.0.1:8443/", "--generate-secret", "--allow-loopback"}, "does not apply to eCF"},
		{"ErrLoopbackWithoutFlag", []string{"--env", "TesteCF", "--url", "http://127.0.0.1:9000/", "--generate-secret"}, "add --allow-loopback"},
		{"ErrPrivate", []string{"--env", "TesteCF", "--url", "http://10.0.0.5/", "--generate-secret", "--allow-loopback"}, "private"},
		{"ErrShortSecret", []string{"--env", "TesteCF", "--url", "https://hooks.example.com/", "--secret", "short"}, "32"},
		{"ErrBothSecrets", []string{"--env", "TesteCF", "--url", "https://hooks.example.com/", "--secret", secret, "--generate-secret"}, "not both"},
		{"ErrNoSecret", []string{"--env", "TesteCF", "--url", "https://hooks.example.com/"}, "--secret or --generate-secret is required"},
		{"ErrEventType", []string{"--env", "TesteCF", "--url", "https://hooks.example.com/", "--generate-secret", "--events", "ecf.exploded"}, `Unknown event type "ecf.exploded"`},
		{"ErrNoURL", []string{"--env", "TesteCF", "--generate-secret"}, "--url is required"},
		{"ErrIDNALoopbackInECF", []string{"--env", "eCF", "--url", "https://127。0。0。1/", "--generate-secret"}, "127.0.0.1 is a loopback address"},
		{"ErrIDNALoopbackWithoutFlag", []string{"--env", "TesteCF", "--url", "http://１２７．0．0．1:9000/", "--generate-secret"}, "add --allow-loopback"},
		{"ErrIDNAPrivate", []string{"--env", "TesteCF", "--url", "http://10｡0｡0｡5/", "--generate-secret", "--allow-loopback"}, "10.0.0.5 is a private"},
		{"ErrIDNAInvalid", []string{"--env", "TesteCF", "--url", "https://a_b.ñ/", "--generate-secret"}, "not a valid internationalized"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh(append([]string{"webhooks", "add", "--tenant", "131793916"}, tt.args...)...)
			if err == nil || out != "" {
				t.Fatalf("succeeded or printed %q (%v)", out, err)
			}
			if !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("error %q does not contain %q", describe(err), tt.msg)
			}
		})
	}

	out := must("webhooks", "add", "--tenant", "131793916", "--env", "TesteCF", "--url", "http://127.0.0.1:9/", "--generate-secret", "--allow-loopback")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || len(lines[1]) != 49 || !strings.HasPrefix(lines[1], "whsec_") {
		t.Fatalf("add --generate-secret printed %q", out)
	}
	local := lines[0]

	// A Unicode host is stored in its IDNA ASCII form, the one resolved.
	must("webhooks", "add", "--tenant", "131793916", "--env", "CerteCF", "--url", "https://Bücher。example/sello", "--generate-secret")
	if out := must("webhooks", "list", "--env", "CerteCF"); !strings.Contains(out, "https://xn--bcher-kva.example/sello") {
		t.Fatalf("list after adding a Unicode host:\n%s", out)
	}

	list := must("webhooks", "list", "--tenant", "131793916")
	for _, want := range []string{id, local, "eCF", "ecf.accepted,ecf.rejected", "http://127.0.0.1:9/", "active"} {
		if !strings.Contains(list, want) {
			t.Fatalf("list lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, secret) || strings.Contains(list, lines[1]) {
		t.Fatal("list shows a secret")
	}
	if out := must("webhooks", "list", "--env", "TesteCF"); strings.Contains(out, id) || !strings.Contains(out, local) {
		t.Fatalf("list --env TesteCF:\n%s", out)
	}

	t.Run("PauseTestResume", func(t *testing.T) {
		must("webhooks", "pause", "--endpoint", local)
		if out := must("webhooks", "list", "--env", "TesteCF"); !strings.Contains(out, "paused") {
			t.Fatalf("list after pause:\n%s", out)
		}
		out, errOut, err := sh("webhooks", "test", "--endpoint", local)
		if err != nil || len(strings.TrimSpace(out)) != 36 || !strings.Contains(errOut, "held") {
			t.Fatalf("test while paused: %q %q %v", out, errOut, err)
		}
		rows := deliveryRows(must("webhooks", "deliveries", "--tenant", "131793916"))
		if len(rows) != 1 || rows[0][0] != strings.TrimSpace(out) || rows[0][3] != "webhook_endpoint.test" || rows[0][4] != "held" || rows[0][8] != "test" {
			t.Fatalf("deliveries: %v", rows)
		}
		if out := must("webhooks", "resume", "--endpoint", local, "--tenant", "131793916"); !strings.Contains(out, "1 held deliveries queued") {
			t.Fatalf("resume printed %q", out)
		}
		if rows := deliveryRows(must("webhooks", "deliveries", "--endpoint", local)); rows[0][4] != "pending" {
			t.Fatalf("after resume: %v", rows)
		}
	})

	t.Run("ErrTestWaitNoServer", func(t *testing.T) {
		out, _, err := sh("webhooks", "test", "--endpoint", local, "--wait", "--timeout", "300ms")
		if err == nil || len(strings.TrimSpace(out)) != 36 || !strings.Contains(describe(err), "no delivery attempt within 300ms") || !strings.Contains(describe(err), "is one running on this storage") {
			t.Fatalf("test --wait without a server: %q, %v", out, err)
		}
	})

	t.Run("RotateSecret", func(t *testing.T) {
		out, errOut, err := sh("webhooks", "rotate-secret", "--endpoint", id, "--generate-secret", "--overlap", "1h")
		if err != nil || !strings.HasPrefix(out, "whsec_") || !strings.Contains(errOut, "signs too until") {
			t.Fatalf("rotate-secret: %q %q %v", out, errOut, err)
		}
		if rows := deliveryRows(must("webhooks", "list", "--env", "eCF")); len(rows) != 1 || rows[0][6] != "2" {
			t.Fatalf("two secrets should sign during the overlap: %v", rows)
		}
		if out := must("webhooks", "rotate-secret", "--endpoint", id, "--secret", secret, "--overlap", "0s"); strings.TrimSpace(out) != id {
			t.Fatalf("rotate-secret --secret printed %q", out)
		}
		if rows := deliveryRows(must("webhooks", "list", "--env", "eCF")); len(rows) != 1 || rows[0][6] != "1" {
			t.Fatalf("one secret should sign without overlap: %v", rows)
		}
	})

	t.Run("ReplayFailed", func(t *testing.T) {
		db, err := sqlite.Open(t.Context(), dir+"/sello.db")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tenant, _ := db.FindTenantByRNC(t.Context(), "131793916")
		d, err := db.CreateTestWebhookDelivery(t.Context(), tenant.ID, local, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.RecordWebhookAttempt(t.Context(), &sello.WebhookAttempt{DeliveryID: d.ID, At: time.Now(), ErrorClass: "connect", Error: "connection refused"},
			sello.WebhookOutcome{Status: sello.WebhookFailed}); err != nil {
			t.Fatal(err)
		}
		rows := deliveryRows(must("webhooks", "deliveries", "--endpoint", local, "--failed", "--since", "1h"))
		if len(rows) != 1 || rows[0][0] != d.ID || rows[0][4] != "failed" || rows[0][6] != "connect" {
			t.Fatalf("failed deliveries: %v", rows)
		}
		if out := must("webhooks", "replay", "--failed-since", "1h", "--endpoint", local); !strings.HasPrefix(out, "1 failed deliveries") {
			t.Fatalf("replay --failed-since printed %q", out)
		}
		if out := must("webhooks", "replay", "--failed-since", "2020-01-01", "--tenant", "131793916"); !strings.HasPrefix(out, "0 failed deliveries") {
			t.Fatalf("a second replay printed %q; each failed delivery is replayed once", out)
		}
		if log := must("webhooks", "attempts", "--delivery", d.ID); !strings.Contains(log, "connection refused") || !strings.Contains(log, "failed after 1 attempts") {
			t.Fatalf("attempts:\n%s", log)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		gone := strings.Split(must("webhooks", "add", "--tenant", "131793916", "--env", "TesteCF", "--url", "https://gone.example.com/", "--generate-secret"), "\n")[0]
		out, errOut, err := sh("webhooks", "test", "--endpoint", gone)
		if err != nil {
			t.Fatalf("test: %v %s", describe(err), errOut)
		}
		pending := strings.TrimSpace(out)
		if out := must("webhooks", "delete", "--endpoint", gone); !strings.HasPrefix(out, gone+" deleted") {
			t.Fatalf("delete printed %q", out)
		}
		if out := must("webhooks", "list"); strings.Contains(out, gone) {
			t.Fatalf("list shows the deleted endpoint:\n%s", out)
		}
		if log := must("webhooks", "attempts", "--delivery", pending); !strings.Contains(log, "failed after 0 attempts") {
			t.Fatalf("the deleted endpoint's pending delivery:\n%s", log)
		}
		for _, args := range [][]string{{"delete"}, {"test"}, {"resume"}, {"pause"}} {
			_, _, err := sh("webhooks", args[0], "--endpoint", gone)
			if !strings.Contains(describe(err), "No webhook endpoint has id "+gone) {
				t.Errorf("webhooks %s of the deleted endpoint: %v", args[0], err)
			}
		}
	})

	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrUnknownEndpoint", []string{"webhooks", "pause", "--endpoint", sello.NewID()}, "No webhook endpoint"},
		{"ErrEndpointOtherTenant", []string{"webhooks", "pause", "--endpoint", id, "--tenant", "999999999"}, "No tenant"},
		{"ErrUnknownDelivery", []string{"webhooks", "replay", "--delivery", sello.NewID()}, "No webhook delivery"},
		{"ErrReplayBoth", []string{"webhooks", "replay", "--delivery", "x", "--failed-since", "1h"}, "not both"},
		{"ErrReplayNothing", []string{"webhooks", "replay"}, "--delivery ID or --failed-since T"},
		{"ErrBadSince", []string{"webhooks", "deliveries", "--tenant", "131793916", "--since", "yesterday"}, "RFC 3339"},
		{"ErrDeliveriesNoTenant", []string{"webhooks", "deliveries"}, "--tenant is required"},
		{"ErrRotateNoSecret", []string{"webhooks", "rotate-secret", "--endpoint", id}, "--secret or --generate-secret"},
		{"ErrUnknownCommand", []string{"webhooks", "remove"}, "unknown command"},
		{"ErrDeleteUnknown", []string{"webhooks", "delete", "--endpoint", sello.NewID()}, "No webhook endpoint"},
		{"ErrDeleteNoEndpoint", []string{"webhooks", "delete"}, "--endpoint is required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := sh(tt.args...)
			if err == nil || out != "" {
				t.Fatalf("succeeded or printed %q (%v)", out, err)
			}
			if !strings.Contains(describe(err), tt.msg) {
				t.Fatalf("error %q does not contain %q", describe(err), tt.msg)
			}
		})
	}
}
