package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/sello-do/sello/oracle"
)

// The one browser of a test binary: Debian's chromium, headless, started
// at the first test that needs it and closed by Main after the last.
// Each Page is a tab in a browser context of its own (its own cookies,
// like a private window), so tests do not see each other's sessions.
var shared struct {
	mu     sync.Mutex
	ctx    context.Context // the browser's first tab; its parent owns the process
	cancel context.CancelFunc
	err    error
}

// chromiumFlags are the browser's flags beyond chromedp's defaults
// (headless, no first run, …): no sandbox (tests may run as root, as CI
// does), and nothing that reaches the network by itself.
var chromiumFlags = []chromedp.ExecAllocatorOption{
	chromedp.NoSandbox,
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("no-pings", true),
	chromedp.Flag("lang", "es-DO"),
	chromedp.Flag("font-render-hinting", "none"),
	chromedp.Flag("hide-scrollbars", true),
	chromedp.WindowSize(1280, 800),
}

// Main runs the tests of a test binary and then closes its browser; call
// it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	if shared.cancel != nil {
		shared.cancel()
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// browser returns the context of the shared browser, starting it if it is
// not running. Without chromium it skips the test, or fails it where
// oracles are required (CI, SELLO_REQUIRE_ORACLES).
func browser(tb testing.TB) context.Context {
	tb.Helper()
	path := oracle.Require(tb, "chromium")
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil && shared.ctx.Err() == nil {
		return shared.ctx
	}
	start := time.Now()
	opts := append([]chromedp.ExecAllocatorOption{chromedp.ExecPath(path)}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromiumFlags...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	// The first action on a context starts what it needs (the browser, a
	// tab) for the context's lifetime: no timeout here.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		tb.Fatalf("start chromium (%s): %v", path, err)
	}
	shared.ctx = ctx
	shared.cancel = func() { cancelCtx(); cancelAlloc() }
	tb.Logf("chromium started in %s", time.Since(start).Round(time.Millisecond))
	return ctx
}

// actionTimeout bounds one step of a page (a navigation, a wait): a page
// that does not come fails the test in seconds, not at go test's timeout.
const actionTimeout = 15 * time.Second

// do runs steps on the page's tab within actionTimeout.
func do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	err := chromedp.Do(ctx, steps...)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("not done within %s: %w", actionTimeout, err)
	}
	return err
}

// run runs one action that returns a value, within actionTimeout.
func run[T any](ctx context.Context, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if errors.Is(err, context.DeadlineExceeded) {
		return v, fmt.Errorf("not done within %s: %w", actionTimeout, err)
	}
	return v, err
}
