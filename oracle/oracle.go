// Package oracle finds the independent programs tests check Sello against
// (xmlsec1, xmllint, zbarimg, pdftotext, promtool) and DGII's XSD schemas (in
// ../shared/dgii/xsd-libxml2 beside the project, or where SELLO_DGII_XSD
// says).
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
	"chromium":  "chromium",
	"promtool":  "prometheus",
}

// XSDEnv names the variable that points the tests at another folder of
// DGII's XSDs than ../shared/dgii/xsd-libxml2.
const XSDEnv = "SELLO_DGII_XSD"

// xsdPage is where DGII publishes the XSDs: its page "Documentación sobre
// e-CF" (as ../shared/dgii/FACTS.md cites it).
const xsdPage = "https://dgii.gov.do/cicloContribuyente/facturacion/comprobantesFiscalesElectronicosE-CF/Paginas/documentacionSobreE-CF.aspx"

// XSDDir returns the folder of DGII's XSD schemas, as the tests use them
// (the official files, renamed e-CF-31.xsd … Semilla.xsd, with the fixes
// libxml2 needs): $SELLO_DGII_XSD when it is set, else
// ../shared/dgii/xsd-libxml2 beside the project. When the folder is
// absent it skips the test, or fails it in CI (see Missing), saying what
// the folder is, where DGII publishes it and where to put it.
func XSDDir(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir, msg := findXSDDir(os.Getenv(XSDEnv), filepath.Join(filepath.Dir(file), "..", "..", "shared", "dgii", "xsd-libxml2"))
	if msg != "" {
		Missing(tb, msg)
	}
	return dir
}

// findXSDDir is XSDDir's lookup: env, the value of SELLO_DGII_XSD, wins
// over beside, the folder beside the project. It returns the folder, or
// the message that says why there is none and how to get one.
func findXSDDir(env, beside string) (dir, msg string) {
	where := "../shared/dgii/xsd-libxml2 is not beside the project and " + XSDEnv + " is not set"
	dir = beside
	if env != "" {
		where = XSDEnv + "=" + env + " is not a folder"
		dir = env
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, ""
	}
	return "", "DGII's XSD schemas are missing: " + where + ". " +
		"They are DGII's official schemas for the e-CF (types 31 to 47), RFCE, ARECF, ACECF, ANECF and the authentication seed (Semilla), " +
		"which the tests validate Sello's XML against. DGII publishes them on its page Documentación sobre e-CF, " + xsdPage + ". " +
		"Put them in ../shared/dgii/xsd-libxml2 beside the project, named e-CF-31.xsd … e-CF-47.xsd, RFCE-32.xsd, ARECF.xsd, ACECF.xsd, ANECF.xsd and Semilla.xsd, " +
		"with the two fixes libxml2 needs (README.md, Developing), or set " + XSDEnv + " to the folder that holds them."
}

// XSD returns the path of one of DGII's libxml2-ready schemas in XSDDir,
// e.g. XSD(tb, "e-CF-31.xsd").
func XSD(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(XSDDir(tb), name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("DGII schema %s: %v (the folder of DGII's XSDs lacks it; see %s)", name, err, XSDEnv)
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
