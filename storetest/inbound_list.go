package storetest

import (
	"slices"
	"testing"

	"github.com/sello-do/sello"
)

// inboundIDs lists the ids of docs.
func inboundIDs(docs []*sello.InboundDocument) []string {
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	return ids
}

// mustListInbound returns every page of the tenant's inbound documents in
// env under f, following the cursors.
func mustListInbound(tb testing.TB, s sello.Store, tenantID string, env sello.Environment, f sello.InboundFilter) []*sello.InboundDocument {
	tb.Helper()
	return mustListAll(tb, f.Limit, func(cursor string) ([]*sello.InboundDocument, string, error) {
		f.Cursor = cursor
		return s.ListInboundDocuments(tb.Context(), tenantID, env, f)
	})
}

// mustListAll returns every page of a keyset list, following the cursors
// from the first page; no page may hold more than limit items (when set).
func mustListAll[T any](tb testing.TB, limit int, list func(cursor string) ([]T, string, error)) []T {
	tb.Helper()
	var all []T
	cursor := ""
	for range 100 {
		page, next, err := list(cursor)
		if err != nil {
			tb.Fatalf("list after %q: %v", cursor, err)
		}
		if limit > 0 && len(page) > limit {
			tb.Fatalf("a page of %d, limit %d", len(page), limit)
		}
		all = append(all, page...)
		if next == "" {
			return all
		}
		cursor = next
	}
	tb.Fatal("more than 100 pages")
	return nil
}

func testInboundList(t *testing.T, open Open) {
	e := newEnv(t, open)
	tn, other := MustCreateTenant(t, e.s), MustCreateTenant(t, e.s)
	var docs []*sello.InboundDocument // oldest first
	for i := range int64(5) {
		d := newInbound(tn.ID, sello.EnvTest, []string{"131000001", "131000002"}[i%2], i+1)
		if i == 4 {
			d.Type, d.ENCF = sello.TypeNotaCredito, encf(sello.TypeNotaCredito, 1)
		}
		docs = append(docs, MustCreateInbound(t, e.s, d))
	}
	// Not the tenant's, or not in its environment: never listed.
	MustCreateInbound(t, e.s, newInbound(other.ID, sello.EnvTest, "131000001", 9))
	MustCreateInbound(t, e.s, newInbound(tn.ID, sello.EnvCert, "131000001", 9))
	newest := slices.Clone(docs)
	slices.Reverse(newest)

	t.Run("OK", func(t *testing.T) {
		got := mustListInbound(t, e.s, tn.ID, sello.EnvTest, sello.InboundFilter{Limit: 2})
		deepEqual(t, "ids, newest first", inboundIDs(got), inboundIDs(newest))
		want := *newest[0]
		want.XML, want.Acuse = nil, nil
		first := *got[0]
		if len(first.XML) != 0 || len(first.Acuse) != 0 {
			t.Errorf("a listed document carries its XML (%d bytes) or acuse (%d)", len(first.XML), len(first.Acuse))
		}
		first.XML, first.Acuse = nil, nil
		deepEqual(t, "listed document", &first, &want)
	})
	t.Run("Filters", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			f    sello.InboundFilter
			want []*sello.InboundDocument
		}{
			{"IssuerRNC", sello.InboundFilter{IssuerRNC: "131000002"}, []*sello.InboundDocument{docs[3], docs[1]}},
			{"Type", sello.InboundFilter{Type: sello.TypeNotaCredito}, []*sello.InboundDocument{docs[4]}},
			{"ApprovalPending", sello.InboundFilter{Approval: sello.ApprovalPending, Limit: 3}, newest},
			{"ApprovalApproved", sello.InboundFilter{Approval: sello.ApprovalApproved}, nil},
			{"Received", sello.InboundFilter{ReceivedFrom: &docs[1].ReceivedAt, ReceivedTo: &docs[3].ReceivedAt}, []*sello.InboundDocument{docs[2], docs[1]}},
			{"IssuerAndType", sello.InboundFilter{IssuerRNC: "131000002", Type: sello.TypeNotaCredito}, nil},
			{"ENCF", sello.InboundFilter{ENCF: docs[2].ENCF}, []*sello.InboundDocument{docs[2]}},
			{"IssuerAndENCF", sello.InboundFilter{IssuerRNC: "131000001", ENCF: docs[0].ENCF}, []*sello.InboundDocument{docs[0]}},
			{"ENCFOfAnotherIssuer", sello.InboundFilter{IssuerRNC: "131000002", ENCF: docs[0].ENCF}, nil},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got := mustListInbound(t, e.s, tn.ID, sello.EnvTest, tt.f)
				deepEqual(t, "ids", inboundIDs(got), inboundIDs(tt.want))
			})
		}
	})
	t.Run("Isolation", func(t *testing.T) {
		got := mustListInbound(t, e.s, other.ID, sello.EnvTest, sello.InboundFilter{})
		if len(got) != 1 || got[0].TenantID != other.ID {
			t.Fatalf("the other tenant lists %v, want its one document", inboundIDs(got))
		}
		got = mustListInbound(t, e.s, tn.ID, sello.EnvCert, sello.InboundFilter{})
		if len(got) != 1 || got[0].Environment != sello.EnvCert {
			t.Fatalf("CerteCF lists %v, want its one document", inboundIDs(got))
		}
	})
	t.Run("ErrCursor", func(t *testing.T) {
		_, _, err := e.s.ListInboundDocuments(t.Context(), tn.ID, sello.EnvTest, sello.InboundFilter{Cursor: "not-a-cursor"})
		wantError(t, err, sello.CodeInvalidRequest, "Cursor")
	})
}
