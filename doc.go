// Package sello holds the domain of Sello, a multi-tenant service for the
// Dominican Republic's electronic fiscal documents (e-CF): tenants, API keys
// and their scopes, environments, authorized number sequences, documents,
// their statuses and events, and the one error type every layer speaks.
//
// The root package has no dependencies on storage, HTTP or DGII. Adapters
// live in subpackages named for what they adapt (sqlite, postgres, api, ecf)
// and communicate through the interfaces declared here; cmd/sello wires them.
package sello
