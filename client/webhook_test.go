package client_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello/client"
)

const (
	secret    = "whsec_3fa1c1b0d2e94c6b8f7a5e4d3c2b1a09"
	oldSecret = "whsec_old_0000000000000000000000000000"
)

var (
	now  = time.Unix(1_800_000_000, 0)
	body = []byte(`{"id":"0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e","type":"ecf.accepted","createdAt":"2026-11-22T14:03:07.123Z",` +
		`"tenantId":"t1","environment":"testecf","document":{"id":"0193a000-0000-7000-8000-000000000001","type":"E31",` +
		`"encf":"E310000000001","status":"accepted","trackId":"trk"},"data":{"severity":"info","message":"Aceptado","payload":{}}}`)
)

// sig is an independent implementation of spec §6.2, to check Sign against.
func sig(secret string, t int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.%s", t, body)
	return hex.EncodeToString(m.Sum(nil))
}

func TestSign(t *testing.T) {
	if got, want := client.Sign(secret, now.Unix(), body), sig(secret, now.Unix(), body); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	// A known answer: HMAC-SHA256("k", "1.{}").
	if got, want := client.Sign("k", 1, []byte("{}")), sig("k", 1, []byte("{}")); got != want || len(got) != 64 {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	h := client.SignatureHeader(now, body, secret, oldSecret)
	want := "t=1800000000,v1=" + sig(secret, now.Unix(), body) + ",v1=" + sig(oldSecret, now.Unix(), body)
	if h != want {
		t.Fatalf("SignatureHeader = %s, want %s", h, want)
	}
}

func TestVerifyWebhook(t *testing.T) {
	ts := now.Unix()
	v1 := func(s string, t int64) string { return "v1=" + sig(s, t, body) }
	tstr := strconv.FormatInt(ts, 10)
	for _, tt := range []struct {
		name    string
		payload []byte
		header  string
		secrets []string
		now     time.Time
		want    error
	}{
		{"OK", body, "t=" + tstr + "," + v1(secret, ts), []string{secret}, now, nil},
		{"OKSpacesAfterCommas", body, "t=" + tstr + ", " + v1(secret, ts), []string{secret}, now, nil},
		{"OKUppercaseHex", body, "t=" + tstr + ",v1=" + strings.ToUpper(sig(secret, ts, body)), []string{secret}, now, nil},
		{"OKTwoV1OneValid", body, "t=" + tstr + "," + v1("whsec_new_unknown", ts) + "," + v1(secret, ts), []string{secret}, now, nil},
		{"OKTwoSecretsDuringRotation", body, "t=" + tstr + "," + v1(oldSecret, ts), []string{secret, oldSecret}, now, nil},
		{"OKV0Ignored", body, "t=" + tstr + ",v0=deadbeef," + v1(secret, ts), []string{secret}, now, nil},
		{"OKExactly300sOld", body, "t=" + tstr + "," + v1(secret, ts), []string{secret}, now.Add(300 * time.Second), nil},
		{"OKExactly300sAhead", body, "t=" + tstr + "," + v1(secret, ts), []string{secret}, now.Add(-300 * time.Second), nil},
		{"ErrSignatureMismatchTamperedBody", []byte(strings.Replace(string(body), "accepted", "rejected", 1)), "t=" + tstr + "," + v1(secret, ts), []string{secret}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchReserialized", []byte(strings.ReplaceAll(string(body), ",", ", ")), "t=" + tstr + "," + v1(secret, ts), []string{secret}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchWrongSecret", body, "t=" + tstr + "," + v1(secret, ts), []string{"whsec_wrong"}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchNoSecrets", body, "t=" + tstr + "," + v1(secret, ts), nil, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchEmptySecret", body, "t=" + tstr + "," + v1("", ts), []string{""}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchOtherT", body, "t=" + strconv.FormatInt(ts+1, 10) + "," + v1(secret, ts), []string{secret}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchNotHex", body, "t=" + tstr + ",v1=zz", []string{secret}, now, client.ErrSignatureMismatch},
		{"ErrSignatureMismatchTruncated", body, "t=" + tstr + ",v1=" + sig(secret, ts, body)[:62], []string{secret}, now, client.ErrSignatureMismatch},
		{"ErrTimestampOutOfTolerance301sOld", body, "t=" + tstr + "," + v1(secret, ts), []string{secret}, now.Add(301 * time.Second), client.ErrTimestampOutOfTolerance},
		{"ErrTimestampOutOfTolerance301sAhead", body, "t=" + tstr + "," + v1(secret, ts), []string{secret}, now.Add(-301 * time.Second), client.ErrTimestampOutOfTolerance},
		{"ErrInvalidTimestampAbc", body, "t=abc," + v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrInvalidTimestampSigned", body, "t=+" + tstr + "," + v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrInvalidTimestampFraction", body, "t=" + tstr + ".5," + v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrInvalidTimestampEmpty", body, "t=," + v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrInvalidTimestampMissing", body, v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrInvalidTimestampHuge", body, "t=99999999999999999999," + v1(secret, ts), []string{secret}, now, client.ErrInvalidTimestamp},
		{"ErrNoSignatureEmptyHeader", body, "", []string{secret}, now, client.ErrNoSignature},
		{"ErrNoSignatureMissingV1", body, "t=" + tstr, []string{secret}, now, client.ErrNoSignature},
		{"ErrNoSignatureV0Only", body, "t=" + tstr + ",v0=" + sig(secret, ts, body), []string{secret}, now, client.ErrNoSignature},
		{"ErrMalformedHeaderNoEquals", body, "t=" + tstr + ",v1", []string{secret}, now, client.ErrMalformedHeader},
		{"ErrMalformedHeaderTwoT", body, "t=" + tstr + ",t=" + tstr + "," + v1(secret, ts), []string{secret}, now, client.ErrMalformedHeader},
		{"ErrMalformedHeaderEmptyKey", body, "t=" + tstr + ",=x," + v1(secret, ts), []string{secret}, now, client.ErrMalformedHeader},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := client.VerifyWebhook(tt.payload, tt.header, tt.secrets, tt.now)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("VerifyWebhook: %v", err)
				}
				if ev.ID != "0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e" || ev.Type != client.EventECFAccepted || ev.Document.Status != client.StatusAccepted ||
					ev.Document.TrackID == nil || *ev.Document.TrackID != "trk" || !ev.CreatedAt.Equal(time.Date(2026, 11, 22, 14, 3, 7, 123e6, time.UTC)) {
					t.Fatalf("event %+v", ev)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if ev != nil {
				t.Fatal("an event came back with an error")
			}
			// The sentinels are distinct.
			for _, other := range []error{client.ErrNoSignature, client.ErrMalformedHeader, client.ErrInvalidTimestamp, client.ErrTimestampOutOfTolerance, client.ErrSignatureMismatch} {
				if other != tt.want && errors.Is(err, other) {
					t.Errorf("error %v is also %v", err, other)
				}
			}
		})
	}
}

