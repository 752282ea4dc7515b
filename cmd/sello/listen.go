package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sello-do/sello/client"
)

// forwardTimeout bounds one forward to --forward-to: Sello's own attempt
// timeout, so an answer that Sello would have waited for is waited for.
const forwardTimeout = 15 * time.Second

// listFlag is a flag that may be given more than once, never empty: listen's
// --secret (a rotation's old and new secrets), bench's --url.
type listFlag []string

func (s *listFlag) String() string { return strings.Join(*s, ",") }

func (s *listFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

// runListen is `sello listen`: a webhook receiver for development. It
// verifies each delivery with the SDK (client.Webhook, the handler an
// integrator would mount), prints one line per delivery, and forwards the
// verified ones, raw body and headers, to --forward-to. The sender gets a
// 2xx only for a verified delivery: 400 for one that does not verify
// (never forwarded); with --forward-to, the forward target's status, or
// 502 when it cannot be reached, so Sello retries what the application
// did not take.
func runListen(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sello listen", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:4000", "address to listen on (point sello webhooks add --url http://ADDR/ --allow-loopback at it)")
	var secrets listFlag
	fs.Var(&secrets, "secret", "the endpoint's signing secret; give it twice during a rotation (env SELLO_WEBHOOK_SECRET; a flag shows in the process list)")
	forward := fs.String("forward-to", "", "URL to forward each verified delivery to, raw body and headers (your application's webhook handler)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if len(secrets) == 0 && getenv("SELLO_WEBHOOK_SECRET") != "" {
		secrets = listFlag{getenv("SELLO_WEBHOOK_SECRET")}
	}
	if len(secrets) == 0 {
		return usageError{"--secret is required (or set SELLO_WEBHOOK_SECRET): the secret sello webhooks add printed"}
	}
	if *forward != "" {
		if u, err := url.Parse(*forward); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError{fmt.Sprintf("--forward-to %q must be an absolute http:// or https:// URL", *forward)}
		}
	}
	l := &listener{out: stdout, forwardTo: *forward, fwd: &http.Client{
		Timeout:       forwardTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	l.hook = &client.Webhook{Secrets: secrets, Handle: l.handle, OnError: l.refused}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	if *forward != "" {
		fmt.Fprintf(stdout, "forwarding verified deliveries to %s\n", *forward)
	}
	hs := &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	return serveUntilDone(ctx, hs, ln)
}

// listener receives deliveries for runListen.
type listener struct {
	hook      *client.Webhook
	forwardTo string
	fwd       *http.Client
	mu        sync.Mutex // one line at a time
	out       io.Writer
}

// delivery is what the handler and client.Webhook's callbacks share about
// one request.
type delivery struct {
	body   []byte
	header http.Header
	// reply is the status to answer when the forward did not get a 2xx:
	// the target's, or 502 when it could not be reached.
	reply   int
	outcome string // "forwarded: 200 OK", or why the forward failed
}

type deliveryKey struct{}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, client.MaxWebhookBytes+1))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	d := &delivery{body: body, header: r.Header.Clone()}
	r = r.WithContext(context.WithValue(r.Context(), deliveryKey{}, d))
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.hook.ServeHTTP(&replyWriter{ResponseWriter: w, d: d}, r)
}

// handle is client.Webhook's Handle: the delivery verified. It forwards it
// when asked and prints its line; a failed forward makes the SDK answer
// 500, which replyWriter turns into d.reply.
func (l *listener) handle(ctx context.Context, ev *client.Event) error {
	d := ctx.Value(deliveryKey{}).(*delivery)
	var err error
	if l.forwardTo != "" {
		err = l.forward(ctx, d)
	}
	l.print(summary(ev), "verified", d.outcome)
	return err
}

// refused is client.Webhook's OnError: the delivery did not verify (or
// its forward failed, already printed).
func (l *listener) refused(r *http.Request, err error) {
	if errors.Is(err, errForward) {
		return
	}
	d, _ := r.Context().Value(deliveryKey{}).(*delivery)
	var ev client.Event
	if d != nil {
		json.Unmarshal(d.body, &ev) // for the line only: nothing unverified is trusted
	}
	l.print(summary(&ev), "NOT VERIFIED: "+err.Error(), "not forwarded")
}

// errForward is the error of a forward that did not get a 2xx.
var errForward = errors.New("forward failed")

// forward posts the raw body with the delivery's headers (but the
// hop-by-hop ones) to --forward-to.
func (l *listener) forward(ctx context.Context, d *delivery) error {
	d.reply = http.StatusBadGateway
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.forwardTo, bytes.NewReader(d.body))
	if err != nil {
		d.outcome = "forward failed: " + err.Error()
		return errForward
	}
	for k, vs := range d.header {
		switch http.CanonicalHeaderKey(k) {
		case "Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Te", "Trailer", "Upgrade", "Content-Length", "Host":
			continue
		}
		req.Header[k] = vs
	}
	resp, err := l.fwd.Do(req)
	if err != nil {
		d.outcome = "forward failed: " + err.Error()
		return errForward
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	d.outcome = "forwarded: " + resp.Status
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		d.reply = resp.StatusCode
		return errForward
	}
	d.reply = 0
	return nil
}

// print writes one line: time, the event's type, e-NCF and status, whether
// it verified, and what became of it.
func (l *listener) print(ev, verified, outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	line := time.Now().UTC().Format(time.RFC3339) + "  " + ev + "  " + verified
	if outcome != "" {
		line += "  " + outcome
	}
	fmt.Fprintln(l.out, line)
}

// summary is the event's type, e-NCF and document status, "-" for what it
// lacks.
func summary(ev *client.Event) string {
	encf, status := "-", "-"
	if ev.Document != nil {
		encf, status = orDash(ev.Document.ENCF), orDash(string(ev.Document.Status))
	}
	return orDash(string(ev.Type)) + "  " + encf + "  " + status
}

// replyWriter turns the SDK's 500 for a failed forward into d.reply, the
// forward target's status (or 502): Sello then retries what the
// application did not take, as it would in production.
type replyWriter struct {
	http.ResponseWriter
	d       *delivery
	replied bool
}

func (w *replyWriter) WriteHeader(code int) {
	if code == http.StatusInternalServerError && w.d.reply != 0 {
		w.replied = true
		http.Error(w.ResponseWriter, http.StatusText(w.d.reply), w.d.reply)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *replyWriter) Write(b []byte) (int, error) {
	if w.replied {
		return len(b), nil // the SDK's "Internal Server Error"
	}
	return w.ResponseWriter.Write(b)
}
