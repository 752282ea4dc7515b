package browsertest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/client"
	"github.com/sello-do/sello/portal/browsertest"
)

// receiver is a company's webhook receiver on this machine: it verifies
// each delivery's signature with the secrets it was given (as the SDK's
// verifier does: the body, the Sello-Signature header, the clock) and
// answers 200, or 500 while it is down, or after a wait while it is slow.
type receiver struct {
	srv   *httptest.Server
	clock func() time.Time

	mu       sync.Mutex
	secrets  []string
	down     bool
	slow     time.Duration
	verified []*client.Event // deliveries whose signature checked out, in order
	signed   []signedBody    // their bodies and signature headers
	refused  []string        // why others were refused
}

func newReceiver(t *testing.T, s *browsertest.Server) *receiver {
	r := &receiver{clock: s.Clock.Now}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	down, slow, secrets := r.down, r.slow, r.secrets
	r.mu.Unlock()
	if slow > 0 {
		time.Sleep(slow)
	}
	if down {
		http.Error(w, "receptor caído por mantenimiento", http.StatusInternalServerError)
		return
	}
	ev, err := client.VerifyWebhook(body, req.Header.Get(client.HeaderSignature), secrets, r.clock())
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.refused = append(r.refused, err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.verified = append(r.verified, ev)
	r.signed = append(r.signed, signedBody{body, req.Header.Get(client.HeaderSignature)})
	fmt.Fprint(w, "recibido")
}

// signedBody is a delivery's body and its Sello-Signature header.
type signedBody struct {
	body   []byte
	header string
}

func (r *receiver) set(f func(r *receiver)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r)
}

// events are the verified deliveries' events.
func (r *receiver) events() []*client.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*client.Event(nil), r.verified...)
}

