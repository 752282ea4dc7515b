package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Page is one browser tab on a Server, in a browser context of its own:
// its cookies are its own, as in a private window. Its methods fail the
// test when the browser cannot do what they ask.
type Page struct {
	Server *Server
	tb     testing.TB
	ctx    context.Context

	mu sync.Mutex
	// problems are the console's errors and the browser's own (a script
	// that threw, a CSP violation, a resource that failed), since the
	// last Problems.
	problems []chromedp.ConsoleMessage
	// documents are the URLs of the documents the tab loaded with an
	// error status (a 403, 404 page): the browser reports each as a
	// resource that failed to load, which is no problem of the page's.
	documents map[string]bool
}

// The locale of every Page: a person in the Dominican Republic.
const (
	Locale         = "es_DO"
	TimeZone       = "America/Santo_Domingo"
	AcceptLanguage = "es-DO,es;q=0.9"
)

// NewPage opens a tab in a new browser context of the shared browser
// (started if need be; the test is skipped without chromium, or fails
// where oracles are required).
func (s *Server) NewPage(tb testing.TB) *Page {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(browser(tb), chromedp.WithNewBrowserContext())
	// The first action on the tab's context opens it for the context's
	// lifetime: no timeout here.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		tb.Fatalf("open a tab: %v", err)
	}
	tb.Cleanup(cancel)
	// A Dominican person's browser: its language, locale (how date
	// fields show) and time zone.
	if err := do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: Locale}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: TimeZone}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": AcceptLanguage}})
		return err
	})); err != nil {
		cancel()
		tb.Fatalf("set the tab's locale: %v", err)
	}
	p := &Page{Server: s, tb: tb, ctx: ctx, documents: map[string]bool{}}
	responses := chromedp.Events(ctx, network.ResponseReceived)
	go func() {
		for ev, err := range responses {
			if err != nil {
				return
			}
			if ev.Type == network.ResourceTypeDocument && ev.Response.Status >= 400 {
				p.mu.Lock()
				p.documents[ev.Response.URL] = true
				p.mu.Unlock()
			}
		}
	}()
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				p.mu.Lock()
				p.problems = append(p.problems, m)
				p.mu.Unlock()
			}
		}
	}()
	return p
}

// Context is the tab's context, for chromedp actions the helpers lack.
func (p *Page) Context() context.Context { return p.ctx }

// Problems returns the console's errors (and the browser's: a failed
// script, a CSP violation, a failed load) since the last call. A document
// the tab loaded with an error status is not one: an error page (404,
// 401, 403) is reported by the browser as a resource that failed to load;
// the test checks the status Go and Submit return.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.problems {
		if m.Source == "network" && p.documents[m.URL] {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s (%s)", m.Type, m.Text, m.URL))
	}
	p.problems = nil
	return out
}

// URL is the server's URL of path (a path, or an absolute URL left as it
// is).
func (p *Page) URL(path string) string {
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		return path
	}
	return p.Server.URL + path
}

// Go opens path (on the server, or an absolute URL) and waits for the page
// to load; it returns the document's HTTP status.
func (p *Page) Go(path string) int {
	p.tb.Helper()
	resp, err := run(p.ctx, chromedp.NavigateResponse(p.URL(path)))
	if err != nil {
		p.tb.Fatalf("open %s: %v", path, err)
	}
	return int(resp.Status)
}

// Path is the path (and query) of the page the tab shows.
func (p *Page) Path() string {
	p.tb.Helper()
	loc, err := run(p.ctx, chromedp.Location())
	if err != nil {
		p.tb.Fatalf("location: %v", err)
	}
	u, err := url.Parse(loc)
	if err != nil {
		p.tb.Fatalf("location %q: %v", loc, err)
	}
	return u.RequestURI()
}

// Fill types value into the field sel selects (a CSS selector), after
// clearing it.
func (p *Page) Fill(sel, value string) {
	p.tb.Helper()
	if err := do(p.ctx, chromedp.Clear(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), value)); err != nil {
		p.tb.Fatalf("fill %s: %v", sel, err)
	}
}

// Select chooses the option of value in the select sel selects.
func (p *Page) Select(sel, value string) {
	p.tb.Helper()
	if err := do(p.ctx, chromedp.SetValue(chromedp.CSS(sel), value)); err != nil {
		p.tb.Fatalf("select %s in %s: %v", value, sel, err)
	}
}

// Upload chooses file (a path on this machine) in the file input sel
// selects.
func (p *Page) Upload(sel, file string) {
	p.tb.Helper()
	if err := do(p.ctx, chromedp.SetUploadFiles(chromedp.CSS(sel), []string{file})); err != nil {
		p.tb.Fatalf("upload %s in %s: %v", file, sel, err)
	}
}

