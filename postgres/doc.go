// Package postgres implements sello.Store on PostgreSQL through pgx, for
// scale-out: any number of Sello nodes share one database. It also provides
// RateLimiter, a GCRA limiter whose buckets live in the database so every
// node enforces the same limits.
//
// Open applies the embedded migrations under a session advisory lock, so
// nodes starting together migrate once. Numbers are assigned under a row
// lock on the sequence, in the transaction that inserts the document.
// A search_path in the connection URL's query selects the schema.
package postgres
