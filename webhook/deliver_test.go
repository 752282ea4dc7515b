package webhook_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/webhook"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const version = "1.4.0"

var (
	secret    = "whsec_test-secret-0123456789abcdefghijklmnop"
	oldSecret = "whsec_old-secret-0123456789abcdefghijklmnopq"
	eventBody = []byte(`{"id":"5f0c2a8e-7d3b-4c1a-9e2f-000000000001","type":"ecf.accepted","createdAt":"2026-05-01T12:00:00.000Z"}`)
	at        = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
)

// received is one request as it reached a receiver.
type received struct {
	header http.Header
	body   []byte
}

// receiver is a webhook receiver on loopback that records every request
// and every connection made to it.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	reqs  []received
	conns atomic.Int32
}

// newReceiver starts a receiver answering with h (200 and no body if nil).
func newReceiver(tb testing.TB, h http.HandlerFunc) *receiver {
	tb.Helper()
	return startReceiver(tb, httptest.NewUnstartedServer(nil), h, false)
}

func startReceiver(tb testing.TB, srv *httptest.Server, h http.HandlerFunc, tls bool) *receiver {
	tb.Helper()
	r := &receiver{Server: srv}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, received{header: req.Header.Clone(), body: body})
		r.mu.Unlock()
		if h != nil {
			h(w, req)
		}
	})
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshake failures are expected
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	tb.Cleanup(srv.Close)
	return r
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// port is the receiver's port, for URLs naming another host.
func (r *receiver) port() string {
	u, _ := url.Parse(r.URL)
	return u.Port()
}

// newClient returns a client closed when the test ends.
func newClient(tb testing.TB, opts webhook.Options) *webhook.Client {
	tb.Helper()
	c := webhook.NewClient(opts)
	tb.Cleanup(c.Close)
	return c
}

// loopback is the test allowance.
var loopback = webhook.Options{AllowLoopback: true}

// resolver answers host names from a table; other names do not exist.
func resolver(table map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		ss, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var addrs []netip.Addr
		for _, s := range ss {
			addrs = append(addrs, netip.MustParseAddr(s))
		}
		return addrs, nil
	}
}

func request(u string) webhook.Request {
	return webhook.Request{
		URL:       u,
		EventID:   "5f0c2a8e-7d3b-4c1a-9e2f-000000000001",
		EventType: "ecf.accepted",
		Body:      eventBody,
		Secrets:   []string{secret},
		Version:   version,
		Now:       at,
	}
}

// wantClass fails unless a failed with class.
func wantClass(tb testing.TB, a webhook.Attempt, class webhook.ErrorClass) {
	tb.Helper()
	if a.Class != class {
		tb.Fatalf("class %q (%s), want %q", a.Class, a.Message, class)
	}
	if a.Message == "" {
		tb.Fatalf("class %q with no message", a.Class)
	}
	if a.Success() {
		tb.Fatal("a failed attempt reports success")
	}
}

