package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
)

// listenProc is a `sello listen` run by run() on 127.0.0.1:0.
type listenProc struct {
	URL   string
	lines chan string
	done  chan error
}

// mustListen starts sello listen with args and waits until it listens; it
// stops at the end of the test, which fails if it did not stop cleanly.
func mustListen(tb testing.TB, args ...string) *listenProc {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &listenProc{lines: make(chan string, 100), done: make(chan error, 1)}
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case l.lines <- sc.Text():
			default: // nobody is reading any more
			}
		}
		close(l.lines)
	}()
	go func() {
		l.done <- run(ctx, append([]string{"listen", "--addr", "127.0.0.1:0"}, args...), noEnv, pw, io.Discard)
		pw.Close()
	}()
	tb.Cleanup(func() {
		cancel()
		if err := <-l.done; err != nil {
			tb.Errorf("sello listen stopped with %v", err)
		}
	})
	line := l.waitLine(tb, "listening on ")
	l.URL = strings.TrimPrefix(line, "listening on ")
	return l
}

// waitLine returns the next line containing every one of want, skipping
// others, in 30 s at most.
func (l *listenProc) waitLine(tb testing.TB, want ...string) string {
	tb.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				tb.Fatalf("sello listen ended before printing %q", want)
			}
			if containsAll(line, want...) {
				return line
			}
		case <-timeout:
			tb.Fatalf("sello listen printed no line with %q in 30 s", want)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// post sends body to the listener signed with secret, as Sello would.
