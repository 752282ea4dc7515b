package oracle

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// ToolsDir returns the absolute path of the tools module beside the server's
// (../tools): its go.mod pins the Go programs tests run and its
// package-lock.json the npm ones, so that the server's go.mod gains none of
// their dependencies.
func ToolsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "tools")
}

// GoTool builds the command pkg of the tools module (a tool directive in
// tools/go.mod, at the version go.sum pins) and returns the binary's path.
// It skips or fails, as Require does, when the module cannot be fetched.
func GoTool(tb testing.TB, pkg string) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-mod=readonly", "-o", bin, pkg)
	cmd.Dir = ToolsDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		Missing(tb, "go build "+pkg+" in tools/ (needs the module proxy or a filled module cache): "+err.Error()+"\n"+string(out))
	}
	return bin
}

// Redocly returns the path of Redocly's CLI at the version and integrity
// tools/package-lock.json pins (see NodeModules). It skips or fails, as
// Require does, when node or npm is missing or npm cannot fetch the
// package.
func Redocly(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(NodeModules(tb, "Redocly's CLI"), ".bin", "redocly")
}

// Node returns the path of node (Node.js 20.19 or later: the npm packages
// of tools/package.json need it), skipping or failing, as Require does,
// when it is not installed; who names the program that needs it.
func Node(tb testing.TB, who string) string {
	tb.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Missing(tb, "node is not installed: "+who+" needs Node.js 20.19 or later")
	}
	return p
}

// npmPins are the files of tools/ that say what npm installs: the
// manifest, the lock file (every package at its version and integrity)
// and the local stand-ins the manifest names (tools/stubs).
var npmPins = []string{"package.json", "package-lock.json", filepath.Join("stubs", "fs", "package.json")}

// NodeModules returns the node_modules folder of the npm packages
// tools/package.json pins, at the versions and integrity
// tools/package-lock.json records, installed with npm ci into the user's
// cache directory on first use (in a folder named for the pins, so that
// changing them installs anew). It skips or fails, as Require does, when
// node or npm is missing or npm cannot fetch the packages; who names the
// program the test needs, for the message.
func NodeModules(tb testing.TB, who string) string {
	tb.Helper()
	Node(tb, who)
	if _, err := exec.LookPath("npm"); err != nil {
		Missing(tb, "npm is not installed: "+who+" is installed from tools/package.json with npm ci")
	}
	h := sha256.New()
	for _, name := range npmPins {
		b, err := os.ReadFile(filepath.Join(ToolsDir(), name))
		if err != nil {
			tb.Fatal(err)
		}
		h.Write([]byte(name + "\x00"))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		Missing(tb, "no cache directory to install "+who+" in: "+err.Error())
	}
	dir := filepath.Join(cache, "sello", "npm-"+hex.EncodeToString(h.Sum(nil))[:16])
	modules := filepath.Join(dir, "node_modules")
	// npm ci writes this file last.
	done := filepath.Join(modules, ".package-lock.json")
	if _, err := os.Stat(done); err == nil {
		return modules
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		tb.Fatal(err)
	}
	// Install beside and rename, so a concurrent test run never sees half
	// an installation.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "npm-install-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range npmPins {
		b, _ := os.ReadFile(filepath.Join(ToolsDir(), name))
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tmp, name)), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		Missing(tb, "npm ci in tools/ ("+who+", needs the npm registry): "+err.Error()+"\n"+string(out))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(done); statErr != nil { // not another run's installation
			tb.Fatal(err)
		}
	}
	return modules
}
