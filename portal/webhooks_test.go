package portal_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/jobs"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/portal"
	"github.com/sello-do/sello/postgres"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/sqlite"
	"github.com/sello-do/sello/webhook"
	"github.com/sello-do/sello/worker"
)

// The Webhooks pages' tests: a portal whose store's job runner runs the
// worker's deliveries, as sello serve does, to a receiver on loopback (the
// loopback allowance of tests and demos, on in the portal and the
// worker); people who add endpoints, read what their receiver answered,
// replay what failed, rotate, pause and delete, each as their role allows.

// hookPath is the TesteCF Webhooks pages' root.
const hookPath = "/portal/TesteCF/webhooks"

// jobStore is a store that runs jobs (both engines).
type jobStore interface {
	NewJobRunner(workers *river.Workers, cfg jobs.Config) (jobs.Runner, error)
}

// MustHookSite is a portal on db that accepts loopback endpoints, with a
// worker delivering its webhooks (retries 10 ms apart, on the real
// schedule's terms: 8 attempts at most).
func MustHookSite(tb testing.TB, db sello.Store) *Site {
	tb.Helper()
	site := MustSiteOn(tb, db, func(s *portal.Server) { s.AllowLoopbackWebhooks = true })
	w := worker.New(worker.Config{
		Store:     db,
		MasterKey: site.Server.MasterKey,
		Webhooks:  webhook.Options{AllowLoopback: true},
		WebhookDelay: func(n int, a *webhook.Attempt) (time.Duration, bool) {
			if _, ok := webhook.RetryDelay(n, a, nil); !ok {
				return 0, false
			}
			return 10 * time.Millisecond, true
		},
	})
	tb.Cleanup(w.Close)
	runner, err := db.(jobStore).NewJobRunner(w.Workers(), jobs.Config{Workers: 2})
	if err != nil {
		tb.Fatal(err)
	}
	if err := runner.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := runner.Stop(ctx); err != nil {
			tb.Errorf("stop runner: %v", err)
		}
	})
	return site
}

// Receiver is a webhook receiver on loopback that keeps what it gets and
// answers 200, or 500 while failing.
type Receiver struct {
	*httptest.Server
	mu      sync.Mutex
	failing bool
	got     []Received
}

// Received is one request the receiver got.
type Received struct {
	Header http.Header
	Body   []byte
}

// MustReceiver starts a receiver.
func MustReceiver(tb testing.TB) *Receiver {
	rc := &Receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, Received{Header: r.Header.Clone(), Body: body})
		failing := rc.failing
		rc.mu.Unlock()
		if failing {
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok, stored")
	}))
	tb.Cleanup(rc.Close)
	return rc
}

// Fail makes the receiver answer 500 (true) or 200.
func (rc *Receiver) Fail(failing bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.failing = failing
}

// Got returns what the receiver got.
func (rc *Receiver) Got() []Received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Received(nil), rc.got...)
}

// WaitN waits until the receiver has got n requests and returns them.
func (rc *Receiver) WaitN(tb testing.TB, n int) []Received {
	tb.Helper()
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool { return len(rc.Got()) >= n }) {
		tb.Fatalf("the receiver got %d requests in 20 s, want %d", len(rc.Got()), n)
	}
	return rc.Got()
}

// signatures reads a Sello-Signature header: its t and every v1.
func signatures(tb testing.TB, header string) (string, []string) {
	tb.Helper()
	var t string
	var v1 []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			t = v
		case "v1":
			v1 = append(v1, v)
		}
	}
	if t == "" || len(v1) == 0 {
		tb.Fatalf("Sello-Signature %q: want t and v1", header)
	}
	return t, v1
}

// verifies reports whether secret verifies the request's signature as
// docs/webhooks.md tells receivers to: HMAC-SHA256 of "t.body", any v1.
func verifies(tb testing.TB, r Received, secret string) bool {
	tb.Helper()
	t, v1s := signatures(tb, r.Header.Get("Sello-Signature"))
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "." + string(r.Body)))
	want := hex.EncodeToString(mac.Sum(nil))
	for _, v1 := range v1s {
		if hmac.Equal([]byte(v1), []byte(want)) {
			return true
		}
	}
	return false
}

var (
	shownSecret  = regexp.MustCompile(`id="webhook-secret">([^<]+)<`)
	endpointLink = regexp.MustCompile(`href="` + hookPath + `/endpoints/([^"/?]+)"`)
	deliveryLoc  = regexp.MustCompile(`^` + hookPath + `/entregas/([^/?]+)\?done=(\w+)`)
)

// secretOf is the secret a page shows once.
func secretOf(tb testing.TB, p *Page) string {
	tb.Helper()
	m := shownSecret.FindStringSubmatch(p.Body)
	if m == nil || !strings.HasPrefix(m[1], sello.WebhookSecretPrefix) {
		tb.Fatalf("no secret on the page: %s", p.Body)
	}
	return m[1]
}

// deliveryOf is the delivery a redirect goes to, and its ?done=.
func deliveryOf(tb testing.TB, p *Page) (string, string) {
	tb.Helper()
	m := deliveryLoc.FindStringSubmatch(p.Location())
	if p.StatusCode != http.StatusSeeOther || m == nil {
		tb.Fatalf("%s %s: %d to %q, want 303 to a delivery: %s", p.Request.Method, p.Request.URL.Path, p.StatusCode, p.Location(), p.Body)
	}
	return m[1], m[2]
}