func (l *listenProc) post(tb testing.TB, body []byte, id, typ, secret string) int {
	tb.Helper()
	req, _ := http.NewRequest("POST", l.URL+"/hook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(client.HeaderEventID, id)
	req.Header.Set(client.HeaderEventType, typ)
	req.Header.Set(client.HeaderSignature, client.SignatureHeader(time.Now(), body, secret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestListenEndToEnd: a real server with --demo delivers to sello listen,
// which verifies each delivery with the SDK, prints it and forwards the raw
// body and headers to the application, which verifies them again; forged
// deliveries are refused and not forwarded; webhooks test --wait reports
// the first attempt; a deleted endpoint is gone.
func TestListenEndToEnd(t *testing.T) {
	s, _ := mustLifecycleServer(t)
	app := mustHookReceiver(t)
	secret := "whsec_listen_end_to_end_0123456789abcdef"
	l := mustListen(t, "--secret", secret, "--forward-to", app.URL+"/webhooks/sello")
	l.waitLine(t, "forwarding verified deliveries to "+app.URL)

	endpointID := strings.TrimSpace(s.cli(t, "webhooks", "add", "--tenant", demoRNC, "--env", "TesteCF", "--url", l.URL+"/hook",
		"--secret", secret, "--allow-loopback"))

	t.Run("TestWait", func(t *testing.T) {
		out := s.cli(t, "webhooks", "test", "--endpoint", endpointID, "--wait")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], "attempt 1 succeeded: HTTP 200 in ") || !strings.HasSuffix(lines[1], "dialed 127.0.0.1") {
			t.Fatalf("webhooks test --wait printed %q", out)
		}
		l.waitLine(t, "webhook_endpoint.test  -  -  verified  forwarded: 200 OK")
	})

	t.Run("Lifecycle", func(t *testing.T) {
		key := s.Keys[sello.EnvTest]
		// A buyer that is not electronic: no delivery to it, so the
		// document's events end with ecf.accepted (an electronic buyer's
		// ecf.delivered would follow at once, in the verdict's job).
		encf := document(t, s.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(notElectronic))}))["encf"].(string)
		if d := s.final(t, key, encf); d["status"] != "accepted" {
			t.Fatalf("status %v", d["status"])
		}
		l.waitLine(t, "ecf.accepted  "+encf+"  accepted  verified  forwarded: 200 OK")
		// The application receives the raw body and Sello's headers: the
		// SDK verifies them again, with the same secret.
		app.waitEvents(t, hasLifecycle(encf), secret)
		app.mu.Lock()
		ua := app.reqs[len(app.reqs)-1].header.Get("User-Agent")
		app.mu.Unlock()
		if !strings.HasPrefix(ua, "Sello-Webhooks/") {
			t.Errorf("forwarded User-Agent %q, want Sello's", ua)
		}
	})

	t.Run("ErrForged", func(t *testing.T) {
		body := []byte(`{"id":"evt_forged","type":"ecf.accepted","document":{"encf":"E310000000999","status":"accepted"}}`)
		if got := l.post(t, body, "evt_forged", "ecf.accepted", "whsec_not_the_endpoint_secret_0123456789"); got != http.StatusBadRequest {
			t.Fatalf("a forged delivery got %d, want 400", got)
		}
		l.waitLine(t, "ecf.accepted  E310000000999  accepted  NOT VERIFIED: sello webhook: signature mismatch  not forwarded")
		// listen answers after it forwards, so a forwarded forgery is at
		// the application by now. Count nothing: Sello's genuine
		// deliveries (a retry, a later event) may still arrive. events
		// fails on any delivery the endpoint's secret does not verify;
		// the forgery is also looked for by its id.
		app.mu.Lock()
		for _, r := range app.reqs {
			if r.header.Get(client.HeaderEventID) == "evt_forged" || bytes.Contains(r.body, []byte("evt_forged")) {
				t.Errorf("the application received the forgery: %s", r.body)
			}
		}
		app.mu.Unlock()
		app.events(t, secret)
	})

	t.Run("ErrForwardDown", func(t *testing.T) {
		down := mustListen(t, "--secret", secret, "--forward-to", "http://127.0.0.1:1/")
		body := []byte(`{"id":"evt_1","type":"ecf.accepted","document":{"encf":"E310000000998","status":"accepted"}}`)
		if got := down.post(t, body, "evt_1", "ecf.accepted", secret); got != http.StatusBadGateway {
			t.Fatalf("a delivery the application did not get answered %d, want 502 (so that Sello retries)", got)
		}
		down.waitLine(t, "ecf.accepted  E310000000998  accepted  verified  forward failed: ")
	})

	t.Run("ErrTestWaitFailed", func(t *testing.T) {
		closed := strings.TrimSpace(s.cli(t, "webhooks", "add", "--tenant", demoRNC, "--env", "TesteCF", "--url", "http://127.0.0.1:1/",
			"--secret", secret, "--allow-loopback"))
		out, _, err := runCLI(append([]string{"webhooks", "test", "--endpoint", closed, "--wait"}, s.storageArgs...)...)
		if err == nil || !strings.Contains(out, "attempt 1 failed: connect") || !strings.Contains(describe(err), "did not accept the test event") {
			t.Fatalf("webhooks test --wait to a closed port: %q, %v", out, err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		if out := s.cli(t, "webhooks", "delete", "--endpoint", endpointID); !strings.HasPrefix(out, endpointID+" deleted") {
			t.Fatalf("delete printed %q", out)
		}
		if out := s.cli(t, "webhooks", "list", "--env", "TesteCF"); strings.Contains(out, endpointID) {
			t.Fatalf("list shows the deleted endpoint:\n%s", out)
		}
		_, _, err := runCLI(append([]string{"webhooks", "test", "--endpoint", endpointID}, s.storageArgs...)...)
		if !strings.Contains(describe(err), "No webhook endpoint has id "+endpointID) {
			t.Fatalf("test of a deleted endpoint: %v", err)
		}
	})
}

// TestListenUsage: the mistakes a developer makes starting sello listen.
func TestListenUsage(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ErrNoSecret", []string{"listen"}, "--secret is required"},
		{"ErrForwardNotURL", []string{"listen", "--secret", "s", "--forward-to", "localhost:3000/hooks"}, "must be an absolute http:// or https:// URL"},
		{"ErrArgument", []string{"listen", "--secret", "s", "extra"}, `unexpected argument "extra"`},
		{"ErrBadAddr", []string{"listen", "--secret", "s", "--addr", "256.0.0.1:1"}, "listen:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCLI(tt.args...)
			if err == nil || out != "" {
				t.Fatalf("succeeded or printed %q (%v)", out, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
	t.Run("SecretFromEnv", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"listen", "--addr", "127.0.0.1:0"}, func(k string) string {
				if k == "SELLO_WEBHOOK_SECRET" {
					return "whsec_from_env"
				}
				return ""
			}, pw, io.Discard)
			pw.Close()
		}()
		line, err := readLine(pr)
		cancel()
		if err != nil || !strings.HasPrefix(line, "listening on http://127.0.0.1:") {
			t.Fatalf("first line %q, %v", line, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("listen stopped with %v", err)
		}
	})
}