func TestDeliverHeaders(t *testing.T) {
	r := newReceiver(t, nil)
	c := newClient(t, loopback)
	a := c.Deliver(t.Context(), request(r.URL+"/hooks/sello"))
	if !a.Success() {
		t.Fatalf("%s: %s", a.Class, a.Message)
	}
	reqs := r.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	got := reqs[0].header
	want := http.Header{
		"Content-Type":     {"application/json"},
		"User-Agent":       {"Sello-Webhooks/" + version},
		"Sello-Event-Id":   {"5f0c2a8e-7d3b-4c1a-9e2f-000000000001"},
		"Sello-Event-Type": {"ecf.accepted"},
		"Sello-Signature":  {"t=" + strconv.FormatInt(at.Unix(), 10) + ",v1=" + hmacHex(secret, strconv.FormatInt(at.Unix(), 10), eventBody)},
		"Content-Length":   {strconv.Itoa(len(eventBody))},
	}
	if len(got) != len(want) {
		t.Errorf("headers %v, want exactly %v", got, want)
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if !bytes.Equal(reqs[0].body, eventBody) {
		t.Errorf("body %q, want %q", reqs[0].body, eventBody)
	}
	// The attempt records what was sent.
	for _, k := range []string{"Content-Type", "User-Agent", "Sello-Event-Id", "Sello-Event-Type", "Sello-Signature"} {
		if a.RequestHeader.Get(k) != got.Get(k) {
			t.Errorf("recorded %s %q, sent %q", k, a.RequestHeader.Get(k), got.Get(k))
		}
	}
	if !bytes.Equal(a.RequestBody, eventBody) || !a.At.Equal(at) {
		t.Errorf("recorded body %q at %v", a.RequestBody, a.At)
	}
}

func TestDeliverDefaultVersion(t *testing.T) {
	r := newReceiver(t, nil)
	req := request(r.URL)
	req.Version = ""
	if a := newClient(t, loopback).Deliver(t.Context(), req); !a.Success() {
		t.Fatalf("%s: %s", a.Class, a.Message)
	}
	if got := r.requests()[0].header.Get("User-Agent"); got != "Sello-Webhooks/dev" {
		t.Fatalf("User-Agent %q", got)
	}
}

// TestDeliverSignature verifies deliveries as a receiver does (spec §6.2):
// each attempt carries its own t, and two secrets give two v1 values,
// newest first.
func TestDeliverSignature(t *testing.T) {
	r := newReceiver(t, nil)
	c := newClient(t, loopback)

	first := request(r.URL)
	second := request(r.URL)
	second.Now = at.Add(2*time.Hour + 7*time.Second)
	second.Secrets = []string{secret, oldSecret}
	for _, req := range []webhook.Request{first, second} {
		if a := c.Deliver(t.Context(), req); !a.Success() {
			t.Fatalf("%s: %s", a.Class, a.Message)
		}
	}
	reqs := r.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	t1, v1a := parseSignature(t, reqs[0].header.Get("Sello-Signature"))
	t2, v1b := parseSignature(t, reqs[1].header.Get("Sello-Signature"))
	if t1 != strconv.FormatInt(first.Now.Unix(), 10) || t2 != strconv.FormatInt(second.Now.Unix(), 10) {
		t.Fatalf("t = %s and %s, want each attempt's own time %d and %d", t1, t2, first.Now.Unix(), second.Now.Unix())
	}
	if len(v1a) != 1 || !hmac1(v1a[0], hmacHex(secret, t1, reqs[0].body)) {
		t.Errorf("first attempt v1 %v does not verify", v1a)
	}
	if len(v1b) != 2 || !hmac1(v1b[0], hmacHex(secret, t2, reqs[1].body)) || !hmac1(v1b[1], hmacHex(oldSecret, t2, reqs[1].body)) {
		t.Errorf("second attempt v1 %v: want the new secret's signature then the old one's", v1b)
	}
}

// hmac1 compares two hex signatures, as a receiver would (the constant
// time does not matter here).
func hmac1(got, want string) bool { return got == want }

func TestDeliverStatus(t *testing.T) {
	for _, c := range []struct {
		status             int
		success, gone, try bool
	}{
		{200, true, false, false},
		{201, true, false, false},
		{202, true, false, false},
		{204, true, false, false},
		{299, true, false, false},
		{400, false, false, true},
		{401, false, false, true},
		{404, false, false, true},
		{410, false, true, false},
		{429, false, false, true},
		{500, false, false, true},
		{503, false, false, true},
	} {
		t.Run(strconv.Itoa(c.status), func(t *testing.T) {
			r := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("X-Receiver", "yes")
				w.WriteHeader(c.status)
				if c.status != 204 {
					io.WriteString(w, `{"ok":false}`)
				}
			})
			a := newClient(t, loopback).Deliver(t.Context(), request(r.URL))
			if a.Status != c.status || a.Success() != c.success || a.Gone() != c.gone || a.Retryable() != c.try {
				t.Fatalf("status %d success %v gone %v retryable %v (%s: %s)", a.Status, a.Success(), a.Gone(), a.Retryable(), a.Class, a.Message)
			}
			if c.success {
				if a.Class != "" || a.Message != "" {
					t.Fatalf("success with class %q, message %q", a.Class, a.Message)
				}
			} else {
				wantClass(t, a, webhook.ClassHTTPStatus)
				if !strings.Contains(a.Message, strconv.Itoa(c.status)) {
					t.Errorf("message %q does not give the status", a.Message)
				}
			}
			if a.ResponseHeader.Get("X-Receiver") != "yes" {
				t.Errorf("response headers %v not recorded", a.ResponseHeader)
			}
			if c.status != 204 && string(a.ResponseBody) != `{"ok":false}` {
				t.Errorf("response body %q", a.ResponseBody)
			}
			if a.Latency <= 0 || a.RemoteIP != "127.0.0.1" {
				t.Errorf("latency %v, remote IP %q", a.Latency, a.RemoteIP)
			}
		})
	}
}

