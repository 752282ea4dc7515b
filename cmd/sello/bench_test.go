package main

import (
	"regexp"
	"strings"
	"testing"

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
				"--docs", "12", "--concurrency", "3", "--poll", "20ms", "--follow", follow)
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