func TestVerifyWebhookNotAnEvent(t *testing.T) {
	for _, payload := range []string{`not json`, `{"id":"","type":"x"}`, `[]`} {
		h := client.SignatureHeader(now, []byte(payload), secret)
		if _, err := client.VerifyWebhook([]byte(payload), h, []string{secret}, now); err == nil {
			t.Errorf("%s verified as an event", payload)
		}
		if err := client.VerifySignature([]byte(payload), h, []string{secret}, now); err != nil {
			t.Errorf("VerifySignature(%s): %v", payload, err)
		}
	}
}

// delivery builds a signed POST of body as Sello sends it.
func delivery(body []byte, t time.Time, secrets ...string) *http.Request {
	r := httptest.NewRequest("POST", "/webhooks/sello", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(client.HeaderSignature, client.SignatureHeader(t, body, secrets...))
	r.Header.Set(client.HeaderEventID, "0e8e2c3a-5f1d-4b7a-9c2e-6a1f0b3d4c5e")
	r.Header.Set(client.HeaderEventType, "ecf.accepted")
	return r
}

func TestWebhookHandler(t *testing.T) {
	var calls atomic.Int32
	var handleErr error
	h := client.WebhookHandler([]string{secret}, func(ctx context.Context, ev *client.Event) error {
		calls.Add(1)
		if ev.Document.ENCF != "E310000000001" {
			t.Errorf("handler got %+v", ev)
		}
		return handleErr
	})
	h.Now = func() time.Time { return now }
	var refused []error
	h.OnError = func(r *http.Request, err error) { refused = append(refused, err) }

	for _, tt := range []struct {
		name   string
		req    func() *http.Request
		fail   error
		status int
		calls  int32
	}{
		{"OK", func() *http.Request { return delivery(body, now, secret) }, nil, 200, 1},
		{"HandlerFails", func() *http.Request { return delivery(body, now, secret) }, errors.New("db down"), 500, 1},
		{"BadSignature", func() *http.Request { return delivery(body, now, "whsec_wrong") }, nil, 400, 0},
		{"Stale", func() *http.Request { return delivery(body, now.Add(-10*time.Minute), secret) }, nil, 400, 0},
		{"NoSignature", func() *http.Request {
			r := delivery(body, now, secret)
			r.Header.Del(client.HeaderSignature)
			return r
		}, nil, 400, 0},
		{"IDHeaderDiffers", func() *http.Request {
			r := delivery(body, now, secret)
			r.Header.Set(client.HeaderEventID, "11111111-1111-4111-8111-111111111111")
			return r
		}, nil, 400, 0},
		{"TypeHeaderDiffers", func() *http.Request {
			r := delivery(body, now, secret)
			r.Header.Set(client.HeaderEventType, "ecf.rejected")
			return r
		}, nil, 400, 0},
		{"TooLarge", func() *http.Request {
			big := append(append([]byte{}, body[:len(body)-1]...), []byte(`,"pad":"`+strings.Repeat("x", client.MaxWebhookBytes)+`"}`)...)
			return delivery(big, now, secret)
		}, nil, 413, 0},
		{"GET", func() *http.Request { return httptest.NewRequest("GET", "/webhooks/sello", nil) }, nil, 405, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls.Store(0)
			handleErr = tt.fail
			refused = nil
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, tt.req())
			if rec.Code != tt.status || calls.Load() != tt.calls {
				t.Fatalf("status %d, %d calls; want %d, %d (%v)", rec.Code, calls.Load(), tt.status, tt.calls, refused)
			}
			if (tt.status != 200) != (len(refused) == 1) {
				t.Fatalf("OnError told %v", refused)
			}
			if strings.Contains(rec.Body.String(), "db down") {
				t.Fatal("the handler's error reached the response")
			}
		})
	}
}

