// Package api is Sello's public JSON API over HTTP (spec §4, §5, §7, §8 and
// DESIGN §2–§3): routes, API-key authentication with scopes and environment
// binding, per-key rate limits, idempotent creates, the one error body, and
// the OpenAPI document that describes all of it.
//
// Handlers return errors; one adapter (writeError) turns them into the error
// body, so every failure a client sees carries a code of the closed set and
// the request's correlation id.
//
// It owns no Document type: it reads an ecf.Document from a request, hands
// the store a sello.DocumentDraft and answers with sello.DocumentResource
// (see the root package's doc for the four Document types).
package api
