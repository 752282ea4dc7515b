package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "record testdata/example.jsonl from go test -json and rewrite the golden file")

// TestSummarize reads go test -json of testdata/example, a module with a
// passing, a failing, a skipping, a panicking and a broken package and
// one without tests: the output is go test's, then the summary.
func TestSummarize(t *testing.T) {
	t.Run("Golden", func(t *testing.T) {
		if *update {
			cmd := exec.Command("go", "test", "-json", "./...")
			cmd.Dir = "testdata/example"
			out, _ := cmd.Output() // fails: the module has failing tests
			if err := os.WriteFile("testdata/example.jsonl", out, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		in, err := os.ReadFile("testdata/example.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		failed, err := summarize(bytes.NewReader(in), &got)
		if err != nil || !failed {
			t.Fatalf("summarize: failed %v, %v; want failed", failed, err)
		}
		if *update {
			if err := os.WriteFile("testdata/example.golden", got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile("testdata/example.golden")
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("got:\n%s\nwant (testdata/example.golden; -update rewrites it):\n%s", got.String(), want)
		}
		for _, part := range []string{
			// go test's own lines, failures in full
			"# example.com/ex/broken [example.com/ex/broken.test]\nbroken/broken_test.go:5:33: undefined: undefined\nFAIL\texample.com/ex/broken [build failed]\n",
			"--- FAIL: TestFail (0.00s)\n    fail_test.go:8: before the subtests\n    --- FAIL: TestFail/Sub (0.00s)\n        fail_test.go:9: got 1, want 2\nFAIL\nFAIL\texample.com/ex/fail\t",
			"--- FAIL: TestPanic (0.00s)\n    panics_test.go:6: about to panic\npanic: boom",
			"ok  \texample.com/ex/pass\t",
			"?   \texample.com/ex/notests\t[no test files]\n",
			// the summary
			"\n3 passed, 3 failed, 4 skipped; 3 packages failed\n",
			"\nSkipped:\n" +
				"  example.com/ex/fail TestFail/Skipped: xmllint not found: install libxml2-utils\n" +
				"  example.com/ex/skip, 2 tests: SELLO_TEST_DATABASE_URL not set: skipping the PostgreSQL suite\n" +
				"      TestSkip TestSkipAgain\n" +
				"  example.com/ex/skip TestSkipNow: (no reason given)\n",
			"\nNo test files: example.com/ex/notests\n",
			"\nFailed:\n  example.com/ex/fail TestFail\n  example.com/ex/fail TestFail/Sub\n  example.com/ex/panics TestPanic\n",
		} {
			if !strings.Contains(got.String(), part) {
				t.Errorf("output lacks %q", part)
			}
		}
		if strings.Contains(got.String(), "=== RUN") || strings.Contains(got.String(), "--- PASS") {
			t.Errorf("output has go test -v's framing")
		}
	})

	// The format of today's go: the same, run live on the packages that
	// pass.
	t.Run("Live", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("go not in PATH")
		}
		cmd := exec.Command("go", "test", "-json", "./pass", "./skip", "./notests")
		cmd.Dir = "testdata/example"
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go test -json: %v", err)
		}
		var got bytes.Buffer
		failed, err := summarize(bytes.NewReader(out), &got)
		if err != nil || failed {
			t.Fatalf("summarize: failed %v, %v; want passed\n%s", failed, err, got.String())
		}
		if want := "\n2 passed, 0 failed, 3 skipped\n"; !strings.Contains(got.String(), want) || !strings.Contains(got.String(), "example.com/ex/skip, 2 tests: SELLO_TEST_DATABASE_URL not set") {
			t.Errorf("got:\n%s\nwant %q and TestSkip's reason", got.String(), want)
		}
	})

	t.Run("NotJSON", func(t *testing.T) {
		var got bytes.Buffer
		failed, err := summarize(strings.NewReader("go: downloading example.com/x v1.0.0\n"), &got)
		if err != nil || failed || !strings.HasPrefix(got.String(), "go: downloading example.com/x v1.0.0\n") {
			t.Errorf("got %q, %v, %v", got.String(), failed, err)
		}
	})

	t.Run("BinaryDied", func(t *testing.T) {
		in := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestHang"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"p","Test":"TestHang","Output":"    h_test.go:3: waiting\n"}
`
		var got bytes.Buffer
		failed, err := summarize(strings.NewReader(in), &got)
		if err != nil || !failed || !strings.Contains(got.String(), "    h_test.go:3: waiting\n") || !strings.Contains(got.String(), "p TestHang (did not finish)") {
			t.Errorf("got %q, %v, %v; want failed, with the test's output", got.String(), failed, err)
		}
	})
}
