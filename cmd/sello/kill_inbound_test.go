package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// TestKillInbound kills the server (SIGKILL) in the middle of a burst of
// suppliers' e-CFs posted to the demo buyer's receiver, restarts it on the
// same data, and checks that every acuse it answered (Estado 0) is stored,
// that nothing is stored twice, and that every stored document gets
// confirmed with DGII (its confirmation queued in the store survives the
// kill).
func TestKillInbound(t *testing.T) {
	bin := mustBuild(t)
	data := t.TempDir()
	addr := freeAddr(t)
	// A confirmation job the kill cuts off runs again after
	// --job-rescue-after.
	args := []string{"serve", "--demo", "--data", data, "--addr", addr, "--job-rescue-after", "10s"}
	first := startProcess(t, bin, args)
	key := first.buyerKeys[sello.EnvTest]
	base := "http://" + addr
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
		return demoBuyerName, base + "/" + string(env) + "/receptor/" + rnc, true
	}})

	// The burst: suppliers post until the kill, which comes once 40
	// acuses were answered.
	var mu sync.Mutex
	var acknowledged []string
	var stop atomic.Bool
	var wg sync.WaitGroup
	enough := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	for range 6 {
		wg.Go(func() {
			for !stop.Load() {
				sent, err := sim.SendECF(t.Context(), client, sello.EnvTest, demoBuyerRNC)
				if err != nil || sent.Status != http.StatusOK || !bytes.Contains(sent.Body, []byte("<Estado>0</Estado>")) {
					continue // the process died under this post, or refused it
				}
				mu.Lock()
				if acknowledged = append(acknowledged, sent.ENCF); len(acknowledged) == 40 {
					close(enough)
				}
				mu.Unlock()
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(60 * time.Second):
		stop.Store(true)
		wg.Wait()
		first.kill(t)
		t.Fatalf("only %d acuses in 60 s", len(acknowledged))
	}
	first.kill(t)
	stop.Store(true)
	wg.Wait()

	second := startProcess(t, bin, args)
	defer second.terminate(t)
	stored := map[string]int{}
	cursor := ""
	for {
		path := base + "/TesteCF/documentos-recibidos?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		req, _ := http.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("X-API-KEY", key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Documents []struct{ ENCF string } `json:"data"`
			Next      *string                 `json:"nextCursor"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list: %d %v", resp.StatusCode, err)
		}
		for _, d := range page.Documents {
			stored[d.ENCF]++
		}
		if page.Next == nil || *page.Next == "" {
			break
		}
		cursor = *page.Next
	}
	for encf, n := range stored {
		if n != 1 {
			t.Errorf("%s stored %d times", encf, n)
		}
	}
	for _, encf := range acknowledged {
		if stored[encf] != 1 {
			t.Errorf("%s was acknowledged (Estado 0) but is not stored", encf)
		}
	}
	// Every stored document is confirmed with DGII (the demo's own, which
	// knows none of them: not_found), those whose confirmation the kill
	// left queued too.
	if !testwait.Within(60*time.Second, 100*time.Millisecond, func() bool {
		req, _ := http.NewRequest(http.MethodGet, base+"/TesteCF/documentos-recibidos?dgii=pending&limit=1", nil)
		req.Header.Set("X-API-KEY", key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct {
			Documents []json.RawMessage `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("list pending: %d %v", resp.StatusCode, err)
		}
		return len(page.Documents) == 0
	}) {
		t.Fatal("documents still pending DGII's confirmation 60 s after the restart")
	}
	t.Logf("%d acknowledged before the kill, %d stored", len(acknowledged), len(stored))
}

// TestDeliveryReceiverDownThenBack runs the buyer on a server of its own:
// the issuer's server delivers an accepted e-CF while the buyer's is down,
// fails, retries, and delivers once the buyer's server is back; the buyer
// stores it once.
func TestDeliveryReceiverDownThenBack(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { testReceiverDownThenBack(t) })
	t.Run("PostgreSQL", func(t *testing.T) { testReceiverDownThenBack(t, "--database-url", pgtest.MustSchema(t)) })
}

func testReceiverDownThenBack(t *testing.T, issuerStorage ...string) {
	bin := mustBuild(t)
	sign, err := simulatorSigner()
	if err != nil {
		t.Fatal(err)
	}
	buyerAddr := freeAddr(t)
	sim := dgiisim.New(dgiisim.Config{Verify: xmldsig.Verify, Sign: sign, ProcessingDelay: 100 * time.Millisecond,
		Receivers: func(env sello.Environment, rnc string) (string, string, bool) {
			return demoBuyerName, "http://" + buyerAddr + "/" + string(env) + "/receptor/" + rnc, rnc == demoBuyerRNC
		}})
	ts := httptest.NewServer(sim)
	defer ts.Close()
	// The buyer's server, started once to seed its data, then down.
	buyerArgs := []string{"serve", "--demo", "--data", t.TempDir(), "--addr", buyerAddr, "--dgii-url", ts.URL}
	buyer := startProcess(t, bin, buyerArgs)
	buyerKey := buyer.buyerKeys[sello.EnvTest]
	buyer.terminate(t)

	issuer := MustRunServer(t, append([]string{"--dgii-url", ts.URL, "--dgii-timeout", "2s", "--delivery-first-retry", "300ms"}, issuerStorage...)...)
	key := issuer.Keys[sello.EnvTest]
	encf := document(t, issuer.Do(t, request{Method: "POST", Path: docsPath, Key: key, Body: invoice(withBuyer(demoBuyerRNC))}))["encf"].(string)
	if d := issuer.final(t, key, encf); d["status"] != string(sello.StatusAccepted) {
		t.Fatalf("%s: %v", encf, d["status"])
	}
	// The first delivery runs at the acceptance, into the closed port: give
	// it the time of one run and see it still pending.
	if testwait.Within(500*time.Millisecond, 20*time.Millisecond, func() bool {
		d := issuer.Do(t, request{Method: "GET", Path: docsPath + "/" + encf, Key: key}).JSON(t)["document"].(map[string]any)
		return d["delivery"].(map[string]any)["status"] != sello.DeliveryPending
	}) {
		t.Fatal("delivered while the buyer's server was down")
	}

	back := startProcess(t, bin, buyerArgs)
	defer back.terminate(t)
	issuer.waitFor(t, key, encf, func(d map[string]any) bool {
		return d["delivery"].(map[string]any)["status"] == sello.DeliveryDelivered
	})
	req, _ := http.NewRequest(http.MethodGet, "http://"+buyerAddr+"/TesteCF/documentos-recibidos", nil)
	req.Header.Set("X-API-KEY", buyerKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Documents []struct{ ENCF string } `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || len(page.Documents) != 1 || page.Documents[0].ENCF != encf {
		t.Fatalf("the buyer's received documents: %+v, %v", page.Documents, err)
	}
}
