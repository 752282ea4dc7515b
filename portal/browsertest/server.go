package browsertest

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/api"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite/sqlitetest"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
)

// Password is every user's password on a Server (it passes the policy).
const Password = "caoba verde sobre el malecón"

// Server is a sello server in the test's process, as `sello serve` wires
// it: the API and the portal on one loopback listener (the portal's
// requests by portal.Owns, the rest the API's), and the job runner with
// the lifecycle's worker, which delivers webhooks (to loopback receivers:
// the tenant's TesteCF and CerteCF endpoints may reach them, as with
// --allow-loopback-webhooks). It stops at the end of the test.
type Server struct {
	// URL is the server's address, http://127.0.0.1:PORT, no slash.
	URL    string
	Store  sello.Store
	Tenant *sello.Tenant
	// Clock is the clock of the API, the portal and the worker.
	Clock *Clock
	// Mail keeps what the portal mails (reset links).
	Mail *MailBox

	tb   testing.TB
	logs *syncBuffer
}

// Options change a Server.
type Options struct {
	// PostgreSQL runs the server on a fresh schema of the database
	// SELLO_TEST_DATABASE_URL names (the test is skipped without it, or
	// fails where SELLO_REQUIRE_POSTGRES is set); SQLite otherwise.
	PostgreSQL bool
	// WebhookDelay is the wait between two attempts of a webhook delivery
	// (default 20 ms, so that a delivery to a failing receiver fails, its
	// attempts spent, within a second or two).
	WebhookDelay time.Duration
	// Portal, when set, changes the portal before it serves.
	Portal func(*portal.Server)
	// Seed, when set, fills the store (its Store and Tenant are set)
	// before the job runner starts: documents it leaves in a final state
	// stay as they are, since the worker finds nothing to do for them.
	Seed func(tb testing.TB, s *Server)
	// DGIIURL is the base URL of a DGII simulator (dgiisim) the worker
	// talks to; without one, nothing reaches DGII.
	DGIIURL string
}

// Clock is the server's clock: the wall clock plus an offset the test
// moves on (so that the job runner, which waits in real time, still sees
// time pass).
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the wall clock's time plus the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
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

// StartServer starts a server with one tenant, "Ferretería Caribe SRL"
// (RNC 130000001), and no users.
func StartServer(tb testing.TB, opts ...Options) *Server {
	tb.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.WebhookDelay == 0 {
		o.WebhookDelay = 20 * time.Millisecond
	}
	ctx := context.Background()
	s := &Server{Clock: &Clock{}, Mail: &MailBox{}, tb: tb, logs: &syncBuffer{}}
	var newRunner func(*worker.Worker, jobs.Config) (jobs.Runner, error)
	var limiter sello.RateLimiter
	if o.PostgreSQL {
		db, err := postgres.Open(ctx, pgtest.MustSchema(tb))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { db.Close() })
		s.Store, limiter = db, postgres.NewRateLimiter(db)
		newRunner = func(w *worker.Worker, c jobs.Config) (jobs.Runner, error) { return db.NewJobRunner(w.Workers(), c) }
	} else {
		db := sqlitetest.MustOpen(tb)
		s.Store, limiter = db, sello.NewMemoryRateLimiter()
		newRunner = func(w *worker.Worker, c jobs.Config) (jobs.Runner, error) { return db.NewJobRunner(w.Workers(), c) }
	}
	s.Tenant = &sello.Tenant{RNC: "130000001", Name: "Ferretería Caribe SRL", Plan: sello.DefaultRatePlan}
	if err := s.Store.CreateTenant(ctx, s.Tenant); err != nil {
		tb.Fatal(err)
	}
	if o.Seed != nil {
		o.Seed(tb, s)
	}
	if ml, ok := limiter.(*sello.MemoryRateLimiter); ok {
		ml.Now = s.Clock.Now
	}
	mk, err := sello.NewMasterKey(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))

	wk := worker.New(worker.Config{
		Store:     s.Store,
		DGII:      dgii.New(dgii.Config{URLs: dgii.URLs{ECF: o.DGIIURL, FC: o.DGIIURL}, HTTPClient: &http.Client{Timeout: time.Second}, Retries: -1}),
		MasterKey: mk,
		Logger:    logger.With("component", "worker"),
		Now:       s.Clock.Now,
		Webhooks:  webhook.Options{AllowLoopback: true},
		Version:   "browsertest",
		WebhookDelay: func(n int, _ *webhook.Attempt) (time.Duration, bool) {
			return o.WebhookDelay, n < sello.MaxWebhookAttempts
		},
	})
	runner, err := newRunner(wk, jobs.Config{Workers: 4, Logger: logger.With("component", "jobs")})
	if err != nil {
		tb.Fatal(err)
	}
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		tb.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s.URL = "http://" + ln.Addr().String()
	u, _ := url.Parse(s.URL)
	apiServer := &api.Server{Store: s.Store, RateLimiter: limiter, MasterKey: mk, Logger: logger.With("component", "api"), Now: s.Clock.Now}
	ps := &portal.Server{
		Store:           s.Store,
		RateLimiter:     limiter,
		MasterKey:       mk,
		Mailer:          s.Mail,
		URL:             u,
		InsecureCookies: true, // plain HTTP on loopback, as the demo
		// The tests' webhook receivers are on this machine, where the
		// worker delivers (webhook.Options.AllowLoopback above).
		AllowLoopbackWebhooks: true,
		Logger:                logger.With("component", "portal"),
		Now:                   s.Clock.Now,
	}
	if o.Portal != nil {
		o.Portal(ps)
	}
	apiHandler, portalHandler := apiServer.Handler(), ps.Handler()
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if portal.Owns(r) {
			portalHandler.ServeHTTP(w, r)
			return
		}
		apiHandler.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)

	tb.Cleanup(func() {
		hs.Close()
		wk.Drain()
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := runner.StopAndCancel(stopCtx); err != nil {
			tb.Errorf("stop the job runner: %v", err)
		}
		wk.Close()
		if tb.Failed() {
			tb.Logf("the server's log:\n%s", s.logs.String())
		}
	})
	return s
}

// User creates a user with Password and gives it role in the server's
// tenant.
func (s *Server) User(tb testing.TB, email string, role sello.Role) *sello.User {
	tb.Helper()
	return s.UserIn(tb, email, role, s.Tenant)
}

// UserIn creates a user with Password (or finds it) and gives it role in
// tenant.
func (s *Server) UserIn(tb testing.TB, email string, role sello.Role, tenant *sello.Tenant) *sello.User {
	tb.Helper()
	ctx := context.Background()
	u, err := s.Store.FindUserByEmail(ctx, email)
	if sello.ErrorCodeOf(err) == sello.CodeNotFound {
		hash, err := sello.HashPassword(Password)
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

// OtherTenant creates another tenant, "Colmado Oriental SRL" (RNC 130000002).
func (s *Server) OtherTenant(tb testing.TB) *sello.Tenant {
	tb.Helper()
	t := &sello.Tenant{RNC: "130000002", Name: "Colmado Oriental SRL", Plan: sello.DefaultRatePlan}
	if err := s.Store.CreateTenant(context.Background(), t); err != nil {
		tb.Fatal(err)
	}
	return t
}

// Logs is what the server logged so far.
func (s *Server) Logs() string { return s.logs.String() }

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// API sends a request to the server's API with key in X-API-KEY (none when
// ""), as an integration would, and returns the status and body.
func (s *Server) API(tb testing.TB, key, method, path string, body io.Reader) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		tb.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
