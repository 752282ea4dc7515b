package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	goLine := "go " + strings.TrimPrefix(runtime.Version(), "go") + " " + runtime.GOOS + "/" + runtime.GOARCH

	t.Run("LDFlags", func(t *testing.T) {
		bin := mustBuild(t, "-ldflags", "-X main.version=1.2.3-4-gabcdef0 -X main.commit=abcdef0123456789")
		got := mustRunBinary(t, bin, "version")
		want := "sello 1.2.3-4-gabcdef0\ncommit abcdef0123456789\n" + goLine + "\n"
		if got != want {
			t.Fatalf("sello version:\n%s\nwant:\n%s", got, want)
		}
	})

	// Without -ldflags the binary names what go build stamped from the
	// checkout: the toolchain's own report (go version -m) is the oracle.
	t.Run("BuildInfo", func(t *testing.T) {
		// go build finds git by a .git folder: a git worktree's .git is a
		// file, and its builds carry no vcs.* (CI's checkout is a clone).
		if fi, err := os.Stat("../../.git"); err == nil && !fi.IsDir() {
			t.Skip("go build stamps no VCS information in a git worktree (../../.git is a file); run this test in a clone")
		}
		bin := mustBuild(t, "-buildvcs=true")
		stamped := goVersionM(t, bin)
		rev := stamped["vcs.revision"]
		if rev == "" {
			t.Fatalf("go build stamped no vcs.revision (is this a git checkout?):\n%v", stamped)
		}
		if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err != nil {
			t.Fatalf("git rev-parse HEAD: %v", err)
		} else if h := strings.TrimSpace(string(head)); h != rev {
			t.Fatalf("stamped revision %s, HEAD is %s", rev, h)
		}
		wantCommit := rev
		if stamped["vcs.modified"] == "true" {
			wantCommit += "-dirty"
		}
		wantVersion := strings.TrimPrefix(stamped["mod"], "v")
		if wantVersion == "" || wantVersion == "(devel)" {
			wantVersion = devVersion
		}
		got := mustRunBinary(t, bin, "version")
		want := "sello " + wantVersion + "\ncommit " + wantCommit + "\n" + goLine + "\n"
		if got != want {
			t.Fatalf("sello version:\n%s\nwant:\n%s", got, want)
		}
	})

	// go test stamps no module version and no revision.
	t.Run("Unstamped", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(t.Context(), []string{"version"}, noEnv, &out, &out); err != nil {
			t.Fatal(err)
		}
		want := "sello " + devVersion + "\ncommit unknown\n" + goLine + "\n"
		if out.String() != want {
			t.Fatalf("sello version:\n%s\nwant:\n%s", out.String(), want)
		}
	})
}

func TestVCSCommit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []debug.BuildSetting
		want     string
	}{
		{"Clean", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, "abc"},
		{"Modified", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc"}}, "abc-dirty"},
		{"NoVCS", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, ""},
		{"ModifiedWithoutRevision", []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := vcsCommit(tc.settings); got != tc.want {
				t.Fatalf("vcsCommit = %q, want %q", got, tc.want)
			}
		})
	}
}

// mustBuild builds the sello binary, with go build's extra flags, into a
// temporary folder.
func mustBuild(tb testing.TB, flags ...string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "sello")
	args := append([]string{"build", "-o", bin}, flags...)
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		tb.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

// mustRunBinary runs bin with args and returns its stdout.
func mustRunBinary(tb testing.TB, bin string, args ...string) string {
	tb.Helper()
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		tb.Fatalf("%s %s: %v", bin, strings.Join(args, " "), err)
	}
	return string(out)
}

// goVersionM is what go version -m reports of bin: its settings (build
// and vcs.*) by key, and the main module's version under "mod".
func goVersionM(tb testing.TB, bin string) map[string]string {
	tb.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		tb.Fatalf("go version -m: %v", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			m["mod"] = f[2]
		case len(f) >= 2 && f[0] == "build":
			if k, v, ok := strings.Cut(strings.Join(f[1:], " "), "="); ok {
				m[k] = v
			}
		}
	}
	return m
}
