package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgiisim"
	"github.com/sello-do/sello/xmldsig"
)

// TestKillInbound kills the server (SIGKILL) in the middle of a burst of
// suppliers' e-CFs posted to the demo buyer's receiver, restarts it on the
// same data, and checks that every acuse it answered (Estado 0) is stored,
// and that nothing is stored twice.
func TestKillInbound(t *testing.T) {
	bin := mustBuild(t)
	data := t.TempDir()
	addr := freeAddr(t)
	args := []string{"serve", "--demo", "--data", data, "--addr", addr}
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
			Documents []struct{ ENCF string } `json:"documents"`
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
	t.Logf("%d acknowledged before the kill, %d stored", len(acknowledged), len(stored))
}
