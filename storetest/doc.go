// Package storetest is the storage contract of Sello as a test suite: one
// set of subtests that every engine (sqlite, postgres) runs against itself.
// Run covers tenants, API keys, sequences, document numbering under
// concurrency, idempotency, reads, events, lifecycle transitions (status
// checks, fields, history, signed XML), certificates, jobs inserted in the
// store's transactions and worked by its job runner (under load), and tenant
// and environment isolation; RunRateLimiter covers shared rate limiters.
//
// An engine's test calls
//
//	storetest.Run(t, func(t *testing.T) sello.Store { return mustOpen(t) })
//
// and open must return a fresh, empty store each time, closed by t.Cleanup.
package storetest
