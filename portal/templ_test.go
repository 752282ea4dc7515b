package portal

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplGenerated: the committed *_templ.go files are what the pinned
// templ (go.mod's tool) generates from the .templ files: run make generate
// after editing a template.
func TestTemplGenerated(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	for _, f := range files {
		cmd := exec.Command("go", "tool", "templ", "generate", "-f", f, "-stdout")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("templ generate -f %s: %v: %s", f, err, stderr.Bytes())
		}
		gen := strings.TrimSuffix(f, ".templ") + "_templ.go"
		got, err := os.ReadFile(gen)
		if err != nil {
			t.Fatal(err)
		}
		// templ prints nothing when the file holds what it would write.
		if len(want) > 0 && !bytes.Equal(got, want) {
			t.Errorf("%s is not what templ generates from %s: run make generate", gen, f)
		}
	}
}

// TestHTMXVendored: the embedded htmx is the version HTMXVersion names
// (make vendor-htmx fetches it from npm).
func TestHTMXVendored(t *testing.T) {
	b, err := os.ReadFile("static/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if want := `version:"` + HTMXVersion + `"`; !bytes.Contains(b, []byte(want)) {
		t.Errorf("static/htmx.min.js is not htmx %s", HTMXVersion)
	}
}
