// Package sqlite implements sello.Store on an SQLite file through the pure-Go
// modernc.org/sqlite driver. It is Sello's embedded default: nothing to
// install, one file in the data folder.
//
// The file is opened in WAL mode with a busy timeout, and every transaction
// begins IMMEDIATE, so the server and the operator CLI can use the same file
// at once: writers queue on SQLite's write lock instead of failing on a lock
// upgrade. Transactions are kept short and never span network calls.
//
// Every query runs as a prepared statement, compiled once per connection:
// the store's through one querier and a cache of *sql.Stmt (stmt.go),
// River's through statements its connections keep (river.go).
//
// Times are stored as UTC text with microseconds (2006-01-02T15:04:05.000000Z),
// which sorts as it reads; dates as yyyy-MM-dd; amounts as exact decimal
// text. The schema lives in migrations/ and is applied by Open, followed by
// River's migrations on their own migration line.
//
// Jobs (River, driver riversqlite) are inserted in the store's own
// transactions, so a rolled-back change leaves none. River gets a small pool
// of its own on the file; its transactions and the store's share one write
// queue in Go, served in arrival order, so neither starves the other in
// SQLite's busy handler (see river.go). SQLite has no LISTEN/NOTIFY: the job
// runner learns of new jobs by polling River's notification table (50 ms)
// and looks for due jobs every 100 ms.
package sqlite
