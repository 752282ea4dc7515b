// Package sello holds the domain of Sello, a multi-tenant service for the
// Dominican Republic's electronic fiscal documents (e-CF): tenants, API keys
// and their scopes, environments, authorized number sequences, documents,
// their statuses and events, and the one error type every layer speaks.
//
// The root package has no dependencies on storage, HTTP or DGII. Adapters
// live in subpackages named for what they adapt (sqlite, postgres, api, ecf)
// and communicate through the interfaces declared here; cmd/sello wires them.
//
// Four types are called Document, one per boundary. sello.Document, here, is
// a document as Sello keeps it (its e-NCF, status, DGII's answer): the
// stores read and write it and the worker moves it through its lifecycle.
// sello.DocumentResource is how the API and the events show it (spec §2.4),
// built from a sello.Document. ecf.Document is the e-CF's content, DGII's
// fields as the client posts them, which package ecf checks and writes as
// XML. client.Document is the SDK's copy of the resource, in a module of its
// own so that a customer does not import the server. Beside them,
// DocumentDraft is a document not created yet and EventDocument the
// snapshot an event carries.
package sello
