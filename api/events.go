package api

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sello-do/sello"
)

// eventTypes are the types the events API filters on: every sello.EventType
// (WebhookEventTypes lists them all) and the test event, which is never in
// the feed, so filtering on it finds none.
var eventTypes = append(slices.Clip(sello.WebhookEventTypes), sello.EventWebhookEndpointTest)

// eventCursorPrefix tells an events cursor from a document list cursor.
const eventCursorPrefix = "ev."

// formatEventCursor returns the events cursor that resumes after the event
// at position p: base64url("ev.<tx>.<seq>"), in the style of
// sello.FormatCursor.
func formatEventCursor(p sello.EventPosition) string {
	return base64.RawURLEncoding.EncodeToString([]byte(eventCursorPrefix +
		strconv.FormatInt(p.Tx, 10) + "." + strconv.FormatInt(p.Seq, 10)))
}

// parseEventCursor reads a cursor of formatEventCursor, or of its earlier
// form base64url("ev.<seq>"), which is at Tx 0. Returns INVALID_REQUEST.
func parseEventCursor(c string) (sello.EventPosition, error) {
	bad := sello.Errorf(sello.CodeInvalidRequest, "Cursor %q is not valid: pass the nextCursor of the previous answer unchanged.", c)
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return sello.EventPosition{}, bad
	}
	rest, ok := strings.CutPrefix(string(b), eventCursorPrefix)
	if !ok {
		return sello.EventPosition{}, bad
	}
	txDigits, seqDigits, two := strings.Cut(rest, ".")
	if !two {
		txDigits, seqDigits = "0", rest
	}
	tx, okTx := parseCursorNumber(txDigits)
	seq, okSeq := parseCursorNumber(seqDigits)
	if !okTx || !okSeq {
		return sello.EventPosition{}, bad
	}
	return sello.EventPosition{Tx: tx, Seq: seq}, nil
}

// parseCursorNumber reads a number of an events cursor: decimal digits
// without a sign or a leading zero, at most math.MaxInt64.
func parseCursorNumber(digits string) (int64, bool) {
	if digits == "" || (len(digits) > 1 && digits[0] == '0') || digits[0] < '0' || digits[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// handleListEvents returns the tenant's events in the environment after a
// cursor (cursor, or after, the spec's name), oldest first (DESIGN §3): a
// poller's alternative to webhooks, and the way to catch up after an
// outage. The feed never ends: its nextCursor is always the position to
// poll from next. Events are kept 30 days; the purge is
// not this handler's.
func (s *Server) handleListEvents(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	f, err := parseEventFilter(r.URL.Query())
	if err != nil {
		return err
	}
	limit := f.Limit
	// Ask for one more than the page to learn whether more follow; when
	// the store's cap forbids it, probe after the full page instead.
	f.Limit = min(limit+1, sello.MaxPageSize)
	events, err := s.Store.ListEvents(r.Context(), p.Tenant.ID, p.Env, f)
	if err != nil {
		return err
	}
	hasMore := len(events) > limit
	if hasMore {
		events = events[:limit]
	} else if len(events) == limit && f.Limit == limit {
		probe, err := s.Store.ListEvents(r.Context(), p.Tenant.ID, p.Env, sello.EventFilter{After: events[limit-1].Pos, Type: f.Type, Limit: 1})
		if err != nil {
			return err
		}
		hasMore = len(probe) > 0
	}
	next := f.After
	res := make([]sello.EventResource, len(events))
	for i, e := range events {
		res[i] = e.Resource()
		next = e.Pos
	}
	writeFeed(w, r, res, formatEventCursor(next), hasMore)
	return nil
}

// parseEventFilter reads the events list's query parameters, reporting every
// bad one. Returns INVALID_REQUEST.
func parseEventFilter(q url.Values) (sello.EventFilter, error) {
	f := sello.EventFilter{Limit: sello.DefaultPageSize}
	type problem struct {
		param string
		text  sello.Text
	}
	var problems []problem
	refuse := func(param string, t sello.Text) { problems = append(problems, problem{param, t}) }
	for param, vals := range q {
		if !slices.Contains([]string{"cursor", "after", "type", "limit"}, param) {
			refuse(param, sello.Textf("unknown query parameter; use cursor, type or limit"))
		} else if len(vals) > 1 {
			refuse(param, sello.Textf("must be given once"))
		}
	}
	// after is the spec's name (§4) for the same cursor.
	_, hasCursor := q["cursor"]
	_, hasAfter := q["after"]
	if hasCursor && hasAfter {
		refuse("after", sello.Textf("after is another name for cursor: give one of them"))
	}
	for _, param := range []string{"cursor", "after"} {
		if v, ok := q[param]; ok {
			pos, err := parseEventCursor(v[0])
			if err != nil {
				refuse(param, sello.Textf("not a cursor of the events API: pass the nextCursor of the previous answer unchanged"))
			}
			f.After = pos
		}
	}
	if v, ok := q["type"]; ok {
		t := sello.EventType(v[0])
		if !slices.Contains(eventTypes, t) {
			refuse("type", sello.Textf("unknown event type %q", v[0]))
		}
		f.Type = t
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > sello.MaxPageSize {
			refuse("limit", sello.Textf("must be a whole number from 1 to %d", sello.MaxPageSize))
		}
		f.Limit = n
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b problem) int { return strings.Compare(a.param, b.param) })
		var p sello.Problems
		for _, pr := range problems {
			p.AddText(pr.param, pr.text)
		}
		return f, p.Errorf(sello.CodeInvalidRequest, "The query parameters are not valid.")
	}
	return f, nil
}
