// Package metrics is every Prometheus metric Sello exports, in one place:
// each family's name, help, labels and buckets are defined in metrics.go,
// and docs/metrics.md describes them for operators. cmd/sello serves them
// on the debug address (serve --debug-addr, /metrics) from a registry of
// their own, with Go's runtime and the process's figures.
//
// The adapters that observe something take a *Metrics (api, portal,
// worker) or a func the wiring points at one of its methods (the stores'
// commits, DGII's calls), so that the storage engines and the DGII client
// do not import Prometheus. Every method of a nil *Metrics does nothing:
// a server built without metrics (tests, other commands) pays nothing.
//
// No label takes a value per tenant or per document: routes are the mux's
// patterns, outcomes and reasons are closed sets, and kinds, services and
// environments are the code's own. Per-tenant gauges of certificate expiry
// and numbers left exist only when Options.TenantLabels is set (serve
// --metrics-tenant-labels).
package metrics
