package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// DefaultTimeout bounds one delivery attempt: connecting, sending and
// reading the response (DESIGN §5).
const DefaultTimeout = 15 * time.Second

// Options configure a Client. The zero value is the production policy.
type Options struct {
	// Timeout bounds each attempt, from dialing to the end of reading the
	// response. Zero means DefaultTimeout.
	Timeout time.Duration
	// AllowLoopback lets deliveries reach 127.0.0.0/8 and ::1 on any port,
	// and nothing else private: for tests and local demos. The caller
	// refuses it for the production environment.
	AllowLoopback bool
	// LookupNetIP resolves a host name to its addresses. Nil means
	// net.DefaultResolver.LookupNetIP(ctx, "ip", host). Tests inject one.
	LookupNetIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// RootCAs verifies servers' certificates. Nil means the system roots.
	RootCAs *x509.CertPool
	// MaxConnsPerHost caps concurrent connections to one host; zero means
	// no cap.
	MaxConnsPerHost int
}

// MaxIdleConnsPerHost is how many idle connections a Client keeps to each
// host: about as many requests as run at once to one receiver (a burst of
// one tenant's events to its endpoint, or of accepted documents to one
// buyer's receiver services, which use the same clients), so that they
// reuse their connections. With a handful, most requests of a burst dialed
// (and, over TLS, shook hands) again and closed their connection after
// one request (docs/benchmarks.md).
const MaxIdleConnsPerHost = 64

// Client delivers webhooks. It is safe for concurrent use; one per process
// shares its connection pool across deliveries.
type Client struct {
	hc      *http.Client
	timeout time.Duration
}

// NewClient returns a Client with the SSRF guard: every connection is to an
// address CheckAddr allows, checked on the resolved address at dial time;
// no proxy (the environment's HTTP_PROXY is ignored); redirects are never
// followed; TLS 1.2 or later, verified against the system roots (or
// opts.RootCAs); each attempt bounded by opts.Timeout.
//
// Any port is allowed on a public address. The risk the guard stops is
// reaching the private side of our network; the port does not change
// which network an address is on, and every non-public address is refused
// whatever the port. Receivers often listen on 8443 or 8080, and Svix and
// Stripe deliver to any port too.
func NewClient(opts Options) *Client {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	lookup := opts.LookupNetIP
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	d := &dialer{allowLoopback: opts.AllowLoopback, lookup: lookup}
	d.d = net.Dialer{Timeout: timeout, Control: d.control}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true, // a custom DialContext turns HTTP/2 off otherwise
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		DisableCompression:     true, // send exactly our headers; keep the receiver's bytes
		MaxIdleConns:           4 * MaxIdleConnsPerHost,
		MaxIdleConnsPerHost:    MaxIdleConnsPerHost,
		MaxConnsPerHost:        opts.MaxConnsPerHost,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &Client{
		hc: &http.Client{
			Transport: tr,
			Timeout:   timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		timeout: timeout,
	}
}

// Close closes the idle connections of the pool.
func (c *Client) Close() {
	c.hc.CloseIdleConnections()
}

// dialer resolves host names itself, refuses the whole target when any of
// its addresses is blocked (clearer than "works on some attempts"), then
// dials the addresses in turn. Its net.Dialer checks the address again in
// Control, on the socket about to connect: nothing reaches connect(2)
// without passing CheckAddr.
type dialer struct {
	allowLoopback bool
	lookup        func(ctx context.Context, host string) ([]netip.Addr, error)
	d             net.Dialer
}

// DialContext is the Transport's dial function.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &BlockedError{Reason: "the address " + strconv.Quote(address) + " is not host:port"}}
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &BlockedError{Reason: "port " + strconv.Quote(portStr) + " is not valid"}}
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
		host = ""
	} else {
		addrs, err = d.lookup(ctx, host)
		if err != nil {
			var de *net.DNSError
			if !errors.As(err, &de) {
				return nil, &net.DNSError{Err: err.Error(), Name: host}
			}
			if de.Name == "" {
				named := *de
				named.Name = host
				return nil, &named
			}
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for _, a := range addrs {
		if reason := blockedReason(a, d.allowLoopback); reason != "" {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &BlockedError{Host: host, Addr: a, Reason: reason}}
		}
	}
	var first error
	for _, a := range addrs {
		a = a.Unmap()
		if network == "tcp4" && !a.Is4() || network == "tcp6" && !a.Is6() {
			continue
		}
		conn, err := d.d.DialContext(ctx, network, netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if first == nil {
		first = &net.OpError{Op: "dial", Net: network, Err: errors.New("no address of the host's family")}
	}
	return nil, first
}

// control is the net.Dialer's Control: it runs on the resolved address
// after the socket is created and before it connects.
func (d *dialer) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return &BlockedError{Reason: "network " + network + " is not TCP"}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Reason: "the address " + strconv.Quote(address) + " is not ip:port"}
	}
	if reason := blockedReason(ap.Addr(), d.allowLoopback); reason != "" {
		return &BlockedError{Addr: ap.Addr(), Reason: reason}
	}
	return nil
}

// HTTPClient is the client's guarded HTTP client, for other calls Sello
// makes to parties outside (the buyers' receivers of a delivery): the same
// SSRF guard at dial time, no proxy, no redirects, the same timeout.
func (c *Client) HTTPClient() *http.Client { return c.hc }
