// Package oracle finds the independent programs tests check Sello against
// (xmlsec1, xmllint, zbarimg, pdftotext) and DGII's reference files in
// ../shared/dgii.
//
// Outside CI a missing oracle skips the test with a clear message; in CI
// (CI set, as .ci/run runs) it fails it, so CI never passes by skipping.
package oracle

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Require returns the path of program name, installed by .ci/run from
// Debian (package in parentheses in the message).
func Require(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, name+" is not installed (apt-get install -y "+debianPackage[name]+"; .ci/run installs it)")
	}
	return p
}

var debianPackage = map[string]string{
	"xmlsec1":   "xmlsec1",
	"xmllint":   "libxml2-utils",
	"zbarimg":   "zbar-tools",
	"pdftotext": "poppler-utils",
	"pdftoppm":  "poppler-utils",
}

// SharedDir returns the absolute path of ../shared/dgii (DGII's XSDs and
// documents, beside the project), or skips/fails when it is absent.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "dgii")
	if _, err := os.Stat(dir); err != nil {
		Missing(tb, "../shared/dgii is not beside the project: DGII's reference files are needed")
	}
	return dir
}

// XSD returns the path of one of DGII's libxml2-ready schemas, e.g.
// XSD(tb, "e-CF-31.xsd").
func XSD(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(SharedDir(tb), "xsd-libxml2", name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("DGII schema %s: %v", name, err)
	}
	return p
}

// Missing skips tb with msg, or fails it in CI (CI or SELLO_REQUIRE_ORACLES
// set), for an oracle that is not there.
func Missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv("CI") != "" || os.Getenv("SELLO_REQUIRE_ORACLES") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
