package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShutdownSlowUpload stops a real server process (SIGTERM) while a
// client, without a key, sends a request body at one byte a second: the
// stop cuts that connection when --shutdown-timeout passes, then still
// drains the workers and stops the job runner in order, and exits 0 without
// closing the database under the runner.
func TestShutdownSlowUpload(t *testing.T) {
	bin := mustBuild(t)
	addr := freeAddr(t)
	p := startProcess(t, bin, []string{"serve", "--demo", "--data", t.TempDir(), "--addr", addr,
		"--log-format", "json", "--shutdown-timeout", "1s"})

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", docsPath, addr); err != nil {
		t.Fatal(err)
	}
	// One byte a second, as a slow client sends: the body is the test's
	// subject, not a wait.
	uploading, reading := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(uploading)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for n := 0; ; n++ {
			<-tick.C
			if _, err := conn.Write([]byte(" ")); err != nil {
				return // cut by the server, or closed by the test
			}
			if n == 0 {
				close(reading) // the server has the header and reads the body
			}
		}
	}()
	defer func() { conn.Close(); <-uploading }()
	<-reading

	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	var exitErr error
	select {
	case exitErr = <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("the server did not exit within 10 s of SIGTERM\n%s", p.stderr.String())
	}
	took := time.Since(start)
	log := p.stderr.String()
	code := 0
	var ee *exec.ExitError
	if errors.As(exitErr, &ee) {
		code = ee.ExitCode()
	} else if exitErr != nil {
		t.Fatal(exitErr)
	}
	t.Logf("exit %d %s after SIGTERM", code, took.Round(time.Millisecond))
	if code != 0 {
		t.Errorf("exit code %d, want 0\n%s", code, log)
	}
	if strings.Contains(log, "database is closed") {
		t.Errorf("the log says the database was closed under a user of it\n%s", log)
	}

	// The stop's steps, in order.
	want := []string{"shutting down: finishing in-flight requests", "shutdown timeout passed: cut the connections still open", "workers drained", "jobs stopped", "stopped"}
	var got []string
	for line := range strings.Lines(log) {
		var e struct {
			Msg         string `json:"msg"`
			Connections int    `json:"connections"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		for _, w := range want {
			if e.Msg == w {
				got = append(got, e.Msg)
			}
		}
		if e.Msg == want[1] && e.Connections != 1 {
			t.Errorf("the warning names %d connections cut, want 1: %s", e.Connections, line)
		}
	}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("the stop logged\n  %s\nwant\n  %s\n%s", strings.Join(got, " | "), strings.Join(want, " | "), log)
	}
}
