package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
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

// every ranges over the items of every page fetch returns, from the page
// at cursor on, and stops at the first error, which it yields.
func every[T any](cursor string, fetch func(cursor string) (*Page[T], error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for {
			page, err := fetch(cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Data {
				if !yield(&page.Data[i], nil) {
					return
				}
			}
			if !page.HasMore {
				return
			}
			cursor = page.NextCursor
		}
	}
}

// pageQuery is the query of a list's page, and its filters.
type pageQuery url.Values

// set sets k to v unless v is empty.
func (q pageQuery) set(k, v string) {
	if v != "" {
		url.Values(q).Set(k, v)
	}
}

// setTime sets k to t in UTC unless t is zero.
func (q pageQuery) setTime(k string, t time.Time) {
	if !t.IsZero() {
		url.Values(q).Set(k, t.UTC().Format(time.RFC3339Nano))
	}
}

// page sets cursor and limit (0: the server's default).
func (q pageQuery) page(cursor string, limit int) url.Values {
	q.set("cursor", cursor)
	if limit != 0 {
		url.Values(q).Set("limit", strconv.Itoa(limit))
	}
	return url.Values(q)
}

// one decodes the resource at field of a success body, and the body's
// correlation id.
func one[T any](resp *response, field string) (T, string, error) {
	var zero T
	var v map[string]json.RawMessage
	if err := decode(resp, &v); err != nil {
		return zero, "", err
	}
	raw, ok := v[field]
	if !ok {
		return zero, "", fmt.Errorf("sello: decode answer (status %d): no %q", resp.status, field)
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		return zero, "", fmt.Errorf("sello: decode answer (status %d): %s: %w", resp.status, field, err)
	}
	var cid string
	if c, ok := v["correlationId"]; ok {
		_ = json.Unmarshal(c, &cid)
	}
	return out, cid, nil
}

// get GETs the resource at path and decodes its field.
func get[T any](ctx context.Context, c *Client, path, field string) (T, string, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		var zero T
		return zero, "", err
	}
	return one[T](resp, field)
}

// file GETs the file (XML, PDF, ZIP) at path, exactly as the API answers it.
func (c *Client) file(ctx context.Context, path, accept string) ([]byte, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path, accept: accept})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// idempotencyHeader is the Idempotency-Key header of a create: key, or a
// random UUID when key is empty, made once per call and sent on every
// attempt.
func idempotencyHeader(key string) (http.Header, error) {
	if key == "" {
		var err error
		if key, err = newIdempotencyKey(); err != nil {
			return nil, err
		}
	}
	return http.Header{"Idempotency-Key": {key}}, nil
}

// marshalBody encodes a request body.
func marshalBody(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sello: encode request: %w", err)
	}
	return b, nil
}

// pathID is an id as a path segment; an empty id is refused before any
// request (it would name the list instead).
func pathID(what, id string) (string, error) {
	if id == "" {
		return "", errors.New("sello: empty " + what + " id")
	}
	return "/" + url.PathEscape(id), nil
}
