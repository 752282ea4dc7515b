package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The samples sello bench reads from a server's /metrics (Prometheus's
// text format, on serve's --debug-addr).
const (
	metricCPU     = "process_cpu_seconds_total"                // counter: user and system CPU, seconds
	metricRSS     = "process_resident_memory_bytes"            // gauge: resident memory now
	metricPeakRSS = "sello_process_resident_memory_peak_bytes" // gauge: the resident memory's peak (VmHWM)
)

// maxMetricsBody bounds what readMetrics reads of one answer.
const maxMetricsBody = 16 << 20

// serverSample is one reading of a server's /metrics.
type serverSample struct {
	cpu  float64 // seconds
	rss  float64 // bytes; 0 if not exposed
	peak float64 // bytes; 0 if not exposed
}

// readMetrics reads the server's CPU seconds and memory from its /metrics
// at url.
func readMetrics(ctx context.Context, client *http.Client, url string) (serverSample, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return serverSample{}, fmt.Errorf("metrics %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return serverSample{}, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return serverSample{}, fmt.Errorf("metrics %s: %s", url, resp.Status)
	}
	m, err := parseMetrics(io.LimitReader(resp.Body, maxMetricsBody))
	if err != nil {
		return serverSample{}, fmt.Errorf("metrics %s: %w", url, err)
	}
	cpu, ok := m[metricCPU]
	if !ok {
		return serverSample{}, fmt.Errorf("metrics %s: no %s", url, metricCPU)
	}
	return serverSample{cpu: cpu, rss: m[metricRSS], peak: m[metricPeakRSS]}, nil
}

// parseMetrics reads Prometheus's text exposition format (version 0.0.4)
// and returns the value of every sample that has no labels, by metric name.
// Comments (# HELP, # TYPE) are skipped and so are samples with labels, but
// every sample line must be well formed: a name, labels in braces, a value
// and an optional integer timestamp. A name given twice without labels is
// an error.
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimLeft(sc.Text(), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		name, labelled, rest, err := splitSample(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 || len(fields) > 2 {
			return nil, fmt.Errorf("line %d: want a value and at most a timestamp after the name", n)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: value %q is not a number", n, fields[0])
		}
		if len(fields) == 2 {
			if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
				return nil, fmt.Errorf("line %d: timestamp %q is not an integer", n, fields[1])
			}
		}
		if labelled {
			continue
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("line %d: %s given twice", n, name)
		}
		out[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return out, nil
}

// splitSample splits a sample line into its metric name, whether it has
// labels, and what follows the name and labels (the value and timestamp,
// led by blanks).
func splitSample(line string) (name string, labelled bool, rest string, err error) {
	i := 0
	for i < len(line) && isMetricNameByte(line[i], i == 0) {
		i++
	}
	name, rest = line[:i], line[i:]
	if name == "" && !strings.HasPrefix(rest, "{") {
		return "", false, "", fmt.Errorf("no metric name")
	}
	if strings.HasPrefix(rest, "{") {
		end, err := labelsEnd(rest)
		if err != nil {
			return "", false, "", err
		}
		labelled, rest = true, rest[end:]
	}
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false, "", fmt.Errorf("unexpected %q after the metric name", rest[0])
	}
	return name, labelled, rest, nil
}

// labelsEnd returns the index just past the '}' that closes the labels s
// starts with, skipping quoted label values with their escapes.
func labelsEnd(s string) (int, error) {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '}':
			return i + 1, nil
		}
	}
	return 0, errors.New("labels not closed")
}

// isMetricNameByte reports whether c may be in a metric name ([a-zA-Z_:],
// and digits after the first).
func isMetricNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100 on
// every architecture Go runs Linux on.
const clockTicks = 100

// procCPU sums the CPU seconds (user and system, and those of their reaped
// children, so that a process that exits between two readings is still
// counted) of every process on this machine whose command name is name,
// from /proc. It returns how many processes it found.
func procCPU(name string) (float64, int, error) {
	paths, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, 0, err
	}
	var ticks uint64
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // it exited
		}
		comm, t, err := parseProcStat(string(b))
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", p, err)
		}
		if comm == name {
			ticks += t
			n++
		}
	}
	if len(paths) == 0 {
		return 0, 0, errors.New("no processes in /proc (counting a database's CPU needs Linux)")
	}
	return float64(ticks) / clockTicks, n, nil
}

// parseProcStat returns the command name of a /proc/PID/stat line and its
// utime+stime+cutime+cstime in clock ticks.
func parseProcStat(s string) (comm string, ticks uint64, err error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, errors.New("no (comm)")
	}
	// After ")": state (field 3), …, utime (14), stime (15), cutime (16), cstime (17).
	f := strings.Fields(s[end+1:])
	if len(f) < 15 {
		return "", 0, errors.New("too few fields")
	}
	for _, v := range f[11:15] {
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil || t < 0 {
			return "", 0, fmt.Errorf("time %q is not a count of ticks", v)
		}
		ticks += uint64(t)
	}
	return s[open+1 : end], ticks, nil
}

