// Package clienttest holds the tests of the SDK (package client, its own
// module) that need the server: the SDK against Sello's real API over
// SQLite, its webhook verification against the sender's signatures, and its
// SQL event store on SQLite and PostgreSQL. They live in the server's module
// so that the SDK's module requires nothing: a customer importing the SDK
// inherits none of the server's dependencies.
package clienttest