// MustAddEndpoint adds an endpoint to url through the page, every event,
// and returns its id and the secret shown once.
func (b *Browser) MustAddEndpoint(url string) (string, string) {
	b.tb.Helper()
	p := b.Form(hookPath+"/nuevo", hookPath, formOf("url", url, "environment", "TesteCF", "scope", "all"))
	wantStatus(b.tb, p, http.StatusOK)
	m := endpointLink.FindStringSubmatch(p.Body)
	if m == nil {
		b.tb.Fatalf("no endpoint link on the page: %s", p.Body)
	}
	return m[1], secretOf(b.tb, p)
}

func formOf(kv ...string) url.Values {
	f := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		f.Add(kv[i], kv[i+1])
	}
	return f
}

// waitDelivery polls a delivery of the site's tenant until cond holds.
func (s *Site) waitDelivery(tb testing.TB, id string, cond func(*sello.WebhookDelivery) bool) *sello.WebhookDelivery {
	tb.Helper()
	var d *sello.WebhookDelivery
	if !testwait.Within(20*time.Second, 5*time.Millisecond, func() bool {
		var err error
		if d, err = s.Store.FindWebhookDelivery(context.Background(), s.Tenant.ID, id); err != nil {
			tb.Fatal(err)
		}
		return cond(d)
	}) {
		tb.Fatalf("delivery %s: status %s after %d attempts (%s), not what the test waits for", id, d.Status, d.Attempts, d.LastError)
	}
	return d
}

func isStatus(s sello.WebhookDeliveryStatus) func(*sello.WebhookDelivery) bool {
	return func(d *sello.WebhookDelivery) bool { return d.Status == s }
}

// audit returns the site's tenant's audit entries of actions starting
// with prefix, oldest first.
func (s *Site) audit(tb testing.TB, prefix string) []*sello.AuditEntry {
	tb.Helper()
	es, err := s.Store.FindAudit(context.Background(), s.Tenant.ID, sello.AuditFilter{Action: prefix, Limit: sello.MaxAuditLimit})
	if err != nil {
		tb.Fatal(err)
	}
	for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
		es[i], es[j] = es[j], es[i]
	}
	return es
}

// TestWebhooks runs the Webhooks pages' tests on SQLite; TestWebhooksPostgres
// runs them on PostgreSQL.
func TestWebhooks(t *testing.T) {
	for _, tt := range webhookTests {
		t.Run(tt.name, func(t *testing.T) {
			tt.test(t, func(tb testing.TB) sello.Store {
				db, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "sello.db"))
				if err != nil {
					tb.Fatal(err)
				}
				tb.Cleanup(func() { db.Close() })
				return db
			})
		})
	}
}

// TestWebhooksPostgres: the same on PostgreSQL (SELLO_TEST_DATABASE_URL),
// each on a fresh schema.
func TestWebhooksPostgres(t *testing.T) {
	pgtest.DatabaseURL(t)
	for _, tt := range webhookTests {
		t.Run(tt.name, func(t *testing.T) {
			tt.test(t, func(tb testing.TB) sello.Store {
				db, err := postgres.Open(context.Background(), pgtest.MustSchema(tb))
				if err != nil {
					tb.Fatal(err)
				}
				tb.Cleanup(func() { db.Close() })
				return db
			})
		})
	}
}

// webhookTests take a function that opens a fresh store.
var webhookTests = []struct {
	name string
	test func(*testing.T, func(testing.TB) sello.Store)
}{
	{"DeliverFailReplay", testWebhookDeliverFailReplay},
	{"RotatePauseDelete", testWebhookRotatePauseDelete},
	{"Roles", testWebhookRoles},
	{"OtherTenant", testWebhookOtherTenant},
	{"AddRefused", testWebhookAddRefused},
	{"Pages", testWebhookPages},
}