// idleShare is the share of one core under which a server counts as idle
// again after the load (River's polling and the store's checkpoints keep a
// resting server at about 1%).
const idleShare = 0.05

// monitor reads the servers' /metrics and the database's processes.
type monitor struct {
	client *http.Client
	urls   []string // the servers' /metrics
	dbProc string   // the database's command name; "" not counted
}

// reading is one look at the servers and the database.
type reading struct {
	servers []serverSample // in the order of monitor.urls
	db      float64        // the database's processes' CPU, seconds
	dbProcs int            // how many
}

// read reads every server's /metrics and the database's processes.
func (m *monitor) read(ctx context.Context) (reading, error) {
	var r reading
	for _, u := range m.urls {
		s, err := readMetrics(ctx, m.client, u)
		if err != nil {
			return reading{}, err
		}
		r.servers = append(r.servers, s)
	}
	if m.dbProc != "" {
		var err error
		if r.db, r.dbProcs, err = procCPU(m.dbProc); err != nil {
			return reading{}, fmt.Errorf("--db-cpu-proc: %w", err)
		} else if r.dbProcs == 0 {
			return reading{}, fmt.Errorf("--db-cpu-proc: no process named %q on this machine", m.dbProc)
		}
	}
	return r, nil
}

// settled is what settle saw.
type settled struct {
	last   reading
	waited time.Duration // from the last verdict to last
	idle   bool          // every server was idle; false: the deadline came first, or nothing was read
}

// settle reads every interval from the reading at the last verdict until
// every server used under idleShare of a core in one interval, or until the
// deadline. Nothing is read when interval is 0 or there are no servers.
func (m *monitor) settle(ctx context.Context, last reading, interval time.Duration, deadline time.Time) (settled, error) {
	out := settled{last: last}
	if interval == 0 || len(m.urls) == 0 {
		return out, nil
	}
	start := time.Now()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(interval):
		}
		r, err := m.read(ctx)
		if err != nil {
			return out, err
		}
		idle := true
		for i, s := range r.servers {
			if s.cpu-out.last.servers[i].cpu >= idleShare*interval.Seconds() {
				idle = false
			}
		}
		out.last, out.waited = r, time.Since(start)
		if idle {
			out.idle = true
			return out, nil
		}
	}
	return out, nil
}

// report prints the servers' CPU and memory, and the database's CPU,
// between before and the last verdict (at) and until they were idle
// (after), per verdict and per document, in milliseconds and in raw RSA
// signatures of sigCPU each.
func (m *monitor) report(w io.Writer, before, at reading, after settled, interval time.Duration, verdicts, docs int, sigCPU time.Duration) {
	per := func(cpu float64, n int) string {
		each := time.Duration(cpu / float64(max(n, 1)) * float64(time.Second))
		return fmt.Sprintf("%s = %.2f raw RSA signatures", ms(each), float64(each)/float64(sigCPU))
	}
	until := "at the last verdict (--idle 0)"
	switch {
	case after.idle:
		until = fmt.Sprintf("until idle, %.1f s after the last verdict", after.waited.Seconds())
	case interval > 0:
		until = fmt.Sprintf("until the deadline, %.1f s after the last verdict: NOT idle yet", after.waited.Seconds())
	}
	if len(m.urls) > 0 {
		var cpuAt, cpuAfter float64
		for i := range m.urls {
			cpuAt += at.servers[i].cpu - before.servers[i].cpu
			cpuAfter += after.last.servers[i].cpu - before.servers[i].cpu
		}
		fmt.Fprintf(w, "server CPU         %.2f s to the last verdict, %.2f s %s (%d servers' /metrics)\n", cpuAt, cpuAfter, until, len(m.urls))
		fmt.Fprintf(w, "server CPU/verdict %s (CPU to the last verdict ÷ %d verdicts)\n", per(cpuAt, verdicts), verdicts)
		fmt.Fprintf(w, "server CPU/doc     %s (CPU until idle ÷ %d documents)\n", per(cpuAfter, docs), docs)
		for i, u := range m.urls {
			s := after.last.servers[i]
			mem := fmt.Sprintf("peak RSS %.1f MB", s.peak/1e6)
			if s.peak == 0 {
				mem = fmt.Sprintf("RSS %.1f MB at most when read (no %s)", max(before.servers[i].rss, at.servers[i].rss, s.rss)/1e6, metricPeakRSS)
			}
			fmt.Fprintf(w, "%-18s %s: CPU %.2f s, %s\n", fmt.Sprintf("server %d", i+1), u, s.cpu-before.servers[i].cpu, mem)
		}
	}
	if m.dbProc != "" {
		fmt.Fprintf(w, "database CPU       %.2f s to the last verdict, %.2f s %s (%d processes named %s on this machine)\n", at.db-before.db, after.last.db-before.db, until, after.last.dbProcs, m.dbProc)
		fmt.Fprintf(w, "database CPU/doc   %s (CPU until idle ÷ %d documents)\n", per(after.last.db-before.db, docs), docs)
	}
}
