package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/sello-do/sello/oracle"
)

// UpdateScreenshotsEnv names the variable that makes Look write the
// screenshots of docs/portal/ (SELLO_UPDATE_SCREENSHOTS=1). Without it Look
// writes nothing, so that running the tests leaves the work tree as it was;
// it checks that each page it looks at has its screenshots committed.
const UpdateScreenshotsEnv = "SELLO_UPDATE_SCREENSHOTS"

// Viewport is a size the pages are looked at in, CSS pixels at a device
// scale of 1 (the screenshots are this size).
type Viewport struct {
	Name          string
	Width, Height int64
	Mobile        bool
}

// Viewports are the sizes of the screenshots: a laptop's window and a
// phone's screen (an iPhone 12–15's, in CSS pixels).
var Viewports = []Viewport{
	{Name: "desktop", Width: 1280, Height: 800},
	{Name: "phone", Width: 390, Height: 844, Mobile: true},
}

// emulate makes the tab's viewport v.
func (v Viewport) emulate() chromedp.Action[chromedp.Void] {
	if v.Mobile {
		return chromedp.EmulateViewport(v.Width, v.Height, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	return chromedp.EmulateViewport(v.Width, v.Height)
}

// ScreenshotDir is docs/portal/ in the work tree.
func ScreenshotDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "docs", "portal")
}

// ScreenshotFile is the file of page name's screenshot in viewport v,
// relative to docs/: portal/NAME-VIEWPORT.png.
func ScreenshotFile(name string, v Viewport) string {
	return "portal/" + name + "-" + v.Name + ".png"
}

// MaxPageWeight bounds a page with its assets, as sent (compressed where
// the server compresses): the portal's pages must stay light on a phone's
// connection.
const MaxPageWeight = 200 << 10

// Look checks the page the tab shows, named name (a file name: lower case
// and dashes), in each of Viewports: axe-core finds no serious or critical
// accessibility violation, the browser's console holds no error (a script
// that threw, a CSP violation, a resource that failed to load), and the
// page with its assets weighs at most MaxPageWeight. With
// SELLO_UPDATE_SCREENSHOTS=1 it writes the page's screenshots to
// docs/portal/; without, it checks they are there. The tab is left at the
// first viewport.
func (p *Page) Look(name string) {
	p.tb.Helper()
	path := p.Path()
	for _, v := range Viewports {
		if err := do(p.ctx, v.emulate()); err != nil {
			p.tb.Fatalf("%s: viewport %s: %v", name, v.Name, err)
		}
		for _, viol := range p.Violations() {
			p.tb.Errorf("page %s (%s) at %dx%d: axe-core %s violation %q: %s (%s)\n%s",
				name, path, v.Width, v.Height, viol.Impact, viol.ID, viol.Help, viol.HelpURL, viol.nodes())
		}
		file := filepath.Join(ScreenshotDir(), filepath.Base(ScreenshotFile(name, v)))
		if os.Getenv(UpdateScreenshotsEnv) != "" {
			shot, err := run(p.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				p.tb.Fatalf("%s: screenshot: %v", name, err)
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				p.tb.Fatal(err)
			}
			if err := os.WriteFile(file, shot, 0o644); err != nil {
				p.tb.Fatal(err)
			}
		} else if err := checkScreenshot(file, v); err != nil {
			p.tb.Errorf("page %s: %v (run the test with %s=1 to write it)", name, err, UpdateScreenshotsEnv)
		}
	}
	if err := do(p.ctx, Viewports[0].emulate()); err != nil {
		p.tb.Fatal(err)
	}
	w := p.Weight()
	p.tb.Logf("page %s (%s): %s", name, path, w)
	if w.Total() > MaxPageWeight {
		p.tb.Errorf("page %s (%s) weighs %d bytes with its assets, over %d: %s", name, path, w.Total(), MaxPageWeight, w)
	}
	for _, m := range p.Problems() {
		p.tb.Errorf("page %s (%s): the browser's console: %s", name, path, m)
	}
}

// Weight is what a page cost the browser, from its Resource Timing: the
// document and each asset as sent (their encoded bodies: gzipped where
// the server gzips), and the time from the document's request to its
// first byte (on loopback: the server's time).
type Weight struct {
	HTML      int64            `json:"html"`
	Assets    map[string]int64 `json:"assets"`
	FirstByte float64          `json:"firstByte"` // milliseconds
}

