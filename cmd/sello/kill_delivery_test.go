package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/internal/testwait"
	"github.com/sello-do/sello/postgres/pgtest"
	"github.com/sello-do/sello/xmldsig"
)

// TestKillBetweenVerdictAndDelivery kills the server (SIGKILL) after DGII's
// acceptance of a B2B invoice was recorded and while the document's job is
// delivering it (the buyer's receiver holds the post), restarts it on the
// same data, and checks that the document still gets delivered, once:
// the verdict's transaction queued no DeliveryJob, and River's rescue runs
// the document's job again, which finds the delivery due.
func TestKillBetweenVerdictAndDelivery(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testKillBetweenVerdictAndDelivery(t) })
	t.Run("PostgreSQL", func(t *testing.T) {
		testKillBetweenVerdictAndDelivery(t, "--database-url", pgtest.MustSchema(t))
	})
}

func testKillBetweenVerdictAndDelivery(t *testing.T, storage ...string) {
	bin := mustBuild(t)
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: 100 * time.Millisecond})
	// DGII and the buyer's receiver (the simulator's, as its directory
	// names it: this server's address); while hold is set, the receiver
	// holds every post it gets, unanswered.
	var hold atomic.Bool
	hold.Store(true)
	posted, released := make(chan struct{}), make(chan struct{})
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() && r.Method == http.MethodPost && strings.HasSuffix(strings.ToLower(r.URL.Path), "/fe/recepcion/api/ecf") {
			// Read the post whole, or the server would not see the
			// client's connection close.
			io.Copy(io.Discard, r.Body)
			once.Do(func() { close(posted) })
			select {
			case <-r.Context().Done():
			case <-released:
			}
			return
		}
		sim.ServeHTTP(w, r)
	}))
	defer ts.Close()

	addr := freeAddr(t)
	args := append([]string{"serve", "--demo", "--data", t.TempDir(), "--addr", addr, "--dgii-url", ts.URL,
		"--dgii-timeout", "2s", "--job-rescue-after", "6s"}, storage...)
	first := startProcess(t, bin, args)
	key := first.keys[sello.EnvTest]
	base := "http://" + addr
	client := &http.Client{Timeout: 5 * time.Second}
	encf, err := post(client, base, key, invoice(withBuyer(dgiisim.RNCDirectoryNoAuth)))
	if err != nil {
		first.kill(t)
		t.Fatal(err)
	}
	select {
	case <-posted:
	case <-time.After(30 * time.Second):
		first.kill(t)
		t.Fatal("no delivery to the buyer 30 s after the create")
	}
	// The verdict is committed, the delivery not: the kill comes between.
	if d := getDocument(t, client, base, key, encf); d.Status != sello.StatusAccepted || d.Delivery.Status != sello.DeliveryPending {
		first.kill(t)
		t.Fatalf("before the kill: status %s, delivery %s; want accepted, pending", d.Status, d.Delivery.Status)
	}
	first.kill(t)
	hold.Store(false)
	close(released)

	second := startProcess(t, bin, args)
	defer second.terminate(t)
	var d docView
	if !testwait.Within(2*time.Minute, 100*time.Millisecond, func() bool {
		d = getDocument(t, client, base, key, encf)
		return d.Delivery.Status != sello.DeliveryPending
	}) {
		t.Fatal("delivery still pending 2 minutes after the restart")
	}
	if d.Delivery.Status != sello.DeliveryDelivered {
		t.Fatalf("delivery %+v, want delivered", d.Delivery)
	}
	for _, r := range sim.Receipts() {
		if r.ENCF == encf && r.Posts != 1 {
			t.Errorf("the buyer received %s %d times, want once", encf, r.Posts)
		}
	}
	sends := 0
	for _, s := range sim.Sends() {
		if s.ENCF == encf {
			sends++
		}
	}
	if sends != 1 {
		t.Errorf("DGII received %s %d times, want once", encf, sends)
	}
}

// docView is the part of a document the kill tests read.
type docView struct {
	Status   sello.Status   `json:"status"`
	Delivery sello.Delivery `json:"delivery"`
}

// getDocument reads a document by e-NCF.
func getDocument(t *testing.T, c *http.Client, base, key, encf string) docView {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+docsPath+"/"+encf, nil)
	req.Header.Set("X-API-KEY", key)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Document docView `json:"document"`
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", encf, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r.Document
}
