package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit name the build. make release sets them from git
// (-ldflags "-X main.version=… -X main.commit=…"); unset, buildInfo takes
// them from what the Go toolchain stamped into the binary.
var (
	version string
	commit  string
)

// devVersion is the version of a build that neither -ldflags nor the
// toolchain named (go test, go run).
const devVersion = "dev"

// build is what sello version prints.
type build struct {
	version, commit, goVersion string
}

// buildInfo returns the build's version and commit: the -ldflags values,
// else the module version (without its "v", as make release writes it:
// git describe's tag less the "v") and the vcs.revision (with "-dirty" when
// vcs.modified) that go build stamps from the checkout, else devVersion and
// "unknown".
func buildInfo() build {
	b := build{version: version, commit: commit, goVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.version = strings.TrimPrefix(bi.Main.Version, "v")
		}
		if b.commit == "" {
			b.commit = vcsCommit(bi.Settings)
		}
	}
	if b.version == "" {
		b.version = devVersion
	}
	if b.commit == "" {
		b.commit = "unknown"
	}
	return b
}

// vcsCommit is the revision in a build's settings, with "-dirty" when the
// checkout had changes; "" when the build was not stamped.
func vcsCommit(settings []debug.BuildSetting) string {
	var rev string
	var modified bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" && modified {
		rev += "-dirty"
	}
	return rev
}

// runVersion prints the version, the commit and the Go toolchain.
func runVersion(stdout io.Writer) {
	b := buildInfo()
	fmt.Fprintf(stdout, "sello %s\ncommit %s\ngo %s %s/%s\n", b.version, b.commit, strings.TrimPrefix(b.goVersion, "go"), runtime.GOOS, runtime.GOARCH)
}
