package sqlite

import (
	"database/sql/driver"
	"testing"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

func TestStableLimit(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"SELECT 1 LIMIT ?", "SELECT 1 LIMIT +?"},
		{"SELECT 1 ORDER BY seq LIMIT ? OFFSET ?", "SELECT 1 ORDER BY seq LIMIT +? OFFSET ?"},
		{"SELECT id FROM river_job\n    LIMIT ?3\n)", "SELECT id FROM river_job\n    LIMIT +?3\n)"},
		{"select 1 limit\n\t?", "select 1 LIMIT\n\t+?"},
		{"SELECT 1 LIMIT 1", "SELECT 1 LIMIT 1"},
		{"SELECT 1 LIMIT +?", "SELECT 1 LIMIT +?"},
		{"SELECT unlimit ?", "SELECT unlimit ?"},
		{"SELECT 1 LIMIT ? ; SELECT 2 LIMIT ?2", "SELECT 1 LIMIT +? ; SELECT 2 LIMIT +?2"},
	} {
		if got := stableLimit(tt.in); got != tt.want {
			t.Errorf("stableLimit(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestStableLimitCompiledOnce runs a statement with a bound LIMIT five
// times, binding the limit each time as the driver does, and counts how
// often SQLite compiled it again (SQLITE_STMTSTATUS_REPREPARE): every run
// for `LIMIT ?`, never for stableLimit's `LIMIT +?`. Both return the rows
// the limit asks for.
func TestStableLimitCompiledOnce(t *testing.T) {
	const query = `SELECT value FROM json_each('[1,2,3,4,5,6,7,8,9]') ORDER BY value LIMIT ?`
	tls := libc.NewTLS()
	defer tls.Close()
	name := mustCString(t, ":memory:")
	defer libc.Xfree(tls, name)
	pdb := libc.Xmalloc(tls, 8)
	defer libc.Xfree(tls, pdb)
	if rc := sqlite3.Xsqlite3_open_v2(tls, name, pdb, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("open: %d", rc)
	}
	db := *(*uintptr)(unsafePointer(pdb))
	defer sqlite3.Xsqlite3_close_v2(tls, db)

	reprepares := func(q string) int {
		sql := mustCString(t, q)
		defer libc.Xfree(tls, sql)
		pstmt := libc.Xmalloc(tls, 8)
		defer libc.Xfree(tls, pstmt)
		if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, sql, -1, pstmt, 0); rc != sqlite3.SQLITE_OK {
			t.Fatalf("prepare %q: %d", q, rc)
		}
		stmt := *(*uintptr)(unsafePointer(pstmt))
		defer sqlite3.Xsqlite3_finalize(tls, stmt)
		for limit := int32(1); limit <= 5; limit++ {
			sqlite3.Xsqlite3_reset(tls, stmt)
			if rc := sqlite3.Xsqlite3_bind_int(tls, stmt, 1, limit); rc != sqlite3.SQLITE_OK {
				t.Fatalf("bind: %d", rc)
			}
			var n int32
			for sqlite3.Xsqlite3_step(tls, stmt) == sqlite3.SQLITE_ROW {
				n++
			}
			if n != limit {
				t.Errorf("%q with %d: %d rows", q, limit, n)
			}
		}
		return int(sqlite3.Xsqlite3_stmt_status(tls, stmt, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0))
	}
	if got := reprepares(query); got == 0 {
		t.Errorf("LIMIT ?: compiled again 0 times in 5 runs; SQLite no longer recompiles a bound LIMIT (stableLimit may go)")
	}
	if got := reprepares(stableLimit(query)); got != 0 {
		t.Errorf("stableLimit's LIMIT +?: compiled again %d times in 5 runs, want 0", got)
	}
}

func mustCString(t *testing.T, s string) uintptr {
	t.Helper()
	p, err := libc.CString(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// unsafePointer is p, an address in the C heap of modernc's libc (not
// Go's, so the collector neither moves nor frees it).
func unsafePointer(p uintptr) unsafe.Pointer { return unsafe.Add(nil, p) }

// BenchmarkFetchLimit runs the shape of River's fetch of jobs (an UPDATE
// of at most LIMIT ?3 jobs, RETURNING them) on an empty queue as a kept
// statement, with its LIMIT bare (compiled again at every run) and as
// stableLimit writes it.
func BenchmarkFetchLimit(b *testing.B) {
	const q = `UPDATE river_job SET attempt = river_job.attempt + 1, state = 'running'
WHERE id IN (
    SELECT id FROM river_job
    WHERE priority >= 0 AND river_job.queue = ?2
        AND scheduled_at <= coalesce(cast(?1 AS text), datetime('now', 'subsec'))
        AND state = 'available'
    ORDER BY priority ASC, scheduled_at ASC, id ASC
    LIMIT ?3
) RETURNING id, json(args), attempt, attempted_at, json(attempted_by), created_at, json(errors), finalized_at, kind, max_attempts, json(metadata), priority, queue, state, scheduled_at, json(tags), unique_key, unique_states`
	for _, name := range []string{"bare", "stable"} {
		b.Run(name, func(b *testing.B) {
			db := mustOpenInternal(b)
			ctx := b.Context()
			conn, err := db.db.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			conn.Raw(func(dc any) error {
				c := dc.(*queuedConn).conn
				text := q
				if name == "stable" {
					text = stableLimit(q)
				}
				st, err := c.(driver.ConnPrepareContext).PrepareContext(ctx, text)
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				args := []driver.NamedValue{{Ordinal: 1, Value: nil}, {Ordinal: 2, Value: "default"}, {Ordinal: 3, Value: int64(10)}}
				dest := make([]driver.Value, 18)
				for b.Loop() {
					rows, err := st.(driver.StmtQueryContext).QueryContext(ctx, args)
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next(dest) == nil {
					}
					rows.Close()
				}
				return nil
			})
		})
	}
}
