package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/testwait"
)

// TestKillMidway kills the server process (SIGKILL) in the middle of a load
// of documents, restarts it on the same data, and checks that every document
// answered 202 reaches a final state, that no e-NCF was given twice or
// skipped, and that DGII received each document once.
func TestKillMidway(t *testing.T) {
	bin := mustBuild(t)
	sim, simURL := mustSimulator(t)
	data := t.TempDir()
	addr := freeAddr(t)
	args := []string{"serve", "--demo", "--data", data, "--addr", addr, "--dgii-url", simURL,
		"--dgii-timeout", "2s", "--job-rescue-after", "6s"}

	first := startProcess(t, bin, args)
	key := first.keys[sello.EnvTest]
	base := "http://" + addr

	// Load: creates in flight from several clients until the kill, which
	// comes once 80 were answered 202.
	var mu sync.Mutex
	var accepted []string
	var stop atomic.Bool
	var wg sync.WaitGroup
	enough := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	for range 6 {
		wg.Go(func() {
			for !stop.Load() {
				encf, err := post(client, base, key, invoice())
				if err != nil {
					continue // the process died under this request
				}
				mu.Lock()
				if accepted = append(accepted, encf); len(accepted) == 80 {
					close(enough)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(30 * time.Second):
		stop.Store(true)
		first.kill(t)
		wg.Wait()
		t.Fatalf("only %d documents created in 30 s", len(accepted))
	}
	first.kill(t)
	stop.Store(true)
	wg.Wait()
	t.Logf("killed after %d documents answered 202", len(accepted))

	second := startProcess(t, bin, args)
	defer second.terminate(t)
	// The kill must have caught work in flight, or this test proves nothing.
	res, err := batch(client, base, key, accepted)
	if err != nil {
		t.Fatal(err)
	}
	pending := 0
	for _, r := range res {
		if !r.Document.Status.Final() {
			pending++
		}
	}
	if pending == 0 {
		t.Fatal("every document was final before the restart: the kill caught no work in flight")
	}
	t.Logf("%d of %d documents not final at restart", pending, len(accepted))

	// Every 202 reaches a final state.
	statuses := map[string]sello.Status{}
	if !testwait.Within(2*time.Minute, 50*time.Millisecond, func() bool {
		res, err := batch(client, base, key, accepted)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !r.Found {
				t.Fatalf("document %s, answered 202, is lost", r.ENCF)
			} else if r.Document.Status.Final() {
				statuses[r.ENCF] = r.Document.Status
			}
		}
		return len(statuses) == len(accepted)
	}) {
		t.Fatalf("%d of %d documents without a final state after restart", len(accepted)-len(statuses), len(accepted))
	}
	for encf, st := range statuses {
		if st != sello.StatusAccepted {
			t.Errorf("%s ended %s, want accepted", encf, st)
		}
	}

	// No e-NCF given twice, none skipped: the numbers form 1..n.
	slices.Sort(accepted)
	for i, encf := range accepted {
		if i > 0 && encf == accepted[i-1] {
			t.Fatalf("e-NCF %s answered twice", encf)
		}
	}
	// DGII received each document exactly once.
	sends := map[string]int{}
	for _, s := range sim.Sends() {
		sends[s.ENCF]++
	}
	for _, encf := range accepted {
		if sends[encf] != 1 {
			t.Errorf("DGII received %s %d times, want once", encf, sends[encf])
		}
	}
	for encf, n := range sends {
		if n != 1 {
			t.Errorf("DGII received %s %d times", encf, n)
		}
	}
	// The numbers DGII saw are contiguous from 1: a number consumed by a
	// create the kill cut off was still used, not skipped.
	var seen []string
	for encf := range sends {
		seen = append(seen, encf)
	}
	slices.Sort(seen)
	for i, encf := range seen {
		if want := fmt.Sprintf("E31%010d", i+1); encf != want {
			t.Fatalf("DGII's e-NCFs skip: position %d is %s, want %s", i, encf, want)
		}
	}
}

// process is a sello serve run as a child process.
type process struct {
	cmd       *exec.Cmd
	keys      map[sello.Environment]string
	buyerKeys map[sello.Environment]string // the demo buyer's
	done      chan error
	// stderr holds what the process wrote to stderr (its log).
	stderr syncBuffer
}

// syncBuffer is a bytes.Buffer safe for one writer and other readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startProcess(tb testing.TB, bin string, args []string) *process {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SELLO_MASTER_KEY=")
	stdout, _ := cmd.StdoutPipe()
	p := &process{cmd: cmd, keys: map[sello.Environment]string{}, buyerKeys: map[sello.Environment]string{}, done: make(chan error, 1)}
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var env, key string
			if _, err := fmt.Sscanf(sc.Text(), "demo key %s %s", &env, &key); err == nil {
				p.keys[sello.Environment(env)] = key
			} else if _, err := fmt.Sscanf(sc.Text(), "demo buyer key %s %s", &env, &key); err == nil {
				p.buyerKeys[sello.Environment(env)] = key
			} else if strings.HasPrefix(sc.Text(), "listening on ") {
				close(ready)
			}
		}
	}()
	go func() { p.done <- cmd.Wait() }()
	select {
	case <-ready:
	case err := <-p.done:
		tb.Fatalf("server exited: %v", err)
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		tb.Fatal("server did not start")
	}
	return p
}

func (p *process) kill(tb testing.TB) {
	tb.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func (p *process) terminate(tb testing.TB) {
	tb.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		p.cmd.Process.Kill()
		tb.Error("server did not stop on SIGTERM")
	}
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func post(c *http.Client, base, key string, body []byte) (string, error) {
	req, _ := http.NewRequest("POST", base+docsPath, strings.NewReader(string(body)))
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		Document struct{ ENCF string } `json:"document"`
	}
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("status %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return "", err
	}
	return r.Document.ENCF, nil
}

type batchResult struct {
	ENCF     string `json:"encf"`
	Found    bool   `json:"found"`
	Document struct {
		Status sello.Status `json:"status"`
	} `json:"document"`
}

func batch(c *http.Client, base, key string, encfs []string) ([]batchResult, error) {
	var out []batchResult
	for chunk := range slices.Chunk(encfs, 1000) {
		body, _ := json.Marshal(map[string]any{"encfs": chunk})
		req, _ := http.NewRequest("POST", base+docsPath+"/status/batch", strings.NewReader(string(body)))
		req.Header.Set("X-API-KEY", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		var r struct {
			Results []batchResult `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, r.Results...)
	}
	return out, nil
}