func TestIdempotent(t *testing.T) {
	store := client.NewMemoryEventStore()
	var applied []string
	fail := true
	handle := client.Idempotent(store, func(ctx context.Context, ev *client.Event) error {
		if fail {
			return errors.New("apply failed")
		}
		applied = append(applied, ev.ID)
		return nil
	})
	ev := &client.Event{ID: "e1", Type: client.EventECFAccepted}

	if err := handle(t.Context(), ev); err == nil || !strings.Contains(err.Error(), "apply failed") {
		t.Fatalf("first delivery: %v, want the handler's error", err)
	}
	fail = false
	if err := handle(t.Context(), ev); err != nil {
		t.Fatalf("retry after a failure: %v", err)
	}
	if err := handle(t.Context(), ev); err != nil {
		t.Fatalf("duplicate: %v", err)
	}
	if len(applied) != 1 {
		t.Fatalf("applied %v, want e1 once (the failed attempt released its claim, the duplicate did nothing)", applied)
	}
}

// failingStore fails its claims or releases.
type failingStore struct{ claimErr, releaseErr error }

func (s failingStore) Claim(context.Context, string) (bool, error) {
	return s.claimErr == nil, s.claimErr
}
func (s failingStore) Release(context.Context, string) error { return s.releaseErr }

func TestIdempotentStoreErrors(t *testing.T) {
	ev := &client.Event{ID: "e1", Type: client.EventECFAccepted}
	called := false
	handle := client.Idempotent(failingStore{claimErr: errors.New("db down")}, func(context.Context, *client.Event) error { called = true; return nil })
	if err := handle(t.Context(), ev); err == nil || called {
		t.Fatalf("claim failure: %v, called %v; want an error before the handler", err, called)
	}
	applyErr := errors.New("apply failed")
	handle = client.Idempotent(failingStore{releaseErr: errors.New("release lost")}, func(context.Context, *client.Event) error { return applyErr })
	if err := handle(t.Context(), ev); !errors.Is(err, applyErr) || !strings.Contains(err.Error(), "release lost") {
		t.Fatalf("release failure: %v, want both errors", err)
	}
}

// TestIdempotentWebhook runs the handler, the idempotent wrapper and a
// duplicate delivery together: Sello's retry is answered 200 with no effect.
func TestIdempotentWebhook(t *testing.T) {
	var applied atomic.Int32
	h := client.WebhookHandler([]string{secret}, client.Idempotent(client.NewMemoryEventStore(), func(context.Context, *client.Event) error {
		applied.Add(1)
		return nil
	}))
	h.Now = func() time.Time { return now }
	for i := range 3 {
		rec := httptest.NewRecorder()
		// Each attempt is signed anew with its own t.
		h.ServeHTTP(rec, delivery(body, now.Add(time.Duration(i)*time.Second), secret))
		if rec.Code != 200 {
			t.Fatalf("delivery %d: %d", i, rec.Code)
		}
	}
	if applied.Load() != 1 {
		t.Fatalf("applied %d times, want 1", applied.Load())
	}
}

func TestMemoryEventStoreConcurrentClaims(t *testing.T) {
	testConcurrentClaims(t, client.NewMemoryEventStore())
}

// testConcurrentClaims claims one id from many goroutines: exactly one wins.
func testConcurrentClaims(t *testing.T, store client.EventStore) {
	t.Helper()
	const n = 16
	var firsts atomic.Int32
	errs := make(chan error, n)
	for range n {
		go func() {
			first, err := store.Claim(context.Background(), "concurrent")
			if first {
				firsts.Add(1)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if firsts.Load() != 1 {
		t.Fatalf("%d claims won, want 1", firsts.Load())
	}
}