// testWebhookDeliverFailReplay: a developer adds an endpoint at a test
// receiver; the secret shown once verifies the signed test delivery that
// arrives, and the page shows the receiver's answer. The receiver fails:
// the delivery is under "fallidas" with each attempt's status and body.
// The receiver is fixed: replaying one, then every failed since a time,
// delivers them; the second replay of the failed replays nothing. Every
// change is in the audit log, never the secret.
func testWebhookDeliverFailReplay(t *testing.T, open func(testing.TB) sello.Store) {
	site := MustHookSite(t, open(t))
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	rc := MustReceiver(t)
	b := site.NewBrowser(t)
	b.MustLogin("dev@caribe.do")

	p := b.Get(hookPath)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "Todavía no hay endpoints en TesteCF.", `id="webhook-add"`)

	id, secret := b.MustAddEndpoint(rc.URL + "/hooks")
	e, err := site.Store.FindWebhookEndpoint(t.Context(), site.Tenant.ID, id)
	if err != nil || e.URL != rc.URL+"/hooks" || e.Environment != sello.EnvTest || len(e.Events) != 0 || e.Status != sello.WebhookEndpointActive {
		t.Fatalf("the endpoint stored: %+v, %v", e, err)
	}
	if got, _ := e.ActiveSecrets(site.Server.MasterKey, time.Now()); len(got) != 1 || got[0] != secret {
		t.Fatalf("the secret shown is not the endpoint's")
	}
	p = b.Get(hookPath + "/endpoints/" + id)
	wantStatus(t, p, http.StatusOK)
	if strings.Contains(p.Body, secret) {
		t.Fatal("the endpoint's page shows the secret again")
	}

	// A test event: the page waits for the answer and shows it.
	p = b.Form(hookPath+"/endpoints/"+id, hookPath+"/endpoints/"+id+"/probar", nil)
	did, done := deliveryOf(t, p)
	if done != "test" {
		t.Fatalf("after the test: done=%s", done)
	}
	got := rc.WaitN(t, 1)[0]
	if !verifies(t, got, secret) {
		t.Fatalf("the secret shown once does not verify the delivery: %s", got.Header.Get("Sello-Signature"))
	}
	if verifies(t, got, secret+"x") {
		t.Fatal("a wrong secret verifies the delivery")
	}
	if got.Header.Get("Sello-Event-Type") != string(sello.EventWebhookEndpointTest) {
		t.Fatalf("event type %q", got.Header.Get("Sello-Event-Type"))
	}
	site.waitDelivery(t, did, isStatus(sello.WebhookSucceeded))
	p = b.Get(hookPath + "/entregas/" + did)
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, "entregada", "HTTP 200", "ok, stored", "Sello-Signature: t=", "webhook_endpoint.test")

	// The receiver fails: eight attempts, then the delivery is failed.
	rc.Fail(true)
	p = b.Form(hookPath+"/endpoints/"+id, hookPath+"/endpoints/"+id+"/probar", nil)
	failed, _ := deliveryOf(t, p)
	site.waitDelivery(t, failed, isStatus(sello.WebhookFailed))
	p = b.Get(hookPath + "/entregas?estado=fallidas")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, `id="delivery-`+failed+`"`, "answered 500")
	if strings.Contains(p.Body, `id="delivery-`+did+`"`) {
		t.Error("the failed view lists a delivery that succeeded")
	}
	p = b.Get(hookPath + "/entregas/" + failed)
	wantText(t, p, "fallida", "8 de 8", "HTTP 500", "down for maintenance", `id="attempt-8"`, "Intento 1,", "Cabeceras de la solicitud", "Sello-Event-Id: ")

	// Fixed, and the failed delivery replayed: a new delivery succeeds.
	rc.Fail(false)
	p = b.Form(hookPath+"/entregas/"+failed, hookPath+"/entregas/"+failed+"/reenviar", nil)
	replay, done := deliveryOf(t, p)
	if done != "replayed" || replay == failed {
		t.Fatalf("replay: %s, done=%s", replay, done)
	}
	d := site.waitDelivery(t, replay, isStatus(sello.WebhookSucceeded))
	if d.ReplayOf != failed || d.Trigger != sello.WebhookTriggerReplay {
		t.Fatalf("the replay: %+v", d)
	}
	p = b.Get(hookPath + "/entregas/" + replay + "?done=replayed")
	wantText(t, p, "Reenviada como una entrega nueva", "entregada", "HTTP 200", `id="delivery-original"`)

	// Another failure, then every failed delivery since an hour ago: only
	// the one not replayed yet goes again, once.
	rc.Fail(true)
	p = b.Form(hookPath+"/endpoints/"+id, hookPath+"/endpoints/"+id+"/probar", nil)
	failed2, _ := deliveryOf(t, p)
	site.waitDelivery(t, failed2, isStatus(sello.WebhookFailed))
	rc.Fail(false)
	before := len(rc.Got())
	since := time.Now().Add(-time.Hour).In(sello.DRZone).Format("2006-01-02T15:04")
	p = b.Form(hookPath+"/entregas?estado=fallidas", hookPath+"/entregas/reenviar-fallidas", formOf("since", since, "endpoint", ""))
	wantRedirect(t, p, hookPath+"/entregas?")
	if loc, _ := url.Parse(p.Location()); loc.Query().Get("n") != "1" {
		t.Fatalf("replayed failed: %s, want n=1", p.Location())
	}
	wantText(t, b.Get(p.Location()), "Se está reenviando una entrega fallida.")
	rc.WaitN(t, before+1)
	ds, err := site.Store.ListWebhookDeliveries(t.Context(), site.Tenant.ID, sello.EnvTest, sello.WebhookDeliveryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.ReplayOf == failed2 {
			site.waitDelivery(t, d.ID, isStatus(sello.WebhookSucceeded))
		}
	}
	p = b.Form(hookPath+"/entregas", hookPath+"/entregas/reenviar-fallidas", formOf("since", since, "endpoint", id))
	wantRedirect(t, p, hookPath+"/entregas?")
	wantText(t, b.Get(p.Location()), "No quedaba ninguna entrega fallida desde entonces por reenviar.")

	// The audit log: who, from where, what; never the secret.
	var actions []string
	for _, a := range site.audit(t, "webhook_") {
		actions = append(actions, a.Action)
		if a.ActorEmail != "dev@caribe.do" || a.Address != "127.0.0.1" {
			t.Errorf("audit %s: actor %q from %q", a.Action, a.ActorEmail, a.Address)
		}
		if strings.Contains(string(a.Before)+string(a.After), secret) {
			t.Errorf("audit %s holds the secret", a.Action)
		}
	}
	want := []string{"webhook_endpoint.created", "webhook_endpoint.tested", "webhook_endpoint.tested", "webhook_delivery.replayed",
		"webhook_endpoint.tested", "webhook_delivery.failed_replayed", "webhook_delivery.failed_replayed"}
	if strings.Join(actions, " ") != strings.Join(want, " ") {
		t.Errorf("audit actions:\n got %v\nwant %v", actions, want)
	}
	created := site.audit(t, "webhook_endpoint.created")[0]
	if created.Target != id || !strings.Contains(string(created.After), rc.URL+"/hooks") {
		t.Errorf("audit of the creation: target %s, after %s", created.Target, created.After)
	}
}

