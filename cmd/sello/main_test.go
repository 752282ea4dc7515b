package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/apitest"
	"github.com/sello-do/sello/sqlite/sqlitetest"
)

// testServer is a `sello serve --demo` started by run() on 127.0.0.1:0
// with its own data folder.
type testServer struct {
	URL  string
	Data string
	// MetricsURL is the metrics' address on the debug listener
	// (--debug-addr), "" without one.
	MetricsURL string
	// Keys are the demo keys by environment; BuyerKeys, the demo buyer's.
	Keys      map[sello.Environment]string
	BuyerKeys map[sello.Environment]string

	// storageArgs point an operator command at the server's storage.
	storageArgs []string

	contract *apitest.Contract
	cancel   context.CancelFunc
	done     chan error
	lines    chan string
}

// MustRunServer starts the server and waits until it listens; it stops at
// the end of the test, which fails if the server did not stop cleanly.
func MustRunServer(tb testing.TB, extraArgs ...string) *testServer {
	tb.Helper()
	return mustStartServer(tb, tb.TempDir(), true, extraArgs...)
}

// Restart starts a server again on the stopped s's data folder (and the
// storage extraArgs name), with s's keys.
func (s *testServer) Restart(tb testing.TB, extraArgs ...string) *testServer {
	tb.Helper()
	r := mustStartServer(tb, s.Data, false, extraArgs...)
	r.Keys, r.BuyerKeys = s.Keys, s.BuyerKeys
	return r
}

// mustStartServer starts a server on the data folder, seeded first when
// fresh.
func mustStartServer(tb testing.TB, data string, fresh bool, extraArgs ...string) *testServer {
	tb.Helper()
	return mustStartServerLogging(tb, data, fresh, io.Discard, extraArgs...)
}

// mustStartServerLogging is mustStartServer writing the server's log to
// stderr.
func mustStartServerLogging(tb testing.TB, data string, fresh bool, stderr io.Writer, extraArgs ...string) *testServer {
	tb.Helper()
	s := &testServer{
		Data:      data,
		Keys:      map[sello.Environment]string{},
		BuyerKeys: map[sello.Environment]string{},
		contract:  apitest.NewContract(tb),
		done:      make(chan error, 1),
		lines:     make(chan string, 100),
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case s.lines <- sc.Text():
			default: // nobody is reading any more
			}
		}
	}()
	s.storageArgs = []string{"--data", s.Data}
	for i, a := range extraArgs {
		if a == "--database-url" && i+1 < len(extraArgs) {
			s.storageArgs = append(s.storageArgs, a, extraArgs[i+1])
		}
	}
	if len(s.storageArgs) == 2 && fresh { // SQLite
		sqlitetest.MustSeed(tb, s.Data)
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", s.Data, "--demo"}, extraArgs...)
	go func() {
		s.done <- run(ctx, args, noEnv, pw, stderr)
		pw.Close()
	}()
	timeout := time.After(30 * time.Second)
	for s.URL == "" {
		select {
		case line := <-s.lines:
			var env, key string
			if _, err := fmt.Sscanf(line, "demo key %s %s", &env, &key); err == nil {
				s.Keys[sello.Environment(env)] = key
			} else if _, err := fmt.Sscanf(line, "demo buyer key %s %s", &env, &key); err == nil {
				s.BuyerKeys[sello.Environment(env)] = key
			} else if u, ok := strings.CutPrefix(line, "metrics "); ok {
				s.MetricsURL = u
			} else if addr, ok := strings.CutPrefix(line, "listening on "); ok {
				s.URL = addr
			}
		case err := <-s.done:
			tb.Fatalf("server exited before listening: %v", err)
		case <-timeout:
			tb.Fatal("server did not start within 30 s")
		}
	}
	tb.Cleanup(func() { s.Stop(tb) })
	return s
}

// Stop cancels the server's context, as SIGTERM does, and waits for run to
// return.
func (s *testServer) Stop(tb testing.TB) {
	tb.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			tb.Errorf("server stopped with an error: %v", err)
		}
	case <-time.After(40 * time.Second):
		tb.Error("server did not stop within 40 s")
	}
}

