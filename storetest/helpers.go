package storetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

// Clock is a fake clock for stores. Every reading advances it by Step, so
// consecutive writes get distinct, increasing times.
type Clock struct {
	mu   sync.Mutex
	now  time.Time
	Step time.Duration
}

// NewClock returns a clock at start that advances by step on every reading.
func NewClock(start time.Time, step time.Duration) *Clock { return &Clock{now: start, Step: step} }

// Now returns the current fake time and advances the clock by Step.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.Step)
	return t
}

// Peek returns the current fake time without advancing the clock.
func (c *Clock) Peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// clockStart is when every suite store's clock starts: mid-afternoon in
// Santo Domingo, so TodayInDR is an unambiguous date.
var clockStart = time.Date(2026, time.March, 10, 18, 0, 0, 0, time.UTC)

// env is what each subtest works with: a fresh store on a fake clock.
type env struct {
	s     Store
	clock *Clock
}

func newEnv(t *testing.T, open Open) env {
	t.Helper()
	c := NewClock(clockStart, time.Millisecond)
	return env{s: open(t, c.Now), clock: c}
}

// rncs hands out distinct valid RNCs.
var (
	rncMu   sync.Mutex
	rncNext = 101000000
)

func newRNC() string {
	rncMu.Lock()
	defer rncMu.Unlock()
	rncNext++
	return fmt.Sprint(rncNext)
}

// MustCreateTenant creates a tenant with a fresh RNC and the default plan.
func MustCreateTenant(tb testing.TB, s sello.Store) *sello.Tenant {
	tb.Helper()
	t := &sello.Tenant{RNC: newRNC(), Name: "Comercial Ejemplo SRL", Plan: sello.DefaultRatePlan}
	if err := s.CreateTenant(tb.Context(), t); err != nil {
		tb.Fatalf("CreateTenant: %v", err)
	}
	return t
}

// MustAddSequence registers the range from–to of typ without expiry.
func MustAddSequence(tb testing.TB, s sello.Store, tenantID string, e sello.Environment, typ sello.DocumentType, from, to int64) *sello.Sequence {
	tb.Helper()
	seq := &sello.Sequence{TenantID: tenantID, Environment: e, Type: typ, From: from, To: to}
	if err := s.AddSequence(tb.Context(), seq); err != nil {
		tb.Fatalf("AddSequence %s %s %d–%d: %v", e, typ, from, to, err)
	}
	return seq
}

// MustCreateDocument creates a document and fails the test on error.
func MustCreateDocument(tb testing.TB, s sello.Store, nd sello.DocumentDraft) *sello.Document {
	tb.Helper()
	doc, replayed, err := s.CreateDocument(tb.Context(), nd)
	if err != nil {
		tb.Fatalf("CreateDocument %s %s %q: %v", nd.Environment, nd.Type, nd.ENCF, err)
	} else if replayed {
		tb.Fatalf("CreateDocument %s %s %q: replayed, want a new document", nd.Environment, nd.Type, nd.ENCF)
	}
	return doc
}

// prepared records the calls a Prepare function received.
type prepared struct {
	mu    sync.Mutex
	calls []prepareCall
}

type prepareCall struct {
	ENCF sello.ENCF
	Seq  sello.Sequence
}

// payloadFor is the payload the suite's Prepare produces: unsorted keys,
// spaces and a trailing zero, so only a byte-exact store returns it equal.
func payloadFor(e sello.ENCF) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"ECF": {"Encabezado": {"Version": "1.0", "IdDoc": {"TipoeCF": "%s", "eNCF": "%s"}, "Totales": {"MontoTotal": 1180.00}}, "Ñ": "áé"}}`, e.Type, e))
}

var issueDate = sello.Date{Year: 2026, Month: time.March, Day: 9}

// prepare returns a Prepare function that records its calls.
func (p *prepared) prepare(e sello.ENCF, seq *sello.Sequence) (*sello.PreparedDocument, error) {
	p.mu.Lock()
	p.calls = append(p.calls, prepareCall{ENCF: e, Seq: *seq})
	p.mu.Unlock()
	return &sello.PreparedDocument{Payload: payloadFor(e), Total: "1180.00", ITBIS: "180.00", BuyerRNC: "131880681", IssueDate: issueDate}, nil
}

// otherBuyer is a buyer's RNC other than the one newDoc's documents have.
const otherBuyer = "101000001"

// withBuyer is nd with the buyer buyerRNC.
func withBuyer(nd sello.DocumentDraft, buyerRNC string) sello.DocumentDraft {
	prepare := nd.Prepare
	nd.Prepare = func(e sello.ENCF, seq *sello.Sequence) (*sello.PreparedDocument, error) {
		p, err := prepare(e, seq)
		if p != nil {
			p.BuyerRNC = buyerRNC
		}
		return p, err
	}
	return nd
}

// newDoc is a create of typ with the next number.
func newDoc(tenantID string, e sello.Environment, typ sello.DocumentType) sello.DocumentDraft {
	p := &prepared{}
	return sello.DocumentDraft{TenantID: tenantID, Environment: e, Type: typ, Prepare: p.prepare}
}

// wantError fails unless err carries code and its message contains every
// one of substrs.
func wantError(tb testing.TB, err error, code sello.ErrorCode, substrs ...string) {
	tb.Helper()
	if got := sello.ErrorCodeOf(err); got != code {
		tb.Fatalf("error code: got %q (%v), want %q", got, err, code)
	}
	msg := sello.ErrorMessageOf(err)
	for _, s := range substrs {
		if !strings.Contains(msg, s) {
			tb.Errorf("error message %q: want it to contain %q", msg, s)
		}
	}
}

// encfs returns the e-NCFs of docs.
func encfs(docs []*sello.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ENCF
	}
	return out
}

// sortedENCFs returns the e-NCFs of docs, sorted.
func sortedENCFs(docs []*sello.Document) []string {
	out := encfs(docs)
	slices.Sort(out)
	return out
}

// deepEqual reports a difference between got and want as JSON, which shows
// the fields that differ.
// summary returns d without its Payload, as FindDocumentsByENCF and
// ListDocuments return documents.
func summary(d *sello.Document) *sello.Document {
	s := *d
	s.Payload = nil
	return &s
}

// summaries returns the summaries of docs.
func summaries(docs []*sello.Document) []*sello.Document {
	out := make([]*sello.Document, len(docs))
	for i, d := range docs {
		out[i] = summary(d)
	}
	return out
}

func deepEqual(tb testing.TB, what string, got, want any) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		tb.Errorf("%s:\ngot  %s\nwant %s", what, g, w)
	}
}

func encf(typ sello.DocumentType, n int64) string { return sello.ENCF{Type: typ, Number: n}.String() }
