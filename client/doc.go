// Package client is Sello's Go SDK: a client of the e-CF API and the helpers
// a webhook receiver needs.
//
// It imports only the standard library, so a customer's program does not
// inherit the server's dependencies.
//
// # The API client
//
// It is a module of its own that requires nothing (client/go.mod), with the
// go line of the oldest supported Go release.
//
// New takes the service's address, which is required (there is no default
// address), and an API key; the environment (TesteCF, CerteCF or eCF)
// follows from the key's prefix, and the client is bound to it. Every method retries 429s (after Retry-After), 5xx
// answers and network errors with exponential backoff and full jitter, at
// most four attempts by default, and stops when its context ends. The
// creates of documents, voids and certification runs carry an
// Idempotency-Key (a random UUID unless given), the same on every retry, so
// a retried create never makes a second one; a range or a commercial
// approval cannot be made twice (the API refuses the repeat).
//
//	c, err := client.New("https://sello.example.com", os.Getenv("SELLO_API_KEY"))
//	res, err := c.CreateDocument(ctx, client.CreateDocumentRequest{Document: invoice})
//	if client.IsCode(err, client.CodeValidationFailed) { … }
//	doc, err := c.WaitForVerdict(ctx, res.Document.ENCF)
//
// Events spell environments testecf, certecf and ecf; ParseEnvironment and
// Event decoding take either spelling, so ev.Environment == EnvTest holds
// for a TesteCF event.
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
//
// The client covers every operation of the API: documents, events,
// received documents (ListInboundDocuments…), commercial approvals
// (CreateApproval…), sequences, voids, certification runs and DGII's state
// (GetDGIIStatus). Every list answers a Page and has an iterator over every
// page (Documents, InboundDocuments, Approvals, Sequences, Voids,
// CertificationRuns).
//
// Its types (Document, InboundDocument, Approval, Sequence, Void,
// CertificationRun, DGIIStatus…) mirror the OpenAPI document's schemas,
// field for field, in this module's own types, so that importing the SDK
// pulls in none of the server's code or dependencies.
package client
