// Package sqlval holds how both stores turn Go values into column values
// and back where the two engines agree: NULL for what is absent, JSON for
// nested values, empty bodies and headers stored as such.
package sqlval

import (
	"encoding/json"
	"fmt"
)

// JSONOrNull encodes v as JSON text, or returns nil (NULL) for a nil
// pointer.
func JSONOrNull[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return string(b), nil
}

// JSONOrNil decodes the JSON text b of a column into a new T, or returns
// nil for NULL (b nil).
func JSONOrNil[T any](b []byte) (*T, error) {
	if b == nil {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("decode %T: %w", v, err)
	}
	return v, nil
}

// BlobOrNull is b, or NULL when empty: coalesce then keeps the stored
// value.
func BlobOrNull(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// HeadersOrEmpty is h, or an empty map (stored as {}) when nil.
func HeadersOrEmpty(h map[string][]string) map[string][]string {
	if h == nil {
		return map[string][]string{}
	}
	return h
}

// NilIfEmpty reads an empty body back as nil.
func NilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// OrEmpty is b, or an empty body (not NULL) when nil.
func OrEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
