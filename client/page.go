package client

import (
	"context"
	"net/http"
	"net/url"
)

// Page is one page of a list. Every list of the API answers the same
// envelope: the items (Data), whether another page exists now (HasMore)
// and the cursor to continue from (NextCursor).
type Page[T any] struct {
	Data []T
	// HasMore is true when another page exists now: ask for it at once
	// with NextCursor.
	HasMore bool
	// NextCursor is the cursor to pass, unchanged, to read on; "" (the
	// API's null) when the list cannot continue. A feed (ListEvents) can
	// always continue: its NextCursor is always set, the position to poll
	// from next.
	NextCursor    string
	CorrelationID string
}

// list gets the page of the list at path with query q.
func list[T any](ctx context.Context, c *Client, path string, q url.Values) (*Page[T], error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path, query: q})
	if err != nil {
		return nil, err
	}
	var v struct {
		Data          []T     `json:"data"`
		HasMore       bool    `json:"hasMore"`
		NextCursor    *string `json:"nextCursor"`
		CorrelationID string  `json:"correlationId"`
	}
	if err := decode(resp, &v); err != nil {
		return nil, err
	}
	p := &Page[T]{Data: v.Data, HasMore: v.HasMore, CorrelationID: v.CorrelationID}
	if v.NextCursor != nil {
		p.NextCursor = *v.NextCursor
	}
	return p, nil
}
