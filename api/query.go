package api

import (
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
	q url.Values
	p sello.Problems
}

// newListQuery starts reading q, whose parameters must be among known.
func newListQuery(q url.Values, known ...string) *listQuery {
	l := &listQuery{q: q}
	for param := range q {
		if !slices.Contains(known, param) {
			l.p.Addf(param, "unknown query parameter; use %s or %s", strings.Join(known[:len(known)-1], ", "), known[len(known)-1])
		}
	}
	return l
}

// docType reads a document type parameter into dst.
func (l *listQuery) docType(param string, dst *sello.DocumentType) {
	if v := l.q.Get(param); v != "" {
		t, err := sello.ParseDocumentType(v)
		if err != nil {
			l.p.AddText(param, sello.ErrorText(err))
		}
		*dst = t
	}
}

// time reads an ISO 8601 date-time parameter into dst.
func (l *listQuery) time(param string, dst **time.Time) {
	if v := l.q.Get(param); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			l.p.Add(param, "must be an ISO 8601 date-time, e.g. 2026-11-22T00:00:00.000Z")
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
			l.p.Addf("limit", "must be a whole number from 1 to %d", sello.MaxPageSize)
		}
		*dst = n
	}
}

// err is the INVALID_REQUEST of the bad parameters, nil when none.
func (l *listQuery) err() error {
	if l.p.Len() > 0 {
		return l.p.Errorf(sello.CodeInvalidRequest, "The query parameters are not valid.")
	}
	return nil
}
