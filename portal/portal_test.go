package portal_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/sqlite"
)

// The helpers of the portal's tests: a portal on a real SQLite store over
// real HTTP (MustSite), with a clock the tests move; people in it
// (MustUser); browsers with their own cookie jars (Browser) that log in
// (MustLogin), read pages and post forms with the page's CSRF token.

// testPassword is every test user's password (it passes the policy).
const testPassword = "caoba verde sobre el malecón"

// Site is a portal served on loopback, its store, clock and mail.
type Site struct {
	Store  sello.Store
	Server *portal.Server
	HTTP   *httptest.Server
	Tenant *sello.Tenant
	Clock  *Clock
	Mail   *MailBox
	Logs   *bytes.Buffer
}

// Clock is a settable clock, starting at the wall clock's now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// MailBox is a portal.Mailer that keeps what it is given.
type MailBox struct {
	mu    sync.Mutex
	mails []portal.Mail
}

// Send implements portal.Mailer.
func (m *MailBox) Send(_ context.Context, mail portal.Mail) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mails = append(m.mails, mail)
	return nil
}

// Mails returns what was sent.
func (m *MailBox) Mails() []portal.Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]portal.Mail(nil), m.mails...)
}

// MustSite starts a portal on a new SQLite store with one tenant. edit,
// if given, changes the server before it serves.
func MustSite(tb testing.TB, edit ...func(*portal.Server)) *Site {
	tb.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "sello.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return MustSiteOn(tb, db, edit...)
}

// MustSiteOn starts a portal on db, a new store, with one tenant.
func MustSiteOn(tb testing.TB, db sello.Store, edit ...func(*portal.Server)) *Site {
	tb.Helper()
	ctx := context.Background()
	tenant := &sello.Tenant{RNC: "130000001", Name: "Ferretería Caribe SRL", Plan: sello.DefaultRatePlan}
	if err := db.CreateTenant(ctx, tenant); err != nil {
		tb.Fatal(err)
	}
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	site := &Site{Store: db, Tenant: tenant, Clock: &Clock{now: time.Now()}, Mail: &MailBox{}, Logs: &bytes.Buffer{}}
	site.HTTP = httptest.NewUnstartedServer(nil)
	u, _ := url.Parse("http://" + site.HTTP.Listener.Addr().String())
	limiter := sello.NewMemoryRateLimiter()
	limiter.Now = site.Clock.Now
	site.Server = &portal.Server{
		Store:       db,
		RateLimiter: limiter,
		MasterKey:   mk,
		Mailer:      site.Mail,
		URL:         u,
		Logger:      slog.New(slog.NewTextHandler(site.Logs, nil)),
		Now:         site.Clock.Now,
	}
	for _, f := range edit {
		f(site.Server)
	}
	site.HTTP.Config.Handler = site.Server.Handler()
	site.HTTP.Start()
	tb.Cleanup(site.HTTP.Close)
	return site
}

// MustUser creates a user with testPassword and role in the site's tenant.
func (s *Site) MustUser(tb testing.TB, email string, role sello.Role) *sello.User {
	tb.Helper()
	return s.MustUserIn(tb, email, role, s.Tenant)
}

// MustUserIn creates a user with testPassword (or finds it) and gives it
// role in tenant.
func (s *Site) MustUserIn(tb testing.TB, email string, role sello.Role, tenant *sello.Tenant) *sello.User {
	tb.Helper()
	ctx := context.Background()
	u, err := s.Store.FindUserByEmail(ctx, email)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		hash, err := sello.HashPassword(testPassword)
		if err != nil {
			tb.Fatal(err)
		}
		u = &sello.User{Email: email, PasswordHash: hash, Language: "es"}
		if err := s.Store.CreateUser(ctx, u); err != nil {
			tb.Fatal(err)
		}
	} else if err != nil {
		tb.Fatal(err)
	}
	if err := s.Store.PutMembership(ctx, &sello.Membership{TenantID: tenant.ID, UserID: u.ID, Role: role}); err != nil {
		tb.Fatal(err)
	}
	return u
}

// Browser is one browser: a cookie jar, redirects not followed (the tests
// read each answer), Sec-Fetch-Site and Origin sent as a browser sends
// them for the portal's own pages.
type Browser struct {
	tb     testing.TB
	site   *Site
	Client *http.Client
	// Headers are added to every request (e.g. Accept-Language).
	Headers http.Header
}