// testWebhookRotatePauseDelete: a rotation shows the new secret once and
// the overlap; during it a delivery verifies with both the old and the new
// secret; a rotation without overlap leaves only the newest. Pausing
// holds a delivery (the receiver gets nothing) until resumed. Deleting
// asks first, then the endpoint is gone.
func testWebhookRotatePauseDelete(t *testing.T, open func(testing.TB) sello.Store) {
	site := MustHookSite(t, open(t))
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	site.MustUser(t, "admin@caribe.do", sello.RoleAdmin)
	rc := MustReceiver(t)
	b := site.NewBrowser(t)
	b.MustLogin("admin@caribe.do")
	id, first := b.MustAddEndpoint(rc.URL + "/")
	ep := hookPath + "/endpoints/" + id

	p := b.Form(ep, ep+"/rotar-secreto", formOf("overlap", "24"))
	wantStatus(t, p, http.StatusOK)
	second := secretOf(t, p)
	if second == first {
		t.Fatal("the rotation kept the secret")
	}
	wantText(t, p, `id="webhook-overlap"`, "cada entrega se firma con el secreto nuevo y con el anterior")
	p = b.Get(ep)
	wantText(t, p, "firma hasta el")
	if strings.Contains(p.Body, first) || strings.Contains(p.Body, second) {
		t.Fatal("the endpoint's page shows a secret")
	}
	b.Form(ep, ep+"/probar", nil)
	got := rc.WaitN(t, 1)[0]
	if _, v1 := signatures(t, got.Header.Get("Sello-Signature")); len(v1) != 2 {
		t.Fatalf("during the overlap: %d signatures, want 2", len(v1))
	}
	if !verifies(t, got, first) || !verifies(t, got, second) {
		t.Fatal("during the overlap, the old and the new secret must both verify")
	}

	p = b.Form(ep, ep+"/rotar-secreto", formOf("overlap", "0"))
	third := secretOf(t, p)
	wantText(t, p, "Desde ahora solo firma el secreto nuevo.")
	b.Form(ep, ep+"/probar", nil)
	got = rc.WaitN(t, 2)[1]
	if !verifies(t, got, third) || verifies(t, got, second) || verifies(t, got, first) {
		t.Fatal("after a rotation without overlap only the newest secret may verify")
	}
	rotations := site.audit(t, "webhook_endpoint.secret_rotated")
	if len(rotations) != 2 || !strings.Contains(string(rotations[0].After), "previousSignUntil") {
		t.Fatalf("audit of the rotations: %+v", rotations)
	}
	for _, a := range rotations {
		for _, s := range []string{first, second, third} {
			if strings.Contains(string(a.Before)+string(a.After), s) {
				t.Fatal("the audit log holds a secret")
			}
		}
	}
	if p := b.Form(ep, ep+"/rotar-secreto", formOf("overlap", "5")); p.StatusCode != http.StatusBadRequest {
		t.Errorf("an overlap the page does not offer: %d", p.StatusCode)
	}

	// Paused: the test is held, the receiver gets nothing; resumed, it goes.
	wantRedirect(t, b.Form(ep, ep+"/pausar", nil), ep+"?done=paused")
	p = b.Get(ep + "?done=paused")
	wantText(t, p, "pausado", `id="webhook-resume"`, "El endpoint está pausado")
	held, done := deliveryOf(t, b.Form(ep, ep+"/probar", nil))
	if done != "held" {
		t.Fatalf("a test to a paused endpoint: done=%s", done)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(rc.Got()); n != 2 {
		t.Fatalf("the receiver got %d requests while paused, want 2", n)
	}
	if d := site.waitDelivery(t, held, func(*sello.WebhookDelivery) bool { return true }); d.Status != sello.WebhookHeld {
		t.Fatalf("the test to a paused endpoint: %s", d.Status)
	}
	p = b.Form(ep, ep+"/reanudar", nil)
	wantRedirect(t, p, ep+"?done=resumed&n=1")
	wantText(t, b.Get(p.Location()), "una entrega retenida va en camino")
	rc.WaitN(t, 3)
	site.waitDelivery(t, held, isStatus(sello.WebhookSucceeded))

	// Delete: a confirmation first, then gone.
	p = b.Get(ep + "/eliminar")
	wantStatus(t, p, http.StatusOK)
	wantText(t, p, `id="webhook-delete-confirm"`, rc.URL+"/")
	wantRedirect(t, b.Form(ep+"/eliminar", ep+"/eliminar", nil), hookPath+"?done=deleted")
	wantStatus(t, b.Get(ep), http.StatusNotFound)
	p = b.Get(hookPath + "?done=deleted")
	wantText(t, p, "El endpoint se eliminó.")
	if strings.Contains(p.Body, id) {
		t.Error("the list shows the deleted endpoint")
	}
	if _, err := site.Store.FindWebhookEndpoint(t.Context(), site.Tenant.ID, id); sello.ErrorCodeOf(err) != sello.CodeNotFound {
		t.Fatalf("the deleted endpoint: %v", err)
	}
	var actions []string
	for _, a := range site.audit(t, "webhook_endpoint.") {
		actions = append(actions, a.Action)
	}
	want := "webhook_endpoint.created webhook_endpoint.secret_rotated webhook_endpoint.tested webhook_endpoint.secret_rotated webhook_endpoint.tested " +
		"webhook_endpoint.paused webhook_endpoint.tested webhook_endpoint.resumed webhook_endpoint.deleted"
	if strings.Join(actions, " ") != want {
		t.Errorf("audit actions:\n got %s\nwant %s", strings.Join(actions, " "), want)
	}
	paused := site.audit(t, "webhook_endpoint.paused")[0]
	if string(paused.Before) != `{"status":"active"}` || string(paused.After) != `{"status":"paused"}` {
		t.Errorf("audit of the pause: %s → %s", paused.Before, paused.After)
	}
	deleted := site.audit(t, "webhook_endpoint.deleted")[0]
	if !strings.Contains(string(deleted.Before), rc.URL) || deleted.After != nil {
		t.Errorf("audit of the deletion: %s → %s", deleted.Before, deleted.After)
	}
}

// mustEndpoint creates an endpoint of tenant in env through the store,
// with a test delivery to it (held while paused), and returns both.
func mustEndpoint(tb testing.TB, site *Site, tenant *sello.Tenant, env sello.Environment, status sello.WebhookEndpointStatus) (*sello.WebhookEndpoint, *sello.WebhookDelivery) {
	tb.Helper()
	ctx := context.Background()
	e, err := sello.NewWebhookEndpoint(site.Server.MasterKey, tenant.ID, env, "https://hooks.example.com/"+tenant.RNC, nil, sello.GenerateWebhookSecret())
	if err != nil {
		tb.Fatal(err)
	}
	e.Status = status
	if err := site.Store.CreateWebhookEndpoint(ctx, e); err != nil {
		tb.Fatal(err)
	}
	d, err := site.Store.CreateTestWebhookDelivery(ctx, tenant.ID, e.ID, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	return e, d
}

// testWebhookRoles: an accountant reads the pages but is refused (403)
// every change, and sees no form for one; owners, administrators and
// developers add endpoints.
func testWebhookRoles(t *testing.T, open func(testing.TB) sello.Store) {
	site := MustSiteOn(t, open(t))
	e, d := mustEndpoint(t, site, site.Tenant, sello.EnvTest, sello.WebhookEndpointPaused)
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	site.MustUser(t, "conta@caribe.do", sello.RoleAccountant)
	b := site.NewBrowser(t)
	b.MustLogin("conta@caribe.do")
	ep := hookPath + "/endpoints/" + e.ID
	dp := hookPath + "/entregas/" + d.ID
	for _, path := range []string{hookPath, ep, hookPath + "/entregas", hookPath + "/entregas?estado=fallidas", dp} {
		p := b.Get(path)
		wantStatus(t, p, http.StatusOK)
		for _, form := range []string{`id="webhook-add"`, `id="webhook-resume"`, `id="webhook-rotate"`, `id="webhook-test"`, `id="webhook-delete"`, `id="replay-failed"`, `id="delivery-replay"`} {
			if strings.Contains(p.Body, form) {
				t.Errorf("GET %s shows an accountant %s", path, form)
			}
		}
	}
	wantStatus(t, b.Get(hookPath+"/nuevo"), http.StatusForbidden)
	wantStatus(t, b.Get(ep+"/eliminar"), http.StatusForbidden)
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{hookPath, formOf("url", "https://hooks.example.com/x", "environment", "TesteCF", "scope", "all")},
		{ep + "/pausar", nil},
		{ep + "/reanudar", nil},
		{ep + "/rotar-secreto", formOf("overlap", "24")},
		{ep + "/probar", nil},
		{ep + "/eliminar", nil},
		{dp + "/reenviar", nil},
		{hookPath + "/entregas/reenviar-fallidas", formOf("since", "2026-01-01T00:00")},
	} {
		p := b.Form(hookPath, post.path, post.form)
		wantStatus(t, p, http.StatusForbidden)
		wantText(t, p, "Su rol en esta empresa no le permite hacer esto.")
	}
	after, err := site.Store.FindWebhookEndpoint(t.Context(), site.Tenant.ID, e.ID)
	if err != nil || after.Status != sello.WebhookEndpointPaused || len(after.Secrets) != 1 {
		t.Fatalf("the endpoint after the refusals: %+v, %v", after, err)
	}
	if es, _ := site.Store.FindWebhookEndpoints(t.Context(), site.Tenant.ID, sello.EnvTest); len(es) != 1 {
		t.Fatalf("%d endpoints after the refusals", len(es))
	}
	if ds, _ := site.Store.ListWebhookDeliveries(t.Context(), site.Tenant.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(ds) != 1 {
		t.Fatalf("%d deliveries after the refusals", len(ds))
	}
	if got := site.audit(t, "webhook_"); len(got) != 0 {
		t.Fatalf("refusals audited as changes: %d entries", len(got))
	}

	for _, role := range []sello.Role{sello.RoleOwner, sello.RoleAdmin, sello.RoleDeveloper} {
		email := string(role) + "@caribe.do"
		site.MustUser(t, email, role)
		b := site.NewBrowser(t)
		b.MustLogin(email)
		p := b.Form(hookPath+"/nuevo", hookPath, formOf("url", "https://hooks.example.com/"+string(role), "environment", "TesteCF", "scope", "all"))
		wantStatus(t, p, http.StatusOK)
		secretOf(t, p)
	}
}

// testWebhookOtherTenant: another company's endpoint and delivery are
// 404 to every page and action, and stay as they were; so is an endpoint
// under another environment's path.
func testWebhookOtherTenant(t *testing.T, open func(testing.TB) sello.Store) {
	site := MustSiteOn(t, open(t))
	other := &sello.Tenant{RNC: "130000002", Name: "Otra SRL", Plan: sello.DefaultRatePlan}
	if err := site.Store.CreateTenant(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	theirs, theirDelivery := mustEndpoint(t, site, other, sello.EnvTest, sello.WebhookEndpointPaused)
	ours, _ := mustEndpoint(t, site, site.Tenant, sello.EnvTest, sello.WebhookEndpointPaused)
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner)
	b := site.NewBrowser(t)
	b.MustLogin("owner@caribe.do")

	ep := hookPath + "/endpoints/" + theirs.ID
	dp := hookPath + "/entregas/" + theirDelivery.ID
	for _, path := range []string{ep, ep + "/eliminar", dp, "/portal/eCF/webhooks/endpoints/" + ours.ID} {
		wantStatus(t, b.Get(path), http.StatusNotFound)
	}
	for _, post := range []struct {
		path string
		form url.Values
	}{
		{ep + "/pausar", nil},
		{ep + "/reanudar", nil},
		{ep + "/rotar-secreto", formOf("overlap", "0")},
		{ep + "/probar", nil},
		{ep + "/eliminar", nil},
		{dp + "/reenviar", nil},
		{hookPath + "/entregas/reenviar-fallidas", formOf("since", "2026-01-01T00:00", "endpoint", theirs.ID)},
		{"/portal/eCF/webhooks/endpoints/" + ours.ID + "/reanudar", nil},
	} {
		wantStatus(t, b.Form(hookPath, post.path, post.form), http.StatusNotFound)
	}
	p := b.Get(hookPath + "/entregas")
	if strings.Contains(p.Body, theirDelivery.ID) || strings.Contains(p.Body, theirs.URL) {
		t.Error("the delivery log shows another company's delivery")
	}
	after, err := site.Store.FindWebhookEndpoint(t.Context(), other.ID, theirs.ID)
	if err != nil || after.Status != sello.WebhookEndpointPaused || len(after.Secrets) != 1 {
		t.Fatalf("their endpoint after: %+v, %v", after, err)
	}
	if ds, _ := site.Store.ListWebhookDeliveries(t.Context(), other.ID, sello.EnvTest, sello.WebhookDeliveryFilter{}); len(ds) != 1 {
		t.Fatalf("their deliveries after: %d", len(ds))
	}
	if ours, _ := site.Store.FindWebhookEndpoint(t.Context(), site.Tenant.ID, ours.ID); ours.Status != sello.WebhookEndpointPaused {
		t.Fatalf("our endpoint, resumed through another environment's path: %s", ours.Status)
	}
}

// testWebhookAddRefused: the URL goes through the webhook URL policy and
// the address guard (private addresses, http in eCF, loopback in eCF even
// with the allowance, loopback without it); the event filter takes only
// known types, at least one when filtering. A refusal shows the form
// again with the message, and stores nothing.
func testWebhookAddRefused(t *testing.T, open func(testing.TB) sello.Store) {
	db := open(t)
	site := MustSiteOn(t, db, func(s *portal.Server) { s.AllowLoopbackWebhooks = true })
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("dev@caribe.do")
	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"Private", formOf("url", "http://10.0.0.5/hooks", "environment", "TesteCF", "scope", "all"), "10.0.0.5"},
		{"Metadata", formOf("url", "http://169.254.169.254/", "environment", "TesteCF", "scope", "all"), "URL del webhook"},
		{"HTTPInProduction", formOf("url", "http://hooks.example.com/", "environment", "eCF", "scope", "all"), "URL del webhook"},
		{"LoopbackInProduction", formOf("url", "https://127.0.0.1:8443/", "environment", "eCF", "scope", "all"), "URL del webhook"},
		{"Localhost", formOf("url", "https://localhost/", "environment", "eCF", "scope", "all"), "URL del webhook"},
		{"NoEventMarked", formOf("url", "https://hooks.example.com/", "environment", "TesteCF", "scope", "some"), "Marque al menos un evento"},
		{"UnknownEvent", formOf("url", "https://hooks.example.com/", "environment", "TesteCF", "scope", "some", "events", "ecf.nonsense"), "ecf.nonsense"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.Form(hookPath+"/nuevo", hookPath, tc.form)
			wantStatus(t, p, http.StatusBadRequest)
			wantText(t, p, `id="webhook-add-error"`, tc.want)
			if strings.Contains(p.Body, `id="webhook-secret"`) {
				t.Error("a refused endpoint's page shows a secret")
			}
		})
	}
	for _, env := range sello.Environments {
		if es, _ := db.FindWebhookEndpoints(t.Context(), site.Tenant.ID, env); len(es) != 0 {
			t.Fatalf("%d endpoints stored in %s after refusals", len(es), env)
		}
	}

	// Filtered events are kept; a Unicode host is stored in its ASCII form.
	p := b.Form(hookPath+"/nuevo", hookPath, formOf("url", "https://Bücher.example/hooks", "environment", "CerteCF", "scope", "some",
		"events", "ecf.accepted", "events", "ecf.rejected", "events", "ecf.accepted"))
	wantStatus(t, p, http.StatusOK)
	es, err := db.FindWebhookEndpoints(t.Context(), site.Tenant.ID, sello.EnvCert)
	if err != nil || len(es) != 1 {
		t.Fatalf("endpoints in CerteCF: %d, %v", len(es), err)
	}
	if es[0].URL != "https://xn--bcher-kva.example/hooks" || fmt.Sprint(es[0].Events) != "[ecf.accepted ecf.rejected]" {
		t.Fatalf("the endpoint stored: %s %v", es[0].URL, es[0].Events)
	}

	// Without the server's allowance, loopback is refused in TesteCF too.
	strict := MustSiteOn(t, open(t))
	strict.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	strict.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	sb := strict.NewBrowser(t)
	sb.MustLogin("dev@caribe.do")
	p = sb.Form(hookPath+"/nuevo", hookPath, formOf("url", "http://127.0.0.1:9000/", "environment", "TesteCF", "scope", "all"))
	wantStatus(t, p, http.StatusBadRequest)
	wantText(t, p, "URL del webhook")
}

