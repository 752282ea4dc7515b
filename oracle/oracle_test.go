package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Skip and Fatal record the message and end
// the goroutine, as the real ones end the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.failed = fmt.Sprint(args...)
	runtime.Goexit()
}

// record runs f with a recorder and returns it once f has ended.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// wantMessage fails unless msg says what the folder is, where DGII
// publishes it, where to put it and how to point elsewhere.
func wantMessage(t *testing.T, msg string, substrs ...string) {
	t.Helper()
	for _, s := range append(substrs,
		"DGII's official schemas for the e-CF", "RFCE, ARECF, ACECF, ANECF",
		"Documentación sobre e-CF", xsdPage,
		"Put them in ../shared/dgii/xsd-libxml2", "e-CF-31.xsd", "set SELLO_DGII_XSD to the folder") {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q: want it to contain %q", msg, s)
		}
	}
}

// withoutCI clears what makes a missing oracle fail rather than skip.
func withoutCI(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("SELLO_REQUIRE_ORACLES", "")
}

func TestFindXSDDir(t *testing.T) {
	beside, other := t.TempDir(), t.TempDir()
	missing := filepath.Join(t.TempDir(), "none")
	t.Run("OK", func(t *testing.T) {
		if got, msg := findXSDDir("", beside); got != beside || msg != "" {
			t.Errorf("without %s: got %q, %q; want %q", XSDEnv, got, msg, beside)
		}
	})
	t.Run("OKEnvWins", func(t *testing.T) {
		if got, msg := findXSDDir(other, beside); got != other || msg != "" {
			t.Errorf("with %s: got %q, %q; want %q", XSDEnv, got, msg, other)
		}
	})
	t.Run("ErrNotBeside", func(t *testing.T) {
		got, msg := findXSDDir("", missing)
		if got != "" {
			t.Errorf("dir: got %q, want none", got)
		}
		wantMessage(t, msg, "../shared/dgii/xsd-libxml2 is not beside the project and SELLO_DGII_XSD is not set")
	})
	t.Run("ErrEnvMissing", func(t *testing.T) {
		// The variable wins even when it is wrong: no silent fallback.
		got, msg := findXSDDir(missing, beside)
		if got != "" {
			t.Errorf("dir: got %q, want none", got)
		}
		wantMessage(t, msg, "SELLO_DGII_XSD="+missing+" is not a folder")
	})
	t.Run("ErrEnvFile", func(t *testing.T) {
		file := filepath.Join(other, "e-CF-31.xsd")
		if err := os.WriteFile(file, []byte("<xs:schema/>"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, msg := findXSDDir(file, beside); got != "" || !strings.Contains(msg, "SELLO_DGII_XSD="+file+" is not a folder") {
			t.Errorf("a file: got %q, %q; want no folder", got, msg)
		}
	})
}

func TestXSD(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		dir := t.TempDir()
		want := filepath.Join(dir, "ARECF.xsd")
		if err := os.WriteFile(want, []byte("<xs:schema/>"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(XSDEnv, dir)
		if got := XSD(t, "ARECF.xsd"); got != want {
			t.Errorf("XSD: got %q, want %q", got, want)
		}
	})
	t.Run("ErrMissingSkips", func(t *testing.T) {
		withoutCI(t)
		t.Setenv(XSDEnv, filepath.Join(t.TempDir(), "none"))
		r := record(t, func(tb testing.TB) { XSD(tb, "ARECF.xsd") })
		if r.failed != "" {
			t.Errorf("failed %q, want a skip", r.failed)
		}
		wantMessage(t, r.skipped, "SELLO_DGII_XSD=")
	})
	t.Run("ErrMissingFailsInCI", func(t *testing.T) {
		withoutCI(t)
		t.Setenv("SELLO_REQUIRE_ORACLES", "1")
		t.Setenv(XSDEnv, filepath.Join(t.TempDir(), "none"))
		r := record(t, func(tb testing.TB) { XSD(tb, "ARECF.xsd") })
		if r.skipped != "" {
			t.Errorf("skipped %q, want a failure", r.skipped)
		}
		wantMessage(t, r.failed, "SELLO_DGII_XSD=")
	})
}