// TestWebhooks: a developer adds an endpoint on the Webhooks page (its
// secret shown once, with a copy button); its test event reaches the
// receiver signed with that secret, and the delivery's page shows the
// receiver's answer. The receiver goes down: a test delivery fails its
// attempts, appears under "fallidas" with each attempt's request and the
// receiver's 500; the receiver is fixed and the delivery sent again
// succeeds, as does "send every failed delivery since" for another. The
// secret is rotated with an overlap (deliveries signed with both), the
// endpoint paused (a test held) and resumed (the held test sent), then
// deleted.
func TestWebhooks(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)
	rcv := newReceiver(t, s)
	p := s.NewPage(t)
	browsertest.GrantClipboard(t, p)
	p.Login("luis@caribe.do")
	p.Submit(`nav.menu a[href="/portal/TesteCF/webhooks"]`)
	p.Look("webhooks-empty")

	// Add the endpoint: every event, TesteCF.
	p.Submit("#webhook-add")
	p.Look("webhook-new")
	p.Fill("#webhook-url", rcv.srv.URL+"/sello")
	p.Submit("#webhook-add-submit")
	secret := p.Text("#webhook-secret")
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the new endpoint's secret is %q", secret)
	}
	p.Click("#webhook-secret-copy")
	if got := browsertest.Clipboard(t, p); got != secret {
		t.Errorf("the copy button copied %q, want the secret", got)
	}
	p.Look("webhook-created")
	rcv.set(func(r *receiver) { r.secrets = []string{secret} })

	// A test event, signed with the secret; its answer on the page.
	p.Submit("#webhook-endpoint-link")
	p.Look("webhook-endpoint")
	p.Submit("#webhook-test")
	waitDelivery(t, p, "succeeded")
	if got := p.Text("#delivery-answer-status"); got != "HTTP 200" {
		t.Errorf("the test's answer is %q, want HTTP 200", got)
	}
	if got := p.Text("#delivery-answer-body"); got != "recibido" {
		t.Errorf("the receiver's body on the page is %q", got)
	}
	evs := rcv.events()
	if len(evs) != 1 || evs[0].Type != "webhook_endpoint.test" {
		t.Fatalf("the receiver verified %d deliveries: %+v (refused: %v)", len(evs), evs, rcv.refused)
	}
	p.Look("webhook-delivery")

	// The receiver goes down: the next test fails every attempt.
	rcv.set(func(r *receiver) { r.down = true })
	p.Go("/portal/TesteCF/webhooks")
	p.Submit(`#webhook-endpoints a[href*="/endpoints/"]`)
	p.Submit("#webhook-test")
	failed := failedDeliveries(t, p, 1)
	p.Look("webhook-deliveries-failed")
	p.Submit("#" + failed[0] + " a")
	if got := p.Attr("#delivery-state span", "class"); !strings.Contains(got, "state-delivery-failed") {
		t.Errorf("the failed delivery's state: %q", got)
	}
	if n := len(p.Texts("details.attempt")); n != sello.MaxWebhookAttempts {
		t.Errorf("the failed delivery shows %d attempts, want %d", n, sello.MaxWebhookAttempts)
	}
	if got := p.Text("#delivery-answer-status"); got != "HTTP 500" {
		t.Errorf("the failed delivery's last answer is %q", got)
	}
	if got := p.Text("#delivery-answer-body"); !strings.Contains(got, "receptor caído") {
		t.Errorf("the failed delivery shows the receiver's body as %q", got)
	}
	p.WantText("Sello-Signature: t=", "Sello-Event-Id: ", `"webhook_endpoint.test"`)
	p.Look("webhook-delivery-failed")

	// Fixed, the receiver takes the delivery sent again: the same event.
	rcv.set(func(r *receiver) { r.down = false })
	failedEvent := p.Facts(`section[aria-labelledby="delivery-facts"]`)["Id del evento"]
	p.Submit("#delivery-replay")
	waitDelivery(t, p, "succeeded")
	if !p.Has("#delivery-original") {
		t.Error("the replay does not link the delivery it sends again")
	}
	evs = rcv.events()
	if last := evs[len(evs)-1]; len(evs) != 2 || (failedEvent != "" && last.ID != failedEvent) {
		t.Errorf("after the replay the receiver verified %d deliveries, the last of event %s, want the failed event %s", len(evs), last.ID, failedEvent)
	}
	p.Look("webhook-delivery-replayed")

	// Down again for another test; every failed delivery since a time is
	// sent again once the receiver is back.
	rcv.set(func(r *receiver) { r.down = true })
	p.Go("/portal/TesteCF/webhooks")
	p.Submit(`#webhook-endpoints a[href*="/endpoints/"]`)
	p.Submit("#webhook-test")
	failedDeliveries(t, p, 2)
	rcv.set(func(r *receiver) { r.down = false })
	p.Submit("#replay-failed")
	if !p.Has(`.flash[role="status"]`) {
		t.Errorf("replaying the failed deliveries says nothing: %s", p.Body())
	}
	waitFor(t, "the failed deliveries sent again", func() bool { return len(rcv.events()) == 3 })

	// Rotate the secret, keeping the old one for a day: both sign.
	p.Go("/portal/TesteCF/webhooks")
	p.Submit(`#webhook-endpoints a[href*="/endpoints/"]`)
	endpoint := p.Path()
	p.Select("#webhook-overlap", "24")
	p.Submit("#webhook-rotate")
	newSecret := p.Text("#webhook-secret")
	if newSecret == secret || !strings.HasPrefix(newSecret, "whsec_") {
		t.Fatalf("the rotated secret is %q", newSecret)
	}
	if !strings.Contains(p.Text("#webhook-overlap"), "con el secreto nuevo y con el anterior") {
		t.Errorf("the rotation's overlap: %q", p.Text("#webhook-overlap"))
	}
	p.Look("webhook-secret-rotated")
	rcv.set(func(r *receiver) { r.secrets = []string{newSecret} }) // the receiver switched at once
	p.Go(endpoint)
	p.Submit("#webhook-test")
	waitDelivery(t, p, "succeeded")
	rcv.set(func(r *receiver) {
		last := r.signed[len(r.signed)-1]
		if err := client.VerifySignature(last.body, last.header, []string{secret}, r.clock()); err != nil {
			t.Errorf("during the overlap a delivery is not signed with the previous secret too: %v (%s)", err, last.header)
		}
	})

	// Paused, a test is held; resumed, it goes.
	p.Go(endpoint)
	p.Submit("#webhook-pause")
	p.Submit("#webhook-test")
	waitDelivery(t, p, "held")
	held := p.Path()
	p.Go(endpoint)
	p.Look("webhook-endpoint-paused")
	p.Submit("#webhook-resume")
	p.Go(held)
	waitDelivery(t, p, "succeeded")
	if n := len(rcv.events()); n != 5 {
		t.Errorf("the receiver verified %d deliveries, want 5", n)
	}

	// Deleted.
	p.Go(endpoint)
	p.Submit("#webhook-delete")
	p.Look("webhook-delete")
	p.Submit("#webhook-delete-confirm")
	p.Go("/portal/TesteCF/webhooks")
	if !p.Has("#webhook-none") {
		t.Errorf("after the deletion the list is: %s", p.Body())
	}
}