// testWebhookPages: the delivery log pages by cursor (newest first, no
// delivery twice, the filters kept), its failed view lists only failed
// ones, a malformed cursor is refused; the secret page works without
// JavaScript (selectable text; the copy button hidden until copy.js shows
// it) and has no inline script; the menu leads to the pages in the
// environment.
func testWebhookPages(t *testing.T, open func(testing.TB) sello.Store) {
	site := MustSiteOn(t, open(t))
	ctx := t.Context()
	e, _ := mustEndpoint(t, site, site.Tenant, sello.EnvTest, sello.WebhookEndpointPaused)
	start := time.Now()
	var failed []string
	for i := range 60 {
		d, err := site.Store.CreateTestWebhookDelivery(ctx, site.Tenant.ID, e.ID, start.Add(time.Duration(i)*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			a := &sello.WebhookAttempt{DeliveryID: d.ID, At: time.Now(), ResponseStatus: 503, ResponseBody: []byte("busy"), ErrorClass: "http_status"}
			if _, err := site.Store.RecordWebhookAttempt(ctx, a, sello.WebhookOutcome{Status: sello.WebhookFailed}); err != nil {
				t.Fatal(err)
			}
			failed = append(failed, d.ID)
		}
	}
	site.MustUser(t, "owner@caribe.do", sello.RoleOwner) // a company's first user is its owner
	site.MustUser(t, "dev@caribe.do", sello.RoleDeveloper)
	b := site.NewBrowser(t)
	b.MustLogin("dev@caribe.do")

	rows := regexp.MustCompile(`<tr id="delivery-([^"]+)"`)
	next := regexp.MustCompile(`id="deliveries-next" href="([^"]+)"`)
	seen := map[string]bool{}
	path, pages := hookPath+"/entregas?endpoint="+e.ID, 0
	for path != "" {
		p := b.Get(path)
		wantStatus(t, p, http.StatusOK)
		pages++
		for _, m := range rows.FindAllStringSubmatch(p.Body, -1) {
			if seen[m[1]] {
				t.Fatalf("delivery %s on two pages", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := next.FindStringSubmatch(p.Body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
			if !strings.Contains(path, "endpoint="+e.ID) {
				t.Fatalf("the next page drops the filter: %s", path)
			}
		}
	}
	if len(seen) != 61 || pages != 2 {
		t.Fatalf("%d deliveries on %d pages, want 61 on 2", len(seen), pages)
	}

	p := b.Get(hookPath + "/entregas?estado=fallidas")
	got := rows.FindAllStringSubmatch(p.Body, -1)
	if len(got) != len(failed) {
		t.Fatalf("the failed view lists %d, want %d", len(got), len(failed))
	}
	for i, m := range got {
		if want := failed[len(failed)-1-i]; m[1] != want {
			t.Errorf("failed %d: %s, want %s (newest first)", i, m[1], want)
		}
	}
	wantText(t, p, "Entregas fallidas", `aria-current="page">Fallidas`)
	wantStatus(t, b.Get(hookPath+"/entregas?cursor=garbage"), http.StatusBadRequest)
	wantStatus(t, b.Get("/portal/ecf/webhooks"), http.StatusNotFound)

	// The secret page: no inline script, the copy button hidden for
	// copy.js, which the portal serves as its own.
	p = b.Form(hookPath+"/nuevo", hookPath, formOf("url", "https://hooks.example.com/pages", "environment", "TesteCF", "scope", "all"))
	wantStatus(t, p, http.StatusOK)
	secretOf(t, p)
	wantText(t, p, `<button type="button" class="secondary" id="webhook-secret-copy" data-copy="webhook-secret" data-copied="Copiado" hidden>`)
	scripts := regexp.MustCompile(`<script[^>]*>`).FindAllString(p.Body, -1)
	for _, s := range scripts {
		if !strings.Contains(s, `src="/portal/static/`) {
			t.Errorf("a script that is not the portal's file: %s", s)
		}
	}
	copyJS := regexp.MustCompile(`src="(/portal/static/copy\.js\?v=\w+)"`).FindStringSubmatch(p.Body)
	if copyJS == nil {
		t.Fatal("the secret page does not load copy.js")
	}
	js := b.Get(copyJS[1])
	if js.StatusCode != http.StatusOK || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(js.Body, "data-copy") {
		t.Fatalf("copy.js: %d %s", js.StatusCode, js.Header.Get("Content-Type"))
	}

	// The menu names the page, in the environment of the page one is on.
	p = b.Get("/portal/CerteCF")
	wantText(t, p, `href="/portal/CerteCF/webhooks">Webhooks</a>`)
	p = b.Get("/portal/CerteCF/webhooks")
	wantText(t, p, `href="/portal/CerteCF/webhooks" aria-current="page">Webhooks</a>`, "Webhooks en CerteCF")
}

// webhookPagesSite is a site with an endpoint whose delivery failed after
// eight attempts, each answered with 4 KiB (the heaviest delivery page),
// and a developer logged in; it returns the Webhooks pages' paths.
func webhookPagesSite(tb testing.TB) (*Site, *Browser, []struct{ name, path string }) {
	tb.Helper()
	site := MustSite(tb)
	site.MustUser(tb, "owner@caribe.do", sello.RoleOwner)
	site.MustUser(tb, "dev@caribe.do", sello.RoleDeveloper)
	e, d := mustEndpoint(tb, site, site.Tenant, sello.EnvTest, sello.WebhookEndpointPaused)
	body := []byte(strings.Repeat("<p>Service Unavailable</p>\n", sello.WebhookResponseBodyLimit/27+1))
	for n := 1; n <= sello.MaxWebhookAttempts; n++ {
		a := &sello.WebhookAttempt{
			DeliveryID: d.ID, At: time.Now(), ResponseStatus: 503, ResponseBody: body, ErrorClass: "http_status", Error: "the endpoint answered 503 Service Unavailable",
			RequestHeaders:  map[string][]string{"Content-Type": {"application/json"}, "Sello-Signature": {"t=1767225600,v1=" + strings.Repeat("ab", 32)}},
			RequestBody:     []byte(`{"id":"0b7c1f2e-4a5d-4c3b-9e8f-1a2b3c4d5e6f","type":"webhook_endpoint.test","data":{"severity":"info"}}`),
			ResponseHeaders: map[string][]string{"Content-Type": {"text/html"}, "Retry-After": {"120"}},
			Latency:         120 * time.Millisecond, DialedIP: "203.0.113.7",
		}
		o := sello.WebhookOutcome{Status: sello.WebhookPending, NextAttemptAt: time.Now()}
		if n == sello.MaxWebhookAttempts {
			o = sello.WebhookOutcome{Status: sello.WebhookFailed}
		}
		if _, err := site.Store.RecordWebhookAttempt(context.Background(), a, o); err != nil {
			tb.Fatal(err)
		}
	}
	b := site.NewBrowser(tb)
	b.MustLogin("dev@caribe.do")
	return site, b, []struct{ name, path string }{
		{"webhooks", hookPath},
		{"webhook-new", hookPath + "/nuevo"},
		{"webhook-endpoint", hookPath + "/endpoints/" + e.ID},
		{"webhook-delete", hookPath + "/endpoints/" + e.ID + "/eliminar"},
		{"deliveries", hookPath + "/entregas"},
		{"deliveries-failed", hookPath + "/entregas?estado=fallidas"},
		{"delivery-8-attempts", hookPath + "/entregas/" + d.ID},
	}
}

// TestWebhookPageWeight: each Webhooks page with its assets weighs under
// 200 KB as sent to a browser (logged for docs/benchmarks.md), as
// TestPageWeight checks the other pages.
func TestWebhookPageWeight(t *testing.T) {
	_, b, pages := webhookPagesSite(t)
	for _, p := range pages {
		page := b.Get(p.path)
		wantStatus(t, page, http.StatusOK)
		raw, sent := len(page.Body), len(page.Body)
		for _, m := range assetRef.FindAllStringSubmatch(page.Body, -1) {
			plain := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"identity"}})
			gz := b.Do("GET", m[1], nil, http.Header{"Accept-Encoding": {"gzip"}})
			wantStatus(t, plain, http.StatusOK)
			raw += len(plain.Body)
			sent += len(gz.Body)
		}
		t.Logf("%-20s %6d bytes HTML, %7d bytes with assets, %6d sent (assets gzipped)", p.name, len(page.Body), raw, sent)
		if sent > maxPageWeight {
			t.Errorf("%s weighs %d bytes with its assets, over %d", p.name, sent, maxPageWeight)
		}
	}
}

// BenchmarkWebhookPages measures each Webhooks page's server time, as
// BenchmarkPages does the others'.
func BenchmarkWebhookPages(b *testing.B) {
	site, browser, pages := webhookPagesSite(b)
	cookie := &http.Cookie{Name: sello.SessionCookie, Value: browser.Cookie()}
	h := site.HTTP.Config.Handler
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest("GET", p.path, nil)
				req.AddCookie(cookie)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.path, rec.Code)
				}
			}
		})
	}
}
