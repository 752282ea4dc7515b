package client_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sello-do/sello/client"
)

// batch is a status/batch answer holding docJSON with status.
func batch(status string) func(w http.ResponseWriter, r *http.Request) {
	doc := strings.Replace(docJSON, `"queued_for_signing"`, `"`+status+`"`, 1)
	return answer(http.StatusOK, `{"ok":true,"results":[{"encf":"E310000000001","found":true,"document":`+doc+`}],"correlationId":"cid-200"}`)
}

func TestWaitForVerdict(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		api := newFakeAPI(t, batch("queued_for_signing"), batch("signed"), batch("submitted"), batch("submitted"), batch("rejected"))
		c, s := mustClient(t, api.srv.URL)
		doc, err := c.WaitForVerdict(t.Context(), "E310000000001")
		if err != nil || doc.Status != client.StatusRejected {
			t.Fatalf("got %+v, %v; want the rejected document", doc, err)
		}
		if got, want := s.got(), []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(got, want) {
			t.Errorf("waits %v, want %v", got, want)
		}
		for _, r := range api.requests() {
			if r.Method != "POST" || r.URL.Path != "/TesteCF/documentos-ecf/status/batch" {
				t.Fatalf("%s %s, want the status batch", r.Method, r.URL.Path)
			}
		}
	})

	t.Run("HonoursRetryAfter", func(t *testing.T) {
		// A Retry-After beyond the retry policy's MaxDelay ends the call
		// with the 429; WaitForVerdict waits it out and asks again.
		limited := answer(429, `{"ok":false,"error":{"code":"RATE_LIMITED","message":"m","retryAfterSeconds":90},"correlationId":"c"}`, "Retry-After", "90")
		api := newFakeAPI(t, batch("submitted"), limited, batch("accepted"))
		c, s := mustClient(t, api.srv.URL)
		doc, err := c.WaitForVerdict(t.Context(), "E310000000001")
		if err != nil || doc.Status != client.StatusAccepted {
			t.Fatalf("got %+v, %v", doc, err)
		}
		if got, want := s.got(), []time.Duration{500 * time.Millisecond, 90 * time.Second}; !slices.Equal(got, want) {
			t.Errorf("waits %v, want %v (the second at Retry-After)", got, want)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		api := newFakeAPI(t, answer(http.StatusOK, `{"ok":true,"results":[{"encf":"E310000000001","found":false,"document":null}],"correlationId":"c"}`))
		c, s := mustClient(t, api.srv.URL)
		if _, err := c.WaitForVerdict(t.Context(), "E310000000001"); !client.IsNotFound(err) || len(s.got()) != 0 {
			t.Fatalf("error %v after waits %v; want NOT_FOUND at once", err, s.got())
		}
	})

	t.Run("ErrInsufficientScope", func(t *testing.T) {
		api := newFakeAPI(t, apiError("INSUFFICIENT_SCOPE", 403))
		c, _ := mustClient(t, api.srv.URL)
		if _, err := c.WaitForVerdict(t.Context(), "E310000000001"); !client.IsCode(err, client.CodeInsufficientScope) || len(api.requests()) != 1 {
			t.Fatalf("error %v after %d requests; want INSUFFICIENT_SCOPE at once", err, len(api.requests()))
		}
	})

	t.Run("ContextEnds", func(t *testing.T) {
		api := newFakeAPI(t, batch("submitted"))
		ctx, cancel := context.WithCancel(t.Context())
		c, _ := mustClient(t, api.srv.URL, client.WithSleep(func(ctx context.Context, d time.Duration) error {
			cancel()
			return ctx.Err()
		}))
		_, err := c.WaitForVerdict(ctx, "E310000000001")
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "status submitted") {
			t.Fatalf("error %v; want context.Canceled and the last status", err)
		}
	})
}
