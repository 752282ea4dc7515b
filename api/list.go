package api

import (
	"net/http"
	"slices"
	"time"

	"github.com/sello-do/sello"
)

// Every list of the API answers one envelope (docs/api.md, Conventions):
// the page's items in data, whether another page exists now (hasMore) and
// the cursor to continue from (nextCursor, null when the list cannot
// continue). Every list takes limit and cursor.

// listBody is the answer of every list.
type listBody[T any] struct {
	OK            bool    `json:"ok"`
	Data          []T     `json:"data"`
	HasMore       bool    `json:"hasMore"`
	NextCursor    *string `json:"nextCursor"`
	CorrelationID string  `json:"correlationId"`
}

// writeList writes a page of a list that ends: next is the cursor of the
// next page, "" on the last, when nextCursor is null and hasMore false.
func writeList[T any](w http.ResponseWriter, r *http.Request, data []T, next string) {
	body := listBody[T]{OK: true, Data: data, HasMore: next != "", CorrelationID: correlationID(r.Context())}
	if next != "" {
		body.NextCursor = &next
	}
	if body.Data == nil {
		body.Data = []T{}
	}
	writeJSON(w, http.StatusOK, body)
}

// writeFeed writes a page of a feed, which never ends: next is always the
// position to continue from, and hasMore says whether more items follow
// it already.
func writeFeed[T any](w http.ResponseWriter, r *http.Request, data []T, next string, hasMore bool) {
	if data == nil {
		data = []T{}
	}
	writeJSON(w, http.StatusOK, listBody[T]{OK: true, Data: data, HasMore: hasMore, NextCursor: &next, CorrelationID: correlationID(r.Context())})
}

// pageQuery is a list's limit and cursor.
type pageQuery struct {
	Cursor string
	Limit  int
}

// pageQuery reads limit and cursor into a pageQuery, the limit
// sello.DefaultPageSize when not given.
func (l *listQuery) page() pageQuery {
	p := pageQuery{Cursor: l.q.Get("cursor"), Limit: sello.DefaultPageSize}
	l.limit(&p.Limit)
	return p
}

// pageOf returns the page of items (a whole list, in its order) that p
// asks for, and the cursor of the next page ("" on the last): the lists
// short enough to be read whole (a tenant's ranges, its certification
// runs) page like the others. The cursor is sello.FormatCursor's of the
// last item listed (its created time and id); the page after it starts
// after the item of its id. Returns INVALID_REQUEST for a malformed cursor,
// or one of no item of the list.
func pageOf[T any](items []T, p pageQuery, key func(T) (time.Time, string)) ([]T, string, error) {
	start := 0
	if p.Cursor != "" {
		_, id, err := sello.ParseCursor(p.Cursor)
		if err != nil {
			return nil, "", err
		}
		i := slices.IndexFunc(items, func(it T) bool { _, itemID := key(it); return itemID == id })
		if i < 0 {
			return nil, "", sello.Errorf(sello.CodeInvalidRequest, "Cursor %q is not valid: pass the nextCursor of the previous answer unchanged.", p.Cursor)
		}
		start = i + 1
	}
	end := min(start+p.Limit, len(items))
	page := items[start:end]
	if end == len(items) {
		return page, "", nil
	}
	at, id := key(items[end-1])
	return page, sello.FormatCursor(at, id), nil
}
