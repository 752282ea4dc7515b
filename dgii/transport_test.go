package dgii_test

import (
	"context"
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

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestSendOneWrite checks that NewTransport sends a signed e-CF, its
// header and its multipart body, in one write: Go's 4 KiB default buffer
// took three system calls for a 10 KB e-CF.
func TestSendOneWrite(t *testing.T) {
	sim := dgiisim.New(dgiisim.Config{Verify: dgiisim.FakeVerify})
	srv := httptest.NewServer(sim)
	defer srv.Close()
	tr := dgii.NewTransport()
	defer tr.CloseIdleConnections()
	var writes atomic.Int64
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: c, writes: &writes}, nil
	}
	c := dgii.New(dgii.Config{
		URLs:       dgii.URLs{ECF: srv.URL, FC: srv.URL},
		HTTPClient: &http.Client{Transport: tr, Timeout: 10 * time.Second},
	})
	sess := c.Session(sello.EnvTest, issuer, dgiisim.FakeSign)
	if _, err := sess.Result(t.Context(), "00000000-0000-0000-0000-000000000000"); err != nil { // authenticates
		t.Fatal(err)
	}
	xml := doc{encf: encf(9), pad: 10_000}.signed(t)
	if len(xml) < 10_000 {
		t.Fatalf("the e-CF is %d bytes; the test wants one over 10 KB", len(xml))
	}
	before := writes.Load()
	if _, err := sess.SendECF(t.Context(), encf(9), xml); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load() - before; n != 1 {
		t.Errorf("a %d-byte e-CF went out in %d writes, want 1", len(xml), n)
	}
}