// TestDeliverRedirect: a 3xx is a failure and its target never hears from
// us.
func TestDeliverRedirect(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			target := newReceiver(t, nil)
			r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
				http.Redirect(w, req, target.URL+"/elsewhere", status)
			})
			a := newClient(t, loopback).Deliver(t.Context(), request(r.URL))
			wantClass(t, a, webhook.ClassHTTPStatus)
			if a.Status != status || !a.Retryable() {
				t.Fatalf("status %d retryable %v", a.Status, a.Retryable())
			}
			if !strings.Contains(a.Message, "not followed") || !strings.Contains(a.Message, "/elsewhere") {
				t.Errorf("message %q", a.Message)
			}
			if n := len(target.requests()); n != 0 || target.conns.Load() != 0 {
				t.Fatalf("the redirect target got %d requests, %d connections", n, target.conns.Load())
			}
			if n := len(r.requests()); n != 1 {
				t.Fatalf("the endpoint got %d requests, want 1", n)
			}
		})
	}
}

func TestDeliverTimeout(t *testing.T) {
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		<-req.Context().Done() // the client hangs up
	})
	c := newClient(t, webhook.Options{AllowLoopback: true, Timeout: 200 * time.Millisecond})
	a := c.Deliver(t.Context(), request(r.URL))
	wantClass(t, a, webhook.ClassTimeout)
	if a.Latency < 200*time.Millisecond || a.Latency > 5*time.Second {
		t.Errorf("latency %v, want about the 200ms timeout", a.Latency)
	}
	if a.RemoteIP != "127.0.0.1" || a.Status != 0 || !a.Retryable() {
		t.Errorf("remote IP %q, status %d, retryable %v", a.RemoteIP, a.Status, a.Retryable())
	}
}

// TestDeliverIgnoresProxyEnv: HTTP_PROXY does not route deliveries (the
// guard would see only the proxy's address).
func TestDeliverIgnoresProxyEnv(t *testing.T) {
	proxy := newReceiver(t, nil)
	r := newReceiver(t, nil)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	// A name, not 127.0.0.1: Go never proxies requests to loopback literals.
	c := newClient(t, webhook.Options{AllowLoopback: true,
		LookupNetIP: resolver(map[string][]string{"hooks.sello.test": {"127.0.0.1"}})})
	if a := c.Deliver(t.Context(), request("http://hooks.sello.test:"+r.port()+"/")); !a.Success() {
		t.Fatalf("%s: %s", a.Class, a.Message)
	}
	if n := proxy.conns.Load(); n != 0 {
		t.Fatalf("the proxy saw %d connections", n)
	}
	if n := len(r.requests()); n != 1 {
		t.Fatalf("the receiver got %d requests, want 1", n)
	}
}

