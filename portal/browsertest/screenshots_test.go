package browsertest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/sello-do/sello/portal/browsertest"
)

// TestScreenshotsLinked: docs/portal.md links every screenshot in
// docs/portal/, and every screenshot it links is there.
func TestScreenshotsLinked(t *testing.T) {
	if os.Getenv(browsertest.UpdateScreenshotsEnv) != "" {
		t.Skip("the screenshots are being written: run the tests again without " + browsertest.UpdateScreenshotsEnv + " to check them")
	}
	dir := browsertest.ScreenshotDir()
	doc, err := os.ReadFile(filepath.Join(dir, "..", "portal.md"))
	if err != nil {
		t.Fatal(err)
	}
	var linked []string
	for _, m := range regexp.MustCompile(`\]\((portal/[^)]+\.png)\)`).FindAllStringSubmatch(string(doc), -1) {
		linked = append(linked, m[1])
		if _, err := os.Stat(filepath.Join(dir, "..", m[1])); err != nil {
			t.Errorf("docs/portal.md links %s: %v", m[1], err)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no screenshots in docs/portal/")
	}
	for _, f := range files {
		if name := "portal/" + filepath.Base(f); !slices.Contains(linked, name) {
			t.Errorf("docs/portal.md does not link %s", name)
		}
	}
}