func noEnv(string) string { return "" }

// response is an answer of the API, already checked against the OpenAPI
// document.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r *response) JSON(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		tb.Fatalf("body is not JSON: %v\n%s", err, r.Body)
	}
	return m
}

// request describes one API call.
type request struct {
	Method  string
	Path    string
	Key     string
	Body    []byte
	Header  map[string]string
	NoCType bool // send no Content-Type
}

// Do sends req and checks the answer against the OpenAPI document, and that
// every answer carries X-Correlation-Id (equal to the body's correlationId).
func (s *testServer) Do(tb testing.TB, req request) *response {
	tb.Helper()
	hr, err := http.NewRequest(req.Method, s.URL+req.Path, bytes.NewReader(req.Body))
	if err != nil {
		tb.Fatal(err)
	}
	if req.Key != "" {
		hr.Header.Set("X-API-KEY", req.Key)
	}
	hr.Header.Set("Accept", "application/json")
	if req.Body != nil && !req.NoCType {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		tb.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	cid := resp.Header.Get("X-Correlation-Id")
	if cid == "" {
		tb.Errorf("%s %s: no X-Correlation-Id header", req.Method, req.Path)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && req.Path != "/openapi.json" && req.Path != "/healthz" && req.Path != "/readyz" {
		var m struct {
			CorrelationID string `json:"correlationId"`
		}
		if json.Unmarshal(body, &m) == nil && m.CorrelationID != cid {
			tb.Errorf("%s %s: body correlationId %q != header %q", req.Method, req.Path, m.CorrelationID, cid)
		}
	}
	hr.Body = io.NopCloser(bytes.NewReader(req.Body))
	s.contract.CheckResponse(tb, hr, req.Body, resp, body)
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// wantError checks that r is the error body with status and code.
func wantError(tb testing.TB, r *response, status int, code sello.ErrorCode) map[string]any {
	tb.Helper()
	m := r.JSON(tb)
	e, _ := m["error"].(map[string]any)
	if r.Status != status || e == nil || e["code"] != string(code) || m["ok"] != false {
		tb.Fatalf("got %d %s, want %d with code %s", r.Status, r.Body, status, code)
	}
	if msg, _ := e["message"].(string); msg == "" {
		tb.Fatalf("error without message: %s", r.Body)
	}
	return e
}

// cli runs one operator command against the server's data folder and
// returns its stdout.
func (s *testServer) cli(tb testing.TB, args ...string) string {
	tb.Helper()
	out, errOut, err := runCLI(append(args, s.storageArgs...)...)
	if err != nil {
		tb.Fatalf("sello %s: %v\nstderr: %s", strings.Join(args, " "), err, errOut)
	}
	return out
}

func runCLI(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, noEnv, &out, &errOut)
	return out.String(), errOut.String(), err
}

// invoice is a valid type-31 invoice of the demo tenant.
func invoice(mods ...func(ecf map[string]any)) []byte { return apitest.Invoice(demoRNC, mods...) }

var (
	idDoc    = apitest.IdDoc
	withENCF = apitest.WithENCF
)

// document extracts the document resource of a 202/200 answer.
func document(tb testing.TB, r *response) map[string]any {
	tb.Helper()
	d, ok := r.JSON(tb)["document"].(map[string]any)
	if !ok {
		tb.Fatalf("no document in %s", r.Body)
	}
	return d
}

func ioPipe() (*io.PipeReader, *io.PipeWriter) { return io.Pipe() }

// readLine reads one line from r, in 10 s at most.
func readLine(r io.Reader) (string, error) {
	type res struct {
		s   string
		err error
	}
	c := make(chan res, 1)
	go func() {
		s, err := bufio.NewReader(r).ReadString('\n')
		c <- res{strings.TrimSpace(s), err}
		io.Copy(io.Discard, r)
	}()
	select {
	case v := <-c:
		return v.s, v.err
	case <-time.After(10 * time.Second):
		return "", fmt.Errorf("no line in 10 s")
	}
}

func httpGet(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
