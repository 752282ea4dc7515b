// Package postgres implements sello.Store on PostgreSQL through pgx, for
// scale-out: any number of Sello nodes share one database. It also provides
// RateLimiter, a GCRA limiter whose buckets live in the database so every
// node enforces the same limits.
//
// Open applies the embedded migrations, then River's (its own migration
// line), under one session advisory lock, so nodes starting together migrate
// once. Jobs (River, driver riverpgxv5) are inserted in the store's own
// transactions, on the store's pool (20 connections unless the URL sets
// pool_max_conns or OpenPools another size); job runners fetch, complete
// and elect their leader on a pool of their own (10 connections by
// default), so an API that holds every store connection does not stall the
// queue, and hear of new jobs through LISTEN/NOTIFY.
// Numbers are assigned under a row lock on the sequence, in the transaction
// that inserts the document. A search_path in the connection URL's query
// selects the schema.
package postgres