// NewBrowser returns a browser with an empty jar.
func (s *Site) NewBrowser(tb testing.TB) *Browser {
	jar, _ := cookiejar.New(nil)
	return &Browser{tb: tb, site: s, Headers: http.Header{}, Client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Page is one answer, its body read.
type Page struct {
	*http.Response
	Body string
}

// Get requests path.
func (b *Browser) Get(path string) *Page {
	b.tb.Helper()
	return b.Do("GET", path, nil, nil)
}

// Post posts form to path as the portal's own page would (same origin).
func (b *Browser) Post(path string, form url.Values) *Page {
	b.tb.Helper()
	h := http.Header{"Origin": {b.site.HTTP.URL}, "Sec-Fetch-Site": {"same-origin"}}
	return b.Do("POST", path, form, h)
}

// Do sends one request.
func (b *Browser) Do(method, path string, form url.Values, header http.Header) *Page {
	b.tb.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.site.HTTP.URL+path, body)
	if err != nil {
		b.tb.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.Headers {
		req.Header[k] = v
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := b.Client.Do(req)
	if err != nil {
		b.tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.tb.Fatal(err)
	}
	return &Page{Response: resp, Body: string(raw)}
}

// Cookie is the value of the browser's session cookie ("" for none).
func (b *Browser) Cookie() string {
	u, _ := url.Parse(b.site.HTTP.URL)
	for _, c := range b.Client.Jar.Cookies(u) {
		if c.Name == sello.SessionCookie || c.Name == sello.HostSessionCookie {
			return c.Value
		}
	}
	return ""
}

// SetCookie puts a session cookie in the browser's jar.
func (b *Browser) SetCookie(value string) {
	u, _ := url.Parse(b.site.HTTP.URL)
	b.Client.Jar.SetCookies(u, []*http.Cookie{{Name: sello.SessionCookie, Value: value, Path: "/"}})
}

// MustLogin logs the browser in with email and testPassword (past the
// login form; a user with a second factor still has it to pass).
func (b *Browser) MustLogin(email string) *Page {
	b.tb.Helper()
	p := b.Post("/portal/entrar", url.Values{"email": {email}, "password": {testPassword}})
	if p.StatusCode != http.StatusSeeOther {
		b.tb.Fatalf("login of %s: %d %s", email, p.StatusCode, p.Body)
	}
	return p
}

// Form posts form to path with the CSRF token of the page at from.
func (b *Browser) Form(from, path string, form url.Values) *Page {
	b.tb.Helper()
	page := b.Get(from)
	if page.StatusCode != http.StatusOK {
		b.tb.Fatalf("GET %s: %d %s", from, page.StatusCode, page.Body)
	}
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", page.CSRF(b.tb))
	return b.Post(path, form)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF is the CSRF token of the page's forms.
func (p *Page) CSRF(tb testing.TB) string {
	tb.Helper()
	m := csrfInput.FindStringSubmatch(p.Body)
	if m == nil {
		tb.Fatalf("no CSRF token on the page: %s", p.Body)
	}
	return html.UnescapeString(m[1])
}

// Location is the answer's redirect target.
func (p *Page) Location() string { return p.Header.Get("Location") }

// wantStatus fails unless the page has status.
func wantStatus(tb testing.TB, p *Page, status int) {
	tb.Helper()
	if p.StatusCode != status {
		tb.Fatalf("%s %s: status %d, want %d: %s", p.Request.Method, p.Request.URL.Path, p.StatusCode, status, p.Body)
	}
}

// wantRedirect fails unless the page is a 303 to a target starting with
// prefix.
func wantRedirect(tb testing.TB, p *Page, prefix string) {
	tb.Helper()
	if p.StatusCode != http.StatusSeeOther || !strings.HasPrefix(p.Location(), prefix) {
		tb.Fatalf("%s %s: %d to %q, want 303 to %s…: %s", p.Request.Method, p.Request.URL.Path, p.StatusCode, p.Location(), prefix, p.Body)
	}
}

// wantText fails unless the page says each of texts (HTML-unescaped).
func wantText(tb testing.TB, p *Page, texts ...string) {
	tb.Helper()
	body := html.UnescapeString(p.Body)
	for _, t := range texts {
		if !strings.Contains(body, t) {
			tb.Errorf("%s %s does not say %q: %s", p.Request.Method, p.Request.URL.Path, t, body)
		}
	}
}
