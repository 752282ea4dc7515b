// Package client is Sello's Go SDK: a client of the e-CF API and the helpers
// a webhook receiver needs.
//
// It imports only the standard library, so a customer's program does not
// inherit the server's dependencies.
//
// # The API client
//
// New takes an API key; the environment (TesteCF, CerteCF or eCF) follows
// from the key's prefix. Every method retries 429s (after Retry-After), 5xx
// answers and network errors with exponential backoff and full jitter, at
// most four attempts by default, and stops when its context ends. A create
// carries an Idempotency-Key (a random UUID unless given), the same on every
// retry, so a retried create never makes a second document.
//
//	c, err := client.New(os.Getenv("SELLO_API_KEY"), client.WithBaseURL("https://sello.example.com"))
//	res, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoice})
//	if client.IsCode(err, client.CodeValidationFailed) { … }
//
// Errors from the API are *Error values with the HTTP status, the code, the
// message, the details and the correlation id.
//
// # Webhooks
//
// VerifyWebhook checks a delivery's Sello-Signature exactly as spec §6.2
// says: HMAC-SHA256 of "<t>.<raw body>" under the endpoint secret, compared in
// constant time with every v1 in the header, t within 300 seconds of now.
// WebhookHandler wraps that in an http.Handler; Idempotent makes the handler
// apply each event once (spec §6.4), with an EventStore in memory or in the
// receiver's database; Reconcile asks the status batch for a document's
// authoritative state before a final state is overwritten.
package client
