// Command testsummary reads `go test -json` on stdin and writes what
// `go test` would have written, package by package (the ok/FAIL lines, the
// output of every failed test, build errors), then a summary: the counts,
// every skipped test with the reason it gave (one line per package and
// reason), the packages without tests and the failed tests, so that a suite
// that skipped (PostgreSQL without SELLO_TEST_DATABASE_URL, a missing
// oracle) is seen. It exits 1 when anything failed. make test pipes into it
// (under pipefail, so that go test's status counts too):
//
//	go test -json ./... | go run ./internal/testsummary
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // of build-output and build-fail
}

// test is what one test (or a package's own output, Test "") printed.
type test struct {
	name   string
	output strings.Builder
	result string // pass, fail or skip; "" while it runs
}

// pkg collects one package's events until it ends.
type pkg struct {
	tests map[string]*test
	order []*test // in the order they started
	own   test    // output outside any test: ok/FAIL lines, TestMain's
}

func (p *pkg) test(name string) *test {
	if name == "" {
		return &p.own
	}
	t := p.tests[name]
	if t == nil {
		t = &test{name: name}
		p.tests[name] = t
		p.order = append(p.order, t)
	}
	return t
}

// skip is a skipped test and the reason it printed.
type skip struct{ pkg, test, reason string }

// summary is the stream's outcome.
type summary struct {
	pass, fail int // tests, subtests included
	failed     []string
	skipped    []skip
	noTests    []string // packages without test files
	failedPkgs int
}

// summarize copies the stream on r to w as go test prints it, followed by
// the summary. It reports whether any test, package or build failed.
func summarize(r io.Reader, w io.Writer) (failed bool, err error) {
	pkgs := map[string]*pkg{}
	var s summary
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line) // not an event: go's own messages
			continue
		}
		switch e.Action {
		case "build-output":
			io.WriteString(w, e.Output)
			continue
		case "build-fail":
			failed = true
			continue
		}
		if e.Package == "" {
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkg{tests: map[string]*test{}}
			pkgs[e.Package] = p
		}
		t := p.test(e.Test)
		switch e.Action {
		case "output":
			t.output.WriteString(e.Output)
		case "pass", "fail", "skip":
			t.result = e.Action
			if e.Test == "" {
				s.end(w, e.Package, p)
				delete(pkgs, e.Package)
				if e.Action == "fail" {
					failed = true
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return true, fmt.Errorf("read go test -json: %w", err)
	}
	// Packages whose binary died without a result.
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range pkgs {
			if !yield(name) {
				return
			}
		}
	}) {
		p := pkgs[name]
		p.own.result = "fail"
		s.end(w, name, p)
		failed = true
	}
	s.print(w)
	return failed || s.fail > 0 || s.failedPkgs > 0, nil
}

// end prints a finished package as go test does and counts its tests.
func (s *summary) end(w io.Writer, name string, p *pkg) {
	for _, t := range p.order {
		switch t.result {
		case "pass":
			s.pass++
		case "skip":
			s.skipped = append(s.skipped, skip{name, t.name, reason(t.output.String())})
		case "fail":
			s.fail++
			s.failed = append(s.failed, name+" "+t.name)
			io.WriteString(w, failure(t))
		case "":
			// Running when the test binary died (a panic, a timeout): its
			// output is the clue.
			s.fail++
			s.failed = append(s.failed, name+" "+t.name+" (did not finish)")
			io.WriteString(w, failure(t))
		}
	}
	own := p.own.output.String()
	switch p.own.result {
	case "fail":
		s.failedPkgs++
		io.WriteString(w, withoutFraming(own))
	case "skip":
		s.noTests = append(s.noTests, name)
		io.WriteString(w, own) // "?   \tpkg\t[no test files]"
	default:
		// A passing package: its ok line, and anything else it printed
		// outside the framing (TestMain, a leak check's warning).
		for line := range strings.Lines(withoutFraming(own)) {
			if line != "PASS\n" {
				io.WriteString(w, line)
			}
		}
	}
}

// withoutFraming drops the lines go test -v adds around each test and
// go test without -v does not print.
func withoutFraming(out string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "=== RUN") || strings.HasPrefix(line, "=== PAUSE") ||
			strings.HasPrefix(line, "=== CONT") || strings.HasPrefix(line, "=== NAME") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// failure is a failed test's output as go test without -v prints it: the
// --- FAIL line first, then what the test printed, indented by its depth
// (go test -json streams a test's lines as they come, --- FAIL last).
func failure(t *test) string {
	indent := strings.Repeat("    ", strings.Count(t.name, "/"))
	var head, body strings.Builder
	for line := range strings.Lines(withoutFraming(t.output.String())) {
		if strings.HasPrefix(line, "--- FAIL") && head.Len() == 0 {
			head.WriteString(indent + line)
			continue
		}
		body.WriteString(indent + line)
	}
	return head.String() + body.String()
}

// reason is what a skipped test printed, without the framing, the
// --- SKIP line and the file:line of the first line: the message given to
// t.Skip.
func reason(out string) string {
	var parts []string
	for line := range strings.Lines(withoutFraming(out)) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		if len(parts) == 0 {
			line = fileLine.ReplaceAllString(line, "")
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// fileLine is the position testing puts before a test's message.
var fileLine = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)

// print writes the summary that closes the output.
func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped", s.pass, s.fail, len(s.skipped))
	switch s.failedPkgs {
	case 0:
	case 1:
		fmt.Fprint(w, "; 1 package failed")
	default:
		fmt.Fprintf(w, "; %d packages failed", s.failedPkgs)
	}
	fmt.Fprintln(w)
	if len(s.skipped) > 0 {
		fmt.Fprintln(w, "\nSkipped:")
		// One line per package and reason, with the tests that gave it.
		type group struct {
			pkg, reason string
			tests       []string
		}
		var groups []*group
		index := map[[2]string]*group{}
		for _, sk := range s.skipped {
			k := [2]string{sk.pkg, sk.reason}
			g := index[k]
			if g == nil {
				g = &group{pkg: sk.pkg, reason: sk.reason}
				index[k] = g
				groups = append(groups, g)
			}
			g.tests = append(g.tests, sk.test)
		}
		for _, g := range groups {
			if len(g.tests) == 1 {
				fmt.Fprintf(w, "  %s %s: %s\n", g.pkg, g.tests[0], g.reason)
				continue
			}
			fmt.Fprintf(w, "  %s, %d tests: %s\n      %s\n", g.pkg, len(g.tests), g.reason, strings.Join(g.tests, " "))
		}
	}
	if len(s.noTests) > 0 {
		fmt.Fprintf(w, "\nNo test files: %s\n", strings.Join(s.noTests, ", "))
	}
	if len(s.failed) > 0 {
		fmt.Fprintln(w, "\nFailed:")
		for _, f := range s.failed {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
}
