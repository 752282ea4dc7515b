package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/postgres/pgtest"
)

// sello bench posts documents to a real server and learns every verdict,
// from the events feed or from status/batch.
func TestBench(t *testing.T) {
	s, sim := mustLifecycleServer(t)
	for _, follow := range []string{"events", "status"} {
		t.Run(follow, func(t *testing.T) {
			sends := len(sim.Sends())
			out, errOut, err := runCLI("bench", "--url", s.URL, "--key", s.Keys[sello.EnvTest],
				"--docs", "12", "--concurrency", "3", "--poll", "20ms", "--follow", follow, "--baseline", "100ms")
			if err != nil {
				t.Fatalf("bench: %v\n%s%s", err, out, errOut)
			}
			for _, want := range []string{
				`(?m)^documents +12 \(concurrency 3, TesteCF\)$`,
				`(?m)^outcomes +map\[accepted:12\]$`,
				`(?m)^verdicts/s +[0-9]+\.[0-9]$`,
				`(?m)^create→verdict +p50 [0-9.]+m?s / p99 [0-9.]+m?s$`,
				`(?m)^ratio +0\.[0-9]{3} `,
			} {
				if !regexp.MustCompile(want).MatchString(out) {
					t.Errorf("output lacks %s:\n%s", want, out)
				}
			}
			if got := len(sim.Sends()) - sends; got != 12 {
				t.Errorf("DGII received %d documents, want 12", got)
			}
		})
	}
	_, errOut, err := runCLI("bench", "--url", s.URL, "--key", s.Keys[sello.EnvTest], "--follow", "carrier-pigeon")
	if err == nil || !strings.Contains(err.Error()+errOut, "--follow must be events or status") {
		t.Errorf("bad --follow: %v %s", err, errOut)
	}
}

// fakeAPI answers the bench's creates and status/batch for the tenants of
// keys (API key → RNC): every document is accepted at once, and each
// tenant numbers its own from 1, so that tenants share e-NCFs. A create
// whose RNCEmisor is not its key's tenant's is refused.
type fakeAPI struct {
	keys map[string]string
	// limit answers the nth create (from 1) 429 when it says so.
	limit func(n int) bool

	mu      sync.Mutex
	tried   int            // creates received
	issued  map[string]int // documents created, by key
	byNode  map[int]int    // documents created, by node
	byRNC   map[string]int // documents created, by RNCEmisor
	lastRNC string
}

func newFakeAPI(keys map[string]string) *fakeAPI {
	return &fakeAPI{keys: keys, issued: map[string]int{}, byNode: map[int]int{}, byRNC: map[string]int{}}
}