// Tick ticks (on) or unticks the checkbox sel selects, by clicking it if
// it is not as asked.
func (p *Page) Tick(sel string, on bool) {
	p.tb.Helper()
	checked, err := run(p.ctx, chromedp.JavascriptAttribute[bool](chromedp.CSS(sel), "checked"))
	if err != nil {
		p.tb.Fatalf("read %s: %v", sel, err)
	}
	if checked != on {
		p.Click(sel)
	}
}

// Click clicks the element sel selects and returns at once (for a click
// that loads a page, use Submit; for one that htmx answers, Swap).
func (p *Page) Click(sel string) {
	p.tb.Helper()
	if err := do(p.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		p.tb.Fatalf("click %s: %v", sel, err)
	}
}

// Submit clicks the element sel selects (a form's button, a link) and
// waits for the page it loads; it returns the document's HTTP status
// (after redirects).
func (p *Page) Submit(sel string) int {
	p.tb.Helper()
	resp, err := p.submit(sel)
	if err != nil {
		p.tb.Fatalf("submit %s: %v", sel, err)
	}
	return int(resp.Status)
}

func (p *Page) submit(sel string) (*network.Response, error) {
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	return chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// Swap clicks the element sel selects, which htmx answers, and waits until
// htmx has swapped the answer in and settled.
func (p *Page) Swap(sel string) {
	p.tb.Helper()
	p.whileSwapping(func() { p.Click(sel) })
}

// whileSwapping runs f, which starts an htmx request, and waits for htmx to
// settle its answer (or to report an error).
func (p *Page) whileSwapping(f func()) {
	p.tb.Helper()
	const arm = `window.__selloSwap = new Promise((resolve) => {
		const done = (e) => resolve(e.type === 'htmx:afterSettle' ? '' : e.type + ' ' + ((e.detail && e.detail.xhr && e.detail.xhr.status) || ''));
		for (const t of ['htmx:afterSettle', 'htmx:responseError', 'htmx:sendError', 'htmx:swapError']) {
			document.body.addEventListener(t, done, {once: true});
		}
	}); true`
	if _, err := run(p.ctx, chromedp.Evaluate[bool](arm)); err != nil {
		p.tb.Fatalf("watch htmx: %v", err)
	}
	f()
	msg, err := run(p.ctx, chromedp.Evaluate[string](`window.__selloSwap`, chromedp.EvalAwaitPromise))
	if err != nil {
		p.tb.Fatalf("wait for htmx's swap: %v", err)
	} else if msg != "" {
		p.tb.Fatalf("htmx: %s", msg)
	}
}

// SwapUntil waits while htmx refreshes parts of the page by itself (an
// hx-trigger "every …" poll) until an element matches sel, for at most
// timeout. It fails the test if none comes, if htmx reports an error, or
// if sel appears with no swap by htmx (the page changed some other way).
func (p *Page) SwapUntil(sel string, timeout time.Duration) {
	p.tb.Helper()
	const watch = `(() => {
		if (!window.__selloSwaps) {
			window.__selloSwaps = {settled: 0, errors: []};
			document.body.addEventListener('htmx:afterSettle', () => window.__selloSwaps.settled++);
			for (const t of ['htmx:responseError', 'htmx:sendError', 'htmx:swapError']) {
				document.body.addEventListener(t, (e) => window.__selloSwaps.errors.push(t + ' ' + ((e.detail && e.detail.xhr && e.detail.xhr.status) || '')));
			}
		}
		return true;
	})()`
	Eval[bool](p, watch)
	deadline := time.Now().Add(timeout)
	for !p.Has(sel) {
		if errs := Eval[[]string](p, `window.__selloSwaps.errors`); len(errs) > 0 {
			p.tb.Fatalf("htmx, waiting for %s: %v", sel, errs)
		}
		if time.Now().After(deadline) {
			p.tb.Fatalf("%s did not appear within %s (htmx swapped %d times)", sel, timeout, Eval[int](p, `window.__selloSwaps.settled`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A swap that came before the watch above was installed (a loaded
	// machine can take seconds between a page's load and this call) left
	// no count, but its request is in the page's resource timing, which a
	// navigation would have emptied: htmx requests by XMLHttpRequest.
	if Eval[int](p, `window.__selloSwaps.settled + performance.getEntriesByType('resource').filter(e => e.initiatorType === 'xmlhttprequest').length`) == 0 {
		p.tb.Fatalf("%s appeared without a swap by htmx", sel)
	}
}

// Text is the visible text of the first element sel selects, trimmed.
//
// The query finds the element's node, then reads its text: a document
// replaced in between (a navigation still settling, a swap) leaves the
// node's id stale, and Chrome answers "No node with given id found". The
// query then runs again on the new document, a few times at most.
func (p *Page) Text(sel string) string {
	p.tb.Helper()
	for attempt := 1; ; attempt++ {
		s, err := run(p.ctx, chromedp.Text(chromedp.CSS(sel)))
		if err == nil {
			return strings.TrimSpace(s)
		}
		if attempt == 3 || !strings.Contains(err.Error(), "No node with given id found") {
			p.tb.Fatalf("text of %s: %v", sel, err)
		}
	}
}

// Texts are the visible texts of every element sel selects (none is not
// an error), trimmed.
func (p *Page) Texts(sel string) []string {
	p.tb.Helper()
	js := fmt.Sprintf(`Array.from(document.querySelectorAll(%q), (e) => e.innerText.trim())`, sel)
	v, err := run(p.ctx, chromedp.Evaluate[[]string](js))
	if err != nil {
		p.tb.Fatalf("texts of %s: %v", sel, err)
	}
	return v
}

// Value is the value of the field sel selects.
func (p *Page) Value(sel string) string {
	p.tb.Helper()
	v, err := run(p.ctx, chromedp.Value(chromedp.CSS(sel)))
	if err != nil {
		p.tb.Fatalf("value of %s: %v", sel, err)
	}
	return v
}

// Attr is the attribute name of the first element sel selects ("" when it
// has none).
func (p *Page) Attr(sel, name string) string {
	p.tb.Helper()
	v, err := run(p.ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
	if err != nil {
		p.tb.Fatalf("attribute %s of %s: %v", name, sel, err)
	}
	return v.Value
}

// Has reports whether an element matches sel now (it does not wait).
func (p *Page) Has(sel string) bool {
	p.tb.Helper()
	v, err := run(p.ctx, chromedp.Evaluate[bool](fmt.Sprintf(`document.querySelector(%q) !== null`, sel)))
	if err != nil {
		p.tb.Fatalf("look for %s: %v", sel, err)
	}
	return v
}

// WaitFor waits until an element matches sel and is visible.
func (p *Page) WaitFor(sel string) {
	p.tb.Helper()
	if err := do(p.ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		p.tb.Fatalf("wait for %s: %v", sel, err)
	}
}

// Body is the page's visible text.
func (p *Page) Body() string {
	p.tb.Helper()
	return p.Text("body")
}

// WantText fails the test unless the page's visible text has each of
// texts.
func (p *Page) WantText(texts ...string) {
	p.tb.Helper()
	body := p.Body()
	for _, t := range texts {
		if !strings.Contains(body, t) {
			p.tb.Errorf("%s does not say %q; it says:\n%s", p.Path(), t, body)
		}
	}
}

// Eval evaluates a JavaScript expression in the page and returns its value.
func Eval[T any](p *Page, expr string) T {
	p.tb.Helper()
	v, err := run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Cookies are the tab's cookies for the server, by name.
func (p *Page) Cookies() map[string]*network.Cookie {
	p.tb.Helper()
	res, err := run(p.ctx, func(ctx context.Context, t *chromedp.Target) (network.GetCookiesResult, error) {
		return chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{p.Server.URL + "/"}})
	})
	if err != nil {
		p.tb.Fatalf("cookies: %v", err)
	}
	out := map[string]*network.Cookie{}
	for _, c := range res.Cookies {
		out[c.Name] = c
	}
	return out
}

// Login signs in with email and Password from the login page and waits
// for the page it leads to (the home page, or the second factor's).
func (p *Page) Login(email string) {
	p.tb.Helper()
	p.Go("/portal/entrar")
	p.Fill(`input[name="email"]`, email)
	p.Fill(`input[name="password"]`, Password)
	if status := p.Submit(`form[action="/portal/entrar"] button[type="submit"]`); status != 200 {
		p.tb.Fatalf("login of %s: status %d: %s", email, status, p.Body())
	}
	if p.Path() == "/portal/entrar" {
		p.tb.Fatalf("login of %s refused: %s", email, p.Body())
	}
}

// Facts are the terms and descriptions of the first definition list
// (dl) in the element sel selects, by term, as the page shows them.
func (p *Page) Facts(sel string) map[string]string {
	p.tb.Helper()
	js := fmt.Sprintf(`(() => {
		const out = {};
		const root = document.querySelector(%q);
		const dl = root && (root.matches('dl') ? root : root.querySelector('dl'));
		if (!dl) return JSON.stringify(null);
		for (const dt of dl.querySelectorAll('dt')) {
			const dd = dt.nextElementSibling;
			if (dd && dd.tagName === 'DD') out[dt.innerText.trim()] = dd.innerText.trim();
		}
		return JSON.stringify(out);
	})()`, sel)
	var out map[string]string
	if err := json.Unmarshal([]byte(Eval[string](p, js)), &out); err != nil {
		p.tb.Fatalf("facts of %s: %v", sel, err)
	} else if out == nil {
		p.tb.Fatalf("no definition list in %s", sel)
	}
	return out
}