// Total is the document and its assets, in bytes as sent.
func (w Weight) Total() int64 {
	n := w.HTML
	for _, a := range w.Assets {
		n += a
	}
	return n
}

func (w Weight) String() string {
	var assets int64
	for _, a := range w.Assets {
		assets += a
	}
	return fmt.Sprintf("%d bytes sent (HTML %d, %d assets %d), first byte after %.1f ms", w.Total(), w.HTML, len(w.Assets), assets, w.FirstByte)
}

// weightJS reads the Resource Timing of the document and of every asset
// it loaded. An asset the browser had cached still counts, at the size it
// was sent: the weight is a first visit's.
const weightJS = `(() => {
	const nav = performance.getEntriesByType('navigation')[0];
	const assets = {};
	for (const r of performance.getEntriesByType('resource')) {
		const u = new URL(r.name);
		if (u.origin === location.origin) assets[u.pathname] = r.encodedBodySize;
	}
	return JSON.stringify({html: nav.encodedBodySize, assets, firstByte: nav.responseStart - nav.requestStart});
})()`

// Weight measures the page the tab shows.
func (p *Page) Weight() Weight {
	p.tb.Helper()
	var w Weight
	if err := json.Unmarshal([]byte(Eval[string](p, weightJS)), &w); err != nil {
		p.tb.Fatalf("the page's weight: %v", err)
	}
	return w
}

// checkScreenshot reports whether file is a PNG of the viewport's size.
func checkScreenshot(file string, v Viewport) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("no screenshot: %w", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s is not a PNG: %w", file, err)
	}
	if int64(cfg.Width) != v.Width || int64(cfg.Height) != v.Height {
		return fmt.Errorf("%s is %dx%d, not %dx%d", file, cfg.Width, cfg.Height, v.Width, v.Height)
	}
	return nil
}

// AxeViolation is one rule axe-core found broken, with the nodes that
// break it.
type AxeViolation struct {
	ID      string `json:"id"`
	Impact  string `json:"impact"`
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
	Nodes   []struct {
		Target         []any  `json:"target"`
		HTML           string `json:"html"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

func (v AxeViolation) nodes() string {
	var b strings.Builder
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "  node %v: %s\n    %s\n", n.Target, n.HTML, strings.ReplaceAll(n.FailureSummary, "\n", "\n    "))
	}
	return b.String()
}

// axeRun runs axe-core on the document (its default rules: WCAG 2.0, 2.1
// and 2.2 at levels A and AA, and its best practices) and keeps the
// serious and critical violations.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then((r) =>
	JSON.stringify(r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')))`

// Violations are the serious and critical violations axe-core finds in
// the page the tab shows (axe-core is injected first, unless it is there).
func (p *Page) Violations() []AxeViolation {
	p.tb.Helper()
	source := axeSource(p.tb)
	if !Eval[bool](p, `typeof axe === 'object'`) {
		if _, err := run(p.ctx, chromedp.Evaluate[bool](source+"\n;true")); err != nil {
			p.tb.Fatalf("inject axe-core: %v", err)
		}
	}
	out, err := run(p.ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		p.tb.Fatalf("run axe-core: %v", err)
	}
	var vs []AxeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		p.tb.Fatalf("axe-core's answer: %v: %s", err, out)
	}
	return vs
}

// axeJS caches axe.min.js, from the npm package tools/package.json pins.
var axeJS struct {
	sync.Mutex
	src string
}

// axeSource returns axe-core's script (see oracle.NodeModules: installed
// from tools/package-lock.json into the user's cache on first use; the
// test is skipped, or fails where oracles are required, without npm).
func axeSource(tb testing.TB) string {
	tb.Helper()
	axeJS.Lock()
	defer axeJS.Unlock()
	if axeJS.src == "" {
		b, err := os.ReadFile(filepath.Join(oracle.NodeModules(tb, "axe-core"), "axe-core", "axe.min.js"))
		if err != nil {
			tb.Fatal(err)
		}
		axeJS.src = string(b)
	}
	return axeJS.src
}
