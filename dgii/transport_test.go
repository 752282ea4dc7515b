package dgii_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/dgii"
	"github.com/sello-do/sello/dgiisim"
)

// TestConnectionsReused checks that many calls at once, round after
// round, reuse the client's connections instead of dialing per call (Go's
// default transport keeps 2 idle connections per host and closes the rest).
func TestConnectionsReused(t *testing.T) {
	sim := dgiisim.New(dgiisim.Config{Verify: dgiisim.FakeVerify})
	srv := httptest.NewUnstartedServer(sim)
	var dialed atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := dgii.NewTransport()
	defer tr.CloseIdleConnections()
	c := dgii.New(dgii.Config{
		URLs:       dgii.URLs{ECF: srv.URL, FC: srv.URL},
		HTTPClient: &http.Client{Transport: tr, Timeout: 10 * time.Second},
	})
	sess := c.Session(sello.EnvTest, issuer, dgiisim.FakeSign)

	const parallel, rounds = 32, 10
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				if _, err := sess.Result(t.Context(), "00000000-0000-0000-0000-000000000000"); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	// At most one connection per call in flight, plus authentication's.
	if n := dialed.Load(); n > parallel+2 {
		t.Errorf("%d calls (%d at once) opened %d connections; want at most %d", parallel*rounds, parallel, n, parallel+2)
	}
	if tr.TLSClientConfig.MinVersion < 0x0303 {
		t.Errorf("MinVersion %x, want TLS 1.2 or later", tr.TLSClientConfig.MinVersion)
	}
}
