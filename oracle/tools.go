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
// tools/package-lock.json pins, installed with npm ci into the user's cache
// directory on first use. It skips or fails, as Require does, when node or
// npm is missing or npm cannot fetch the package.
func Redocly(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"node", "npm"} {
		if _, err := exec.LookPath(name); err != nil {
			Missing(tb, name+" is not installed: Redocly's CLI needs Node.js 20.19 or later and npm")
		}
	}
	h := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(ToolsDir(), name))
		if err != nil {
			tb.Fatal(err)
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		Missing(tb, "no cache directory to install Redocly's CLI in: "+err.Error())
	}
	// The directory is named for the pins, so changing them installs anew.
	dir := filepath.Join(cache, "sello", "npm-"+hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(bin); err == nil {
		return bin
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
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, _ := os.ReadFile(filepath.Join(ToolsDir(), name))
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		Missing(tb, "npm ci in tools/ (Redocly's CLI, needs the npm registry): "+err.Error()+"\n"+string(out))
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(bin); statErr != nil { // not another run's installation
			tb.Fatal(err)
		}
	}
	return bin
}
