package dgii_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
)

// TestOnCall checks that Config.OnCall hears of every call once it is
// over, the authentication's calls included, with its service and
// outcome.
func TestOnCall(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int // consultaresultado's answer; 0 lets the simulator answer
		cancel bool
		want   string
	}{
		{"OK", 0, false, dgii.CallOK},
		{"Unavailable", http.StatusServiceUnavailable, false, dgii.CallUnavailable},
		{"Refused", http.StatusBadRequest, false, dgii.CallRefused},
		{"Unauthorized", http.StatusUnauthorized, false, dgii.CallUnauthorized},
		{"Cancelled", 0, true, dgii.CallCancelled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var calls []dgii.Call
			f := newFixture(t, options{client: dgii.Config{Retries: -1, OnCall: func(c dgii.Call) {
				mu.Lock()
				defer mu.Unlock()
				calls = append(calls, c)
			}}})
			// Authenticate first, so that the call under test is the last.
			if _, err := f.sess.Result(t.Context(), "00000000-0000-0000-0000-000000000000"); err != nil {
				t.Fatal(err)
			}
			f.rec.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
				if tt.status == 0 || !strings.Contains(strings.ToLower(r.URL.Path), pResultado) {
					return false
				}
				w.WriteHeader(tt.status)
				return true
			})
			ctx, cancel := context.WithCancel(t.Context())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			_, err := f.sess.Result(ctx, "00000000-0000-0000-0000-000000000000")
			if (err == nil) != (tt.want == dgii.CallOK) {
				t.Fatalf("Result: %v, want outcome %s", err, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			var services []string
			for _, c := range calls {
				services = append(services, c.Service+":"+c.Outcome)
				if c.Environment != sello.EnvTest || c.Duration <= 0 {
					t.Errorf("call %+v: want environment TesteCF and a duration", c)
				}
			}
			want := []string{"semilla:ok", "validarsemilla:ok", "consultaresultado:ok"}
			if tt.status == http.StatusUnauthorized { // authenticates again, once
				want = append(want, "semilla:ok", "validarsemilla:ok")
			}
			want = append(want, "consultaresultado:"+tt.want)
			if strings.Join(services, " ") != strings.Join(want, " ") {
				t.Errorf("calls %v, want %v", services, want)
			}
		})
	}
}