// TestDeliverSlowBody: a status that arrived in time decides the attempt,
// even when the rest of the answer does not come.
func TestDeliverSlowBody(t *testing.T) {
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		<-req.Context().Done()
	})
	c := newClient(t, webhook.Options{AllowLoopback: true, Timeout: 200 * time.Millisecond})
	a := c.Deliver(t.Context(), request(r.URL))
	if !a.Success() || a.Status != 200 || string(a.ResponseBody) != "partial" {
		t.Fatalf("%s %s: status %d, body %q", a.Class, a.Message, a.Status, a.ResponseBody)
	}
	if a.Latency > 5*time.Second {
		t.Fatalf("latency %v: the slow body was not cut at the timeout", a.Latency)
	}
}

// TestDeliverCanceled: a canceled context is classed timeout, and says so.
func TestDeliverCanceled(t *testing.T) {
	started := make(chan struct{})
	r := newReceiver(t, func(w http.ResponseWriter, req *http.Request) {
		close(started)
		<-req.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	a := newClient(t, loopback).Deliver(ctx, request(r.URL))
	wantClass(t, a, webhook.ClassTimeout)
	if !strings.Contains(a.Message, "cancel") {
		t.Errorf("message %q does not say canceled", a.Message)
	}
}

func TestDeliverConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	a := newClient(t, loopback).Deliver(t.Context(), request("http://"+addr+"/hook"))
	wantClass(t, a, webhook.ClassConnect)
	if !strings.Contains(a.Message, "refused") || a.RemoteIP != "" || !a.Retryable() {
		t.Errorf("message %q, remote IP %q", a.Message, a.RemoteIP)
	}
}

// TestDeliverNotHTTP: a server that answers garbage is a connect failure.
func TestDeliverNotHTTP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := l.Accept()
		if err != nil {
			return
		}
		conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
		conn.Close()
	}()
	t.Cleanup(func() { l.Close(); <-done })
	a := newClient(t, loopback).Deliver(t.Context(), request("http://"+l.Addr().String()+"/"))
	wantClass(t, a, webhook.ClassConnect)
}

func TestDeliverDNS(t *testing.T) {
	for name, lookup := range map[string]func(context.Context, string) ([]netip.Addr, error){
		"NotFound": resolver(nil),
		"ServerFailure": func(context.Context, string) ([]netip.Addr, error) {
			return nil, &net.DNSError{Err: "server misbehaving", IsTemporary: true}
		},
		"OtherError": func(context.Context, string) ([]netip.Addr, error) {
			return nil, errors.New("resolver exploded")
		},
		"NoAddresses": func(context.Context, string) ([]netip.Addr, error) { return nil, nil },
	} {
		t.Run(name, func(t *testing.T) {
			c := newClient(t, webhook.Options{AllowLoopback: true, LookupNetIP: lookup})
			a := c.Deliver(t.Context(), request("https://hooks.nowhere.example/sello"))
			wantClass(t, a, webhook.ClassDNS)
			if !strings.Contains(a.Message, "hooks.nowhere.example") || a.RemoteIP != "" {
				t.Errorf("message %q, remote IP %q", a.Message, a.RemoteIP)
			}
		})
	}
}

func TestDeliverTLS(t *testing.T) {
	r := startReceiver(t, httptest.NewUnstartedServer(nil), nil, true)
	t.Run("Untrusted", func(t *testing.T) {
		// The system roots do not trust httptest's certificate.
		a := newClient(t, loopback).Deliver(t.Context(), request(r.URL))
		wantClass(t, a, webhook.ClassTLS)
		if !strings.Contains(a.Message, "certificate") {
			t.Errorf("message %q", a.Message)
		}
		if len(r.requests()) != 0 {
			t.Fatal("a request went out over an untrusted connection")
		}
	})
	t.Run("WrongHost", func(t *testing.T) {
		pool := x509.NewCertPool()
		pool.AddCert(r.Certificate())
		// httptest's certificate names 127.0.0.1 and example.com, not this.
		c := newClient(t, webhook.Options{AllowLoopback: true, RootCAs: pool,
			LookupNetIP: resolver(map[string][]string{"hooks.sello.test": {"127.0.0.1"}})})
		a := c.Deliver(t.Context(), request("https://hooks.sello.test:"+r.port()+"/"))
		wantClass(t, a, webhook.ClassTLS)
	})
	t.Run("Trusted", func(t *testing.T) {
		pool := x509.NewCertPool()
		pool.AddCert(r.Certificate())
		c := newClient(t, webhook.Options{AllowLoopback: true, RootCAs: pool})
		a := c.Deliver(t.Context(), request(r.URL))
		if !a.Success() {
			t.Fatalf("%s: %s", a.Class, a.Message)
		}
		if a.RemoteIP != "127.0.0.1" {
			t.Errorf("remote IP %q", a.RemoteIP)
		}
	})
	t.Run("TLS1.1Refused", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(nil)
		srv.TLS = tlsConfigMax11()
		old := startReceiver(t, srv, nil, true)
		pool := x509.NewCertPool()
		pool.AddCert(old.Certificate())
		a := newClient(t, webhook.Options{AllowLoopback: true, RootCAs: pool}).Deliver(t.Context(), request(old.URL))
		wantClass(t, a, webhook.ClassTLS)
		if len(old.requests()) != 0 {
			t.Fatal("a request went out over TLS 1.1")
		}
	})
}

