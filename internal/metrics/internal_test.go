package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestLimitName(t *testing.T) {
	for _, tt := range []struct{ key, want string }{
		{"key:0192f0e4-aaaa", "api_key"},
		{"receptor:addr:192.0.2.7", "receiver_address"},
		{"receptor:addr:2001:db8::/64", "receiver_address"},
		{"receptor:rnc:eCF:130000001", "receiver"},
		{"portal-login-address:192.0.2.7", "portal_login_address"},
		{"portal-login-account:ana@example.com", "portal_login_account"},
		{"portal-invite-email:tenant:ana@example.com", "portal_invite_email"},
		{"receptor:other:x", "other"},
		{"portal-Ünïcode:x", "other"},
		{"ana@example.com", "other"},
		{"", "other"},
	} {
		if got := limitName(tt.key); got != tt.want {
			t.Errorf("limitName(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestParseVmHWM(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   int64
	}{
		{"Name:\tsello\nVmPeak:\t 2000000 kB\nVmHWM:\t   91234 kB\nVmRSS:\t   81234 kB\n", 91234 << 10},
		{"Name:\tsello\nVmRSS:\t   81234 kB\n", 0},
		{"VmHWM:\t   91234 MB\n", 0},
		{"VmHWM:\t   many kB\n", 0},
	} {
		if got := parseVmHWM([]byte(tt.status)); got != tt.want {
			t.Errorf("parseVmHWM(%q) = %d, want %d", tt.status, got, tt.want)
		}
	}
}

// TestInstrumentStatus checks the status recorded: the first written, 200
// for a handler that writes nothing, and never an informational 1xx; and
// that http.ResponseController still reaches the connection's writer.
func TestInstrumentStatus(t *testing.T) {
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"Nothing", func(http.ResponseWriter, *http.Request) {}, "200"},
		{"Body", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("x")) }, "200"},
		{"Twice", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(201); w.WriteHeader(500) }, "201"},
		{"EarlyHints", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(103); w.WriteHeader(204) }, "204"},
		{"Controller", func(w http.ResponseWriter, _ *http.Request) {
			if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
				w.WriteHeader(500)
				return
			}
			w.WriteHeader(202)
		}, "202"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{})
			mux := http.NewServeMux()
			mux.Handle("GET /x", tt.handler)
			srv := httptest.NewServer(m.Instrument(mux))
			defer srv.Close()
			resp, err := http.Get(srv.URL + "/x")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var codes []string
			ch := make(chan prometheus.Metric, 10)
			m.httpDuration.Collect(ch)
			close(ch)
			for pm := range ch {
				var d dto.Metric
				if err := pm.Write(&d); err != nil {
					t.Fatal(err)
				}
				for _, l := range d.GetLabel() {
					if l.GetName() == "code" {
						codes = append(codes, l.GetValue())
					}
				}
			}
			if len(codes) != 1 || codes[0] != tt.want {
				t.Errorf("codes recorded %v, want [%s]", codes, tt.want)
			}
		})
	}
}
