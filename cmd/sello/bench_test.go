package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
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

// A 429 is waited out for Retry-After and the request sent again; the
// bench says how many it got.
func TestBenchRateLimited(t *testing.T) {
	var creates atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/TesteCF/documentos-ecf":
			n := creates.Add(1)
			if n == 2 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"slow down","retryAfterSeconds":1}}`)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprintf(w, `{"ok":true,"document":{"encf":"E3100000000%02d"}}`, n)
		case r.Method == "POST" && r.URL.Path == "/TesteCF/documentos-ecf/status/batch":
			var req struct{ ENCFs []string }
			json.NewDecoder(r.Body).Decode(&req)
			var res []map[string]any
			for _, e := range req.ENCFs {
				res = append(res, map[string]any{"encf": e, "document": map[string]any{"status": "accepted"}})
			}
			json.NewEncoder(w).Encode(map[string]any{"ok": true, "results": res})
		default:
			http.NotFound(w, r)
		}
	}))
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
	if got := creates.Load(); got != 4 {
		t.Errorf("%d creates sent, want 4 (3 and the one answered 429 again)", got)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("done in %s: Retry-After (1 s) not waited out", d)
	}
}