// TestDeliverBlocked: the guard refuses before connecting; the receiver
// never sees a connection.
func TestDeliverBlocked(t *testing.T) {
	r := newReceiver(t, nil)
	for _, c := range []struct {
		name   string
		opts   webhook.Options
		url    string
		reason string
	}{
		{"LoopbackLiteral", webhook.Options{}, r.URL, "loopback"},
		{"MappedLoopbackLiteral", webhook.Options{}, "http://[::ffff:127.0.0.1]:" + r.port() + "/", "loopback"},
		{"NameResolvingToLoopback", webhook.Options{
			LookupNetIP: resolver(map[string][]string{"hooks.example.com": {"127.0.0.1"}})},
			"http://hooks.example.com:" + r.port() + "/", "hooks.example.com resolved to 127.0.0.1"},
		{"NameResolvingToMetadata", webhook.Options{
			LookupNetIP: resolver(map[string][]string{"metadata.example.com": {"169.254.169.254"}})},
			"http://metadata.example.com/latest/meta-data/", "link-local"},
		{"NameResolvingToNAT64Private", webhook.Options{
			LookupNetIP: resolver(map[string][]string{"v6only.example.com": {"64:ff9b::a00:5"}})},
			"https://v6only.example.com/", "10.0.0.5"},
		{"OneBadAddressAmongGood", webhook.Options{AllowLoopback: true,
			LookupNetIP: resolver(map[string][]string{"hooks.example.com": {"127.0.0.1", "10.0.0.1"}})},
			"http://hooks.example.com:" + r.port() + "/", "private"},
		{"LoopbackAllowanceIsLoopbackOnly", webhook.Options{AllowLoopback: true,
			LookupNetIP: resolver(map[string][]string{"hooks.example.com": {"192.168.1.10"}})},
			"http://hooks.example.com/", "private"},
		{"NotHTTP", webhook.Options{AllowLoopback: true}, "ftp://127.0.0.1:" + r.port() + "/", "http"},
		{"UserInfo", webhook.Options{AllowLoopback: true}, "http://u:p@127.0.0.1:" + r.port() + "/", "user name"},
		{"NoHost", webhook.Options{AllowLoopback: true}, "http:///x", "host is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newClient(t, c.opts).Deliver(t.Context(), request(c.url))
			wantClass(t, a, webhook.ClassBlocked)
			if !strings.Contains(a.Message, c.reason) {
				t.Errorf("message %q, want it to contain %q", a.Message, c.reason)
			}
			if a.RemoteIP != "" || a.Status != 0 {
				t.Errorf("remote IP %q, status %d", a.RemoteIP, a.Status)
			}
			if n := r.conns.Load(); n != 0 {
				t.Fatalf("the receiver saw %d connections", n)
			}
		})
	}
}

