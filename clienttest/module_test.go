package clienttest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// oldestGo is the newest go directive the SDK's module may carry: the
// oldest Go release still supported, so that importing the SDK never raises
// a customer's go line.
const oldestGo = "1.25"

// TestClientModuleStandsAlone checks that the SDK is a module of its own
// that requires nothing: a customer importing it inherits none of the
// server's modules (59 before it was split off) and keeps its go line.
func TestClientModuleStandsAlone(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the SDK's modules: %v", err)
	}
	clientDir, err := filepath.Abs("../client")
	if err != nil {
		t.Fatal(err)
	}
	goCmd := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		// Nothing may be fetched: the SDK needs no module but its own.
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}

	t.Run("OnlyItself", func(t *testing.T) {
		if got, want := strings.Fields(goCmd(clientDir, "list", "-m", "-f", "{{.Path}}", "all")), []string{"github.com/sello-do/sello/client"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("go list -m all in client/: %d modules %v, want only %v", len(got), got, want)
		}
	})

	t.Run("GoDirective", func(t *testing.T) {
		var mod struct {
			Go      string
			Require []struct{ Path string }
		}
		if err := json.Unmarshal([]byte(goCmd(clientDir, "mod", "edit", "-json")), &mod); err != nil {
			t.Fatal(err)
		}
		if len(mod.Require) != 0 {
			t.Errorf("client/go.mod requires %v, want nothing", mod.Require)
		}
		got := mod.Go
		if !goVersionAtMost(got, oldestGo) {
			t.Fatalf("client/go.mod says go %s, want at most %s", got, oldestGo)
		}
	})

	t.Run("Customer", func(t *testing.T) {
		// A customer's module on the oldest Go imports the SDK.
		dir := t.TempDir()
		mod := "module example.com/erp\n\ngo " + oldestGo + "\n\nrequire github.com/sello-do/sello/client v0.0.0\n\nreplace github.com/sello-do/sello/client => " + clientDir + "\n"
		main := "package main\n\nimport \"github.com/sello-do/sello/client\"\n\nfunc main() { _, _ = client.New(\"https://sello.example.com\", \"sk_testecf_x\") }\n"
		for name, data := range map[string]string{"go.mod": mod, "main.go": main} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		goCmd(dir, "build", "-o", os.DevNull, ".")
		if got := strings.Fields(goCmd(dir, "list", "-m", "-f", "{{.Path}}", "all")); strings.Join(got, " ") != "example.com/erp github.com/sello-do/sello/client" {
			t.Fatalf("the customer's go list -m all: %v, want its own module and the SDK", got)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err != nil || !strings.Contains(string(data), "\ngo "+oldestGo+"\n") {
			t.Fatalf("the customer's go.mod after the build:\n%s%v\nwant its go line kept at %s", data, err, oldestGo)
		}
	})
}

// goVersionAtMost reports whether the go version v (1.25, 1.25.3) is at
// most max (1.25).
func goVersionAtMost(v, max string) bool {
	parse := func(s string) (int, int) {
		parts := strings.SplitN(s, ".", 3)
		if len(parts) < 2 {
			return 0, 0
		}
		a, _ := strconv.Atoi(parts[0])
		b, _ := strconv.Atoi(parts[1])
		return a, b
	}
	va, vb := parse(v)
	ma, mb := parse(max)
	return va > 0 && (va < ma || va == ma && vb <= mb)
}
