// Package apitest checks Sello's HTTP traffic against its OpenAPI document
// (api.OpenAPIDocument), for end-to-end tests.
//
// A Contract is built once per test from the embedded document, which it
// loads and validates with kin-openapi. CheckResponse then fails the test
// when a response's status is not documented for its operation, or when its
// headers or body do not match the document; requests are never checked, so
// tests may send invalid ones on purpose. CheckEventBody and
// CheckEventDelivery do the same for webhook deliveries (the document's
// webhooks section).
//
//	c := apitest.NewContract(t)
//	resp, body := do(t, req, reqBody)
//	c.CheckResponse(t, req, reqBody, resp, body)
package apitest
