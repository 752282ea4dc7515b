package client_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/sello-do/sello/client"
)

// A receiver verifies each delivery, applies each event once, and answers
// 200; a forged delivery gets 400 and never reaches the handler.
func ExampleWebhookHandler() {
	secret := os.Getenv("SELLO_WEBHOOK_SECRET")
	if secret == "" {
		secret = "whsec_example"
	}
	store := client.NewMemoryEventStore() // or client.NewSQLEventStore(db)
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/sello", client.WebhookHandler([]string{secret},
		client.Idempotent(store, func(ctx context.Context, ev *client.Event) error {
			if ev.Document != nil {
				fmt.Printf("%s: %s is %s\n", ev.Type, ev.Document.ENCF, ev.Document.Status)
			}
			return nil // an error answers 500 and Sello retries
		})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// What Sello sends.
	body := `{"id":"0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e","type":"ecf.accepted","createdAt":"2026-11-22T14:03:07.123Z","tenantId":"t1","environment":"testecf",` +
		`"document":{"id":"0193a000-0000-7000-8000-000000000001","type":"E31","encf":"E310000000001","status":"accepted","trackId":"trk"},"data":{"severity":"info","message":"Aceptado","payload":{}}}`
	post := func(signWith string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/webhooks/sello", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(client.HeaderSignature, client.SignatureHeader(time.Now(), []byte(body), signWith))
		req.Header.Set(client.HeaderEventID, "0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e")
		req.Header.Set(client.HeaderEventType, "ecf.accepted")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println(post(secret))
	fmt.Println(post(secret)) // a duplicate: 200, no effect
	fmt.Println(post("whsec_forged"))
	// Output:
	// ecf.accepted: E310000000001 is accepted
	// 200
	// 200
	// 400
}

// Verifying by hand, in a handler of your own: read the raw body first, and
// verify it before parsing.
func ExampleVerifyWebhook() {
	secrets := []string{"whsec_new", "whsec_old"} // during a rotation, both
	handler := func(w http.ResponseWriter, r *http.Request) {
		payload, err := io.ReadAll(io.LimitReader(r.Body, client.MaxWebhookBytes))
		if err != nil {
			http.Error(w, "read", http.StatusBadRequest)
			return
		}
		ev, err := client.VerifyWebhook(payload, r.Header.Get(client.HeaderSignature), secrets, time.Now())
		if err != nil {
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		fmt.Println("verified", ev.Type)
		w.WriteHeader(http.StatusOK)
	}

	body := []byte(`{"id":"e1","type":"sequence.low","createdAt":"2026-11-22T14:03:07.123Z","tenantId":"t1","environment":"ecf","document":null,"data":{"severity":"warning","message":"…","payload":{}}}`)
	req := httptest.NewRequest("POST", "/", strings.NewReader(string(body)))
	req.Header.Set(client.HeaderSignature, client.SignatureHeader(time.Now(), body, "whsec_old"))
	rec := httptest.NewRecorder()
	handler(rec, req)
	fmt.Println(rec.Code)
	// Output:
	// verified sequence.low
	// 200
}
