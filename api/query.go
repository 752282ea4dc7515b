package api

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sello-do/sello"
)

// listQuery reads a list's query parameters, collecting every bad one so
// that a client learns of all at once.
type listQuery struct {
	q       url.Values
	details []sello.ErrorDetail
}

// newListQuery starts reading q, whose parameters must be among known.
func newListQuery(q url.Values, known ...string) *listQuery {
	l := &listQuery{q: q}
	for param := range q {
		if !slices.Contains(known, param) {
			l.bad(param, "unknown query parameter; use "+strings.Join(known[:len(known)-1], ", ")+" or "+known[len(known)-1])
		}
	}
	return l
}

func (l *listQuery) bad(param, msg string) {
	l.details = append(l.details, sello.ErrorDetail{Path: param, Message: msg})
}

// docType reads a document type parameter into dst.
func (l *listQuery) docType(param string, dst *sello.DocumentType) {
	if v := l.q.Get(param); v != "" {
		t, err := sello.ParseDocumentType(v)
		if err != nil {
			l.bad(param, sello.ErrorMessageOf(err))
		}
		*dst = t
	}
}

// time reads an ISO 8601 date-time parameter into dst.
func (l *listQuery) time(param string, dst **time.Time) {
	if v := l.q.Get(param); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			l.bad(param, "must be an ISO 8601 date-time, e.g. 2026-11-22T00:00:00.000Z")
			return
		}
		*dst = &t
	}
}

// limit reads the page size into dst.
func (l *listQuery) limit(dst *int) {
	if v := l.q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > sello.MaxPageSize {
			l.bad("limit", fmt.Sprintf("must be a whole number from 1 to %d", sello.MaxPageSize))
		}
		*dst = n
	}
}

// err is the INVALID_REQUEST of the bad parameters, nil when none.
func (l *listQuery) err() error {
	if len(l.details) > 0 {
		return &sello.Error{Code: sello.CodeInvalidRequest, Message: "The query parameters are not valid.", Details: l.details}
	}
	return nil
}