func TestDeliverTruncates(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1024) // 16 KiB
	for _, c := range []struct {
		name      string
		size      int
		truncated bool
	}{
		{"Small", 100, false},
		{"Exactly4KiB", sello.WebhookResponseBodyLimit, false},
		{"OneMore", sello.WebhookResponseBodyLimit + 1, true},
		{"16KiB", len(big), true},
		{"1MiB", 1 << 20, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(500)
				for n := c.size; n > 0; n -= len(big) {
					w.Write(big[:min(n, len(big))])
				}
			})
			a := newClient(t, loopback).Deliver(t.Context(), request(r.URL))
			want := big[:min(c.size, sello.WebhookResponseBodyLimit)]
			if !bytes.Equal(a.ResponseBody, want) || a.ResponseTruncated != c.truncated {
				t.Fatalf("kept %d bytes (truncated %v), want %d (%v)", len(a.ResponseBody), a.ResponseTruncated, len(want), c.truncated)
			}
			if a.Status != 500 {
				t.Fatalf("status %d", a.Status)
			}
		})
	}
}

// TestDeliverRemoteIP: the address recorded is the one dialed, also when
// the connection is reused.
func TestDeliverRemoteIP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener.Close()
	srv.Listener = l
	r := startReceiver(t, srv, nil, false)
	c := newClient(t, webhook.Options{AllowLoopback: true,
		LookupNetIP: resolver(map[string][]string{"hooks.sello.test": {"127.0.0.2"}})})
	for range 2 {
		a := c.Deliver(t.Context(), request("http://hooks.sello.test:"+r.port()+"/"))
		if !a.Success() || a.RemoteIP != "127.0.0.2" {
			t.Fatalf("%s %s, remote IP %q, want 127.0.0.2", a.Class, a.Message, a.RemoteIP)
		}
	}
	if n := r.conns.Load(); n != 1 {
		t.Errorf("%d connections for two deliveries, want 1 reused", n)
	}
}

func TestDeliverRetryAfter(t *testing.T) {
	for _, c := range []struct {
		status int
		value  string
		want   time.Duration
	}{
		{429, "120", 2 * time.Minute},
		{503, "30", 30 * time.Second},
		{503, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), time.Hour},
		{429, "soon", 0},
		{429, "-5", 0},
		{500, "120", 0}, // only 429 and 503 are read
		{429, "", 0},
	} {
		t.Run(strconv.Itoa(c.status)+"/"+c.value, func(t *testing.T) {
			r := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
				if c.value != "" {
					w.Header().Set("Retry-After", c.value)
				}
				w.WriteHeader(c.status)
			})
			a := newClient(t, loopback).Deliver(t.Context(), request(r.URL))
			if a.RetryAfter < c.want-5*time.Second || a.RetryAfter > c.want {
				t.Fatalf("RetryAfter %v, want %v", a.RetryAfter, c.want)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"0":                             0,
		"1":                             time.Second,
		"86400":                         24 * time.Hour,
		"999999999999":                  24 * time.Hour, // capped
		"99999999999999999999999":       0,              // not an int64
		"Fri, 01 May 2026 12:10:00 GMT": 10 * time.Minute,
		"Fri, 01 May 2026 11:00:00 GMT": 0, // past
		"Sat, 01 May 2027 12:00:00 GMT": 24 * time.Hour,
		"1.5":                           0,
	} {
		if got := webhook.ParseRetryAfter(v, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

// tlsConfigMax11 is a server that speaks only TLS 1.0 and 1.1.
func tlsConfigMax11() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
}

// TestConnectionsReused: concurrent requests to one host reuse the
// client's connections instead of dialing one each (the buyers' receivers
// get a request per accepted document).
func TestConnectionsReused(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	var dialed atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := webhook.NewClient(webhook.Options{AllowLoopback: true})
	defer c.Close()
	const parallel, rounds = 32, 10
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Go(func() {
				resp, err := c.HTTPClient().Post(srv.URL, "application/json", bytes.NewReader(eventBody))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	if n := dialed.Load(); n > parallel {
		t.Errorf("%d requests (%d at once) opened %d connections; want at most %d", parallel*rounds, parallel, n, parallel)
	}
}
