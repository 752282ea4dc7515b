// Package webhook makes one webhook delivery attempt, safely: it signs the
// event, sends it through a client that only ever connects to public
// Internet addresses, and records what happened. It does not touch storage;
// the delivery job stores the Attempt and schedules the next one.
//
//	c := webhook.NewClient(webhook.Options{})
//	a := c.Deliver(ctx, webhook.Request{
//		URL: endpoint.URL, EventID: ev.ID, EventType: string(ev.Type),
//		Body: body, Secrets: secrets, Version: version.Version, Now: time.Now(),
//	})
//	switch {
//	case a.Success(): // done
//	case a.Gone(): // disable the endpoint
//	default:
//		if d, ok := webhook.RetryDelay(attempt, &a, nil); ok { /* retry in d */ }
//	}
//
// Headers (DESIGN §5, spec §6.2): Content-Type: application/json,
// User-Agent: Sello-Webhooks/<version>, Sello-Event-Id, Sello-Event-Type and
// Sello-Signature: t=<unix>,v1=<hex>[,v1=<hex>…], one v1 per active secret,
// newest first, each an HMAC-SHA256 of "<t>.<body>". Each attempt is signed
// with its own t, so a retry hours later still passes the receiver's
// 300-second tolerance (Sign; secrets are generated and checked by the domain: sello.GenerateWebhookSecret, sello.CheckWebhookSecret).
//
// SSRF guard (CheckAddr): the client resolves host names itself and
// refuses the target when any address is not public (loopback, RFC 1918,
// link-local and metadata, CGNAT, unique-local, multicast, unspecified,
// broadcast, documentation, benchmarking, reserved, and IPv4-mapped,
// NAT64 and 6to4 forms of those, Teredo); the net.Dialer checks the
// address again at dial time, on the socket about to connect, so DNS
// rebinding cannot slip through. No proxy, no redirects (a 3xx is a
// failure), TLS 1.2+, 15 s per attempt, 4 KiB of the answer kept. Any port
// is allowed on a public address. Options.AllowLoopback lets 127.0.0.0/8
// and ::1 through for tests and demos, never in production. ValidateURL
// applies the same policy when an endpoint is configured.
//
// Failures carry a class (ClassDNS, ClassConnect, ClassTLS, ClassTimeout,
// ClassBlocked, ClassHTTPStatus). Any 2xx is success; 410 Gone disables
// the endpoint; everything else is retried on the schedule of NextDelay
// and RetryDelay: at most 8 attempts, immediately, 5 s, 5 min, 30 min, 2 h,
// 5 h, 10 h, 10 h, each ±20%, honouring Retry-After on 429 and 503 within
// [delay, 2×delay] and waiting at least a minute after a 429 or a timeout.
//
// docs/webhooks.md is the contract for receivers.
package webhook