// TestWebhookDeliveryRefreshes: a test event to a receiver slower than the
// portal waits leaves the delivery's page waiting for its first attempt;
// htmx refreshes that part of the page, and the receiver's answer appears
// without a reload.
func TestWebhookDeliveryRefreshes(t *testing.T) {
	t.Parallel()
	s := browsertest.StartServer(t)
	s.User(t, "ana@caribe.do", sello.RoleOwner)
	s.User(t, "luis@caribe.do", sello.RoleDeveloper)
	rcv := newReceiver(t, s)
	p := s.NewPage(t)
	p.Login("luis@caribe.do")
	p.Go("/portal/TesteCF/webhooks/nuevo")
	p.Fill("#webhook-url", rcv.srv.URL+"/sello")
	p.Submit("#webhook-add-submit")
	secret := p.Text("#webhook-secret")
	rcv.set(func(r *receiver) { r.secrets, r.slow = []string{secret}, 6*time.Second })
	p.Submit("#webhook-endpoint-link")
	p.Submit("#webhook-test")
	if !p.Has(`#delivery-attempts[hx-get]`) {
		t.Fatalf("the delivery's page does not wait for the slow receiver: %s", p.Body())
	}
	p.Look("webhook-delivery-waiting")
	p.SwapUntil("#delivery-answer-status", 15*time.Second)
	if got := p.Text("#delivery-answer-status"); got != "HTTP 200" {
		t.Errorf("after htmx's refresh the answer is %q", got)
	}
}

// waitDelivery waits, reloading the delivery's page, until its state is
// state (a pending delivery's page is reloaded by the person; htmx's own
// refresh is TestWebhookDeliveryRefreshes's).
func waitDelivery(t *testing.T, p *browsertest.Page, state string) {
	t.Helper()
	path := p.Path()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if strings.Contains(p.Attr("#delivery-state span", "class"), "state-delivery-"+state) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery %s is not %s after 15 s: %s", path, state, p.Body())
		}
		time.Sleep(200 * time.Millisecond)
		p.Go(path)
	}
}

// failedDeliveries opens the failed deliveries of TesteCF and waits until
// there are n; it returns their rows' ids.
func failedDeliveries(t *testing.T, p *browsertest.Page, n int) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		p.Go("/portal/TesteCF/webhooks/entregas?estado=fallidas")
		rows := browsertest.Eval[[]string](p, `Array.from(document.querySelectorAll('#deliveries tbody tr'), (tr) => tr.id)`)
		if len(rows) == n {
			return rows
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d failed deliveries after 15 s, want %d: %s", len(rows), n, p.Body())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitFor waits up to 15 s for cond.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
