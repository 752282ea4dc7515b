package browsertest

import (
	"context"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// GrantClipboard lets the page's scripts read and write the clipboard
// without asking, as a person who allowed it would (a copy button works;
// Clipboard reads what it copied).
func GrantClipboard(tb testing.TB, p *Page) {
	tb.Helper()
	bc := chromedp.FromContext(p.ctx).BrowserContextID
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := run(p.ctx, func(ctx context.Context, t *chromedp.Target) (cdp.Empty, error) {
			return chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission:       &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
				Setting:          cdpbrowser.PermissionSettingGranted,
				Origin:           p.Server.URL,
				BrowserContextID: bc,
			})
		})
		if err != nil {
			tb.Fatalf("grant %s: %v", name, err)
		}
	}
}

// Clipboard is the clipboard's text, read by the page (GrantClipboard
// first). The tab is brought to the front: only a focused page may read.
func Clipboard(tb testing.TB, p *Page) string {
	tb.Helper()
	if err := do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.BringToFront, cdp.Empty{})
		return err
	})); err != nil {
		tb.Fatalf("bring the tab to the front: %v", err)
	}
	v, err := run(p.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("read the clipboard: %v", err)
	}
	return v
}