// node returns the API as node n serves it.
func (f *fakeAPI) node(n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		key := r.Header.Get("X-API-KEY")
		rnc, ok := f.keys[key]
		if !ok {
			http.Error(w, `{"ok":false}`, http.StatusUnauthorized)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		switch {
		case r.Method == "POST" && r.URL.Path == "/TesteCF/documentos-ecf":
			f.tried++
			if f.limit != nil && f.limit(f.tried) {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"slow down","retryAfterSeconds":1}}`)
				return
			}
			var doc struct {
				ECF struct {
					Encabezado struct{ Emisor struct{ RNCEmisor string } }
				}
			}
			json.NewDecoder(r.Body).Decode(&doc)
			if got := doc.ECF.Encabezado.Emisor.RNCEmisor; got != rnc {
				http.Error(w, `{"ok":false,"error":{"message":"RNCEmisor `+got+` is not the key's"}}`, http.StatusBadRequest)
				return
			}
			f.issued[key]++
			f.byNode[n]++
			f.byRNC[rnc]++
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprintf(w, `{"ok":true,"document":{"encf":"E31%010d"}}`, f.issued[key])
		case r.Method == "POST" && r.URL.Path == "/TesteCF/documentos-ecf/status/batch":
			var req struct{ ENCFs []string }
			json.NewDecoder(r.Body).Decode(&req)
			res := []map[string]any{}
			for _, e := range req.ENCFs {
				if n, _ := strconv.Atoi(strings.TrimPrefix(e, "E31")); n >= 1 && n <= f.issued[key] {
					res = append(res, map[string]any{"encf": e, "document": map[string]any{"status": "accepted"}})
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "results": res})
		default:
			http.NotFound(w, r)
		}
	})
}

// A 429 is waited out for Retry-After and the request sent again; the
// bench says how many it got.
func TestBenchRateLimited(t *testing.T) {
	api := newFakeAPI(map[string]string{"k": demoRNC})
	api.limit = func(n int) bool { return n == 2 }
	srv := httptest.NewServer(api.node(0))
	defer srv.Close()
	start := time.Now()
	out, errOut, err := runCLI("bench", "--url", srv.URL, "--key", "k", "--docs", "3", "--concurrency", "1",
		"--follow", "status", "--poll", "10ms", "--baseline", "10ms")
	if err != nil {
		t.Fatalf("bench: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(out, "outcomes           map[accepted:3]") || !regexp.MustCompile(`(?m)^rate limited +1 requests answered 429`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
	if got := api.tried; got != 4 {
		t.Errorf("%d creates sent, want 4 (3 and the one answered 429 again)", got)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("done in %s: Retry-After (1 s) not waited out", d)
	}
}

// The bench reads the server's CPU seconds and peak memory from its
// /metrics before the load, at the last verdict, and until the server is
// idle again, and prints the CPU per verdict and per document in ms and in
// raw RSA signatures.
func TestBenchMetrics(t *testing.T) {
	api := newFakeAPI(map[string]string{"k": demoRNC})
	var reads int
	mux := http.NewServeMux()
	mux.Handle("/", api.node(0))
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		api.mu.Lock()
		defer api.mu.Unlock()
		// 4 ms a create; then, once the bench has read at the last
		// verdict (its second read), 10 ms more at each of the next three
		// reads (the deliveries a verdict leaves), then nothing: idle.
		reads++
		cpu := 100 + 0.004*float64(api.issued["k"]) + 0.01*float64(min(3, max(0, reads-2)))
		fmt.Fprintf(w, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %g\nprocess_resident_memory_bytes 2e+08\n"+
			"sello_process_resident_memory_peak_bytes 2.75e+08\nsello_requests_total{code=\"202\"} %d\n", cpu, api.issued["k"])
	})
	mux.HandleFunc("GET /other", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "up 1\n") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	bench := []string{"bench", "--url", srv.URL, "--key", "k", "--docs", "5", "--concurrency", "1",
		"--follow", "status", "--poll", "10ms", "--baseline", "10ms", "--idle", "20ms", "--metrics-url", srv.URL + "/metrics"}
	out, errOut, err := runCLI(bench...)
	if err != nil {
		t.Fatalf("bench: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{
		`(?m)^server CPU +0\.02 s to the last verdict, 0\.05 s until idle, [0-9.]+ s after the last verdict \(1 servers' /metrics\)$`,
		`(?m)^server CPU/verdict 4\.000 ms = [0-9.]+ raw RSA signatures \(CPU to the last verdict ÷ 5 verdicts\)$`,
		`(?m)^server CPU/doc +10\.000 ms = [0-9.]+ raw RSA signatures \(CPU until idle ÷ 5 documents\)$`,
		`(?m)^server 1 +http://[^ ]+/metrics: CPU 0\.05 s, peak RSS 275\.0 MB$`,
		`(?m)^raw RSA-2048 CPU +[0-9]+\.[0-9]{3} ms a signature`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if reads != 6 {
		t.Errorf("%d reads of /metrics, want 6 (before, at the last verdict, three busy, one idle)", reads)
	}
	// The figure in signatures is the CPU over one signature's.
	var sig, perDoc float64
	for line := range strings.Lines(out) {
		fmt.Sscanf(line, "raw RSA-2048 CPU   %f ms", &sig)
		fmt.Sscanf(line, "server CPU/doc     10.000 ms = %f raw", &perDoc)
	}
	if sig == 0 || math.Abs(perDoc-10/sig) > 0.01*perDoc {
		t.Errorf("10 ms a document is %.2f signatures of %.3f ms, want %.2f", perDoc, sig, 10/sig)
	}

	for _, tc := range []struct {
		name  string
		extra []string
		err   string
	}{
		{"NoCPU", []string{"--metrics-url", srv.URL + "/other"}, "/other: no process_cpu_seconds_total"},
		{"NotOK", []string{"--metrics-url", srv.URL + "/elsewhere"}, "/elsewhere: 401 Unauthorized"},
		{"NoDatabase", []string{"--db-cpu-proc", "no-such-database-here"}, `no process named "no-such-database-here"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCLI(append(bench, tc.extra...)...)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

// With several --url, requests go to the nodes in turn; with --keys-file,
// the documents are spread evenly over the tenants, each created with its
// own key and RNC, and told apart by tenant where their e-NCFs are the
// same.
func TestBenchNodesTenants(t *testing.T) {
	keys := map[string]string{"ka": "140000001", "kb": "140000002", "kc": "140000003"}
	api := newFakeAPI(keys)
	a, b := httptest.NewServer(api.node(0)), httptest.NewServer(api.node(1))
	defer a.Close()
	defer b.Close()
	file := filepath.Join(t.TempDir(), "keys")
	os.WriteFile(file, []byte("# RNC KEY\n140000001 ka\n\n140000002 kb\n140000003 kc\n140000004 kd\n"), 0o600)
	out, errOut, err := runCLI("bench", "--url", a.URL, "--url", b.URL+"/", "--keys-file", file, "--tenants", "3",
		"--docs", "12", "--concurrency", "1", "--follow", "status", "--poll", "10ms", "--baseline", "10ms", "--timeout", "10s")
	if err != nil {
		t.Fatalf("bench: %v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{
		`(?m)^nodes, tenants +2 \(requests in turn\), 3 \(documents spread evenly\)$`,
		`(?m)^outcomes +map\[accepted:12\]$`,
		`(?m)^node 1 +http://[0-9.:]+: 6 created \([0-9.]+/s\), their verdicts [0-9.]+/s$`,
		`(?m)^node 2 +http://[0-9.:]+: 6 created`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if want := map[int]int{0: 6, 1: 6}; !maps.Equal(api.byNode, want) {
		t.Errorf("creates by node %v, want %v", api.byNode, want)
	}
	if want := map[string]int{"140000001": 4, "140000002": 4, "140000003": 4}; !maps.Equal(api.byRNC, want) {
		t.Errorf("creates by RNC %v, want %v", api.byRNC, want)
	}

	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"TooManyTenants", []string{"--keys-file", file, "--tenants", "5"}, "--tenants 5: " + file + " has 4"},
		{"KeyAndFile", []string{"--keys-file", file, "--key", "k"}, "--key and --keys-file exclude each other"},
		{"TenantsWithoutFile", []string{"--key", "k", "--tenants", "2"}, "--tenants needs --keys-file"},
		{"NoKey", nil, "--key (or SELLO_BENCH_KEY) or --keys-file is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, err := runCLI(append([]string{"bench", "--url", a.URL}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error()+errOut, tc.err) {
				t.Errorf("got %v %s, want %q", err, errOut, tc.err)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("140000001 ka\n14 kb\n"), 0o600)
	if _, _, err := runCLI("bench", "--url", a.URL, "--keys-file", bad); err == nil || !strings.Contains(err.Error(), bad+":2: RNC \"14\" must have 9 or 11 digits") {
		t.Errorf("bad keys file: %v", err)
	}
}

// sello bench --setup-tenants makes tenants that issue for real: sequences,
// a certificate and a key each, printed as a keys file; run again, it gives
// the same tenants new keys. On PostgreSQL (SELLO_TEST_DATABASE_URL), two
// nodes on one database share the bench's load.
func TestBenchSetupTenants(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		s, sim := mustLifecycleServer(t)
		benchSetupAndRun(t, sim, []string{"--data", s.Data}, s.URL, s.URL)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		dbURL := pgtest.MustSchema(t)
		sim, simURL := mustSimulator(t)
		a := MustRunServer(t, "--database-url", dbURL, "--dgii-url", simURL)
		// The same master key, which seals the tenants' certificate keys.
		b := MustRunServer(t, "--database-url", dbURL, "--dgii-url", simURL, "--data", a.Data)
		benchSetupAndRun(t, sim, []string{"--data", a.Data, "--database-url", dbURL}, a.URL, b.URL)
	})
}

// benchSetupAndRun sets up three tenants in the storage that storage names
// and benches them against nodes.
func benchSetupAndRun(t *testing.T, sim *dgiisim.Simulator, storage []string, nodes ...string) {
	t.Helper()
	keysFile := filepath.Join(t.TempDir(), "keys")
	var first []string
	for range 2 {
		out, errOut, err := runCLI(append([]string{"bench", "--setup-tenants", "3"}, storage...)...)
		if err != nil {
			t.Fatalf("setup: %v\n%s", err, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "# ") {
			t.Fatalf("setup printed %q, want a comment and three tenants", out)
		}
		for i, line := range lines[1:] {
			if rnc, key, _ := strings.Cut(line, " "); rnc != strconv.Itoa(140000001+i) || !strings.HasPrefix(key, "sk_testecf_") {
				t.Fatalf("line %q, want RNC %d and a TesteCF key", line, 140000001+i)
			}
		}
		if first != nil && slices.Equal(first, lines) {
			t.Fatal("the second setup printed the same keys")
		}
		first = lines
		os.WriteFile(keysFile, []byte(out), 0o600)
	}
	sends := len(sim.Sends())
	args := []string{"bench", "--keys-file", keysFile, "--docs", "9", "--concurrency", "3", "--poll", "20ms", "--baseline", "100ms"}
	for _, n := range nodes {
		args = append(args, "--url", n)
	}
	out, errOut, err := runCLI(args...)
	if err != nil {
		t.Fatalf("bench: %v\n%s%s", err, out, errOut)
	}
	if !regexp.MustCompile(`(?m)^outcomes +map\[accepted:9\]$`).MatchString(out) ||
		len(nodes) > 1 && !regexp.MustCompile(`(?m)^node 2 +http://[0-9.:]+: [1-9][0-9]* created`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
	byRNC := map[string]int{}
	for _, s := range sim.Sends()[sends:] {
		byRNC[s.RNCEmisor]++
	}
	if want := map[string]int{"140000001": 3, "140000002": 3, "140000003": 3}; !maps.Equal(byRNC, want) {
		t.Errorf("DGII received by issuer %v, want %v", byRNC, want)
	}
}
