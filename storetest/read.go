package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sello-do/sello"
)

func testReadDocuments(t *testing.T, open Open) {
	t.Run("FindDocument", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		doc := MustCreateDocument(t, e.s, newDoc(tn.ID, sello.EnvTest, sello.TypeCreditoFiscal))
		got, err := e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, doc.ENCF)
		if err != nil {
			t.Fatalf("FindDocument: %v", err)
		}
		deepEqual(t, "document", got, doc)
		_, err = e.s.FindDocument(t.Context(), tn.ID, sello.EnvTest, encf("31", 99))
		wantError(t, err, sello.CodeNotFound, encf("31", 99))
	})
	t.Run("FindDocumentsByENCF", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		docs := mustCreateN(t, e, tn.ID, sello.EnvTest, 4, 0)
		got, err := e.s.FindDocumentsByENCF(t.Context(), tn.ID, sello.EnvTest, []string{docs[3].ENCF, encf("31", 77), docs[1].ENCF, "garbage"})
		if err != nil {
			t.Fatalf("FindDocumentsByENCF: %v", err)
		}
		deepEqual(t, "found", sortedENCFs(got), []string{docs[1].ENCF, docs[3].ENCF})
		for _, d := range got {
			if d.ENCF == docs[1].ENCF {
				deepEqual(t, "document", d, summary(docs[1]))
			}
		}
		got, err = e.s.FindDocumentsByENCF(t.Context(), tn.ID, sello.EnvTest, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("no e-NCFs: got %v, %v; want none", got, err)
		}
	})
	t.Run("ListNewestFirst", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		docs := mustCreateN(t, e, tn.ID, sello.EnvTest, 5, time.Second)
		got, next, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{})
		if err != nil {
			t.Fatalf("ListDocuments: %v", err)
		}
		want := summaries(docs)
		slices.Reverse(want)
		deepEqual(t, "documents", got, want)
		if next != "" {
			t.Errorf("next: got %q, want \"\" on the last page", next)
		}
	})
	t.Run("ListSameInstant", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		e.clock.Step = 0
		docs := mustCreateN(t, e, tn.ID, sello.EnvTest, 6, 0)
		var got []string
		cursor := ""
		for {
			page, next, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{Limit: 4, Cursor: cursor})
			if err != nil {
				t.Fatalf("ListDocuments: %v", err)
			}
			got = append(got, encfs(page)...)
			if cursor = next; cursor == "" {
				break
			}
		}
		want := encfs(docs)
		slices.Reverse(want)
		deepEqual(t, "documents created at one instant, newest first", got, want)
	})
	t.Run("ListFilters", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeConsumo, 1, 100)
		e.clock.Step = 0
		var all []*sello.Document
		for i := range 6 {
			typ := sello.TypeCreditoFiscal
			if i%2 == 1 {
				typ = sello.TypeConsumo
			}
			nd := newDoc(tn.ID, sello.EnvTest, typ)
			if i == 2 || i == 5 {
				nd = withBuyer(nd, otherBuyer)
			}
			all = append(all, MustCreateDocument(t, e.s, nd))
			e.clock.Add(time.Minute)
		}
		from, to := all[1].CreatedAt, all[4].CreatedAt
		for _, tt := range []struct {
			name string
			f    sello.DocumentFilter
			want []*sello.Document
		}{
			{"Type", sello.DocumentFilter{Type: sello.TypeConsumo}, []*sello.Document{all[5], all[3], all[1]}},
			{"Status", sello.DocumentFilter{Status: sello.StatusQueuedForSigning}, []*sello.Document{all[5], all[4], all[3], all[2], all[1], all[0]}},
			{"OtherStatus", sello.DocumentFilter{Status: sello.StatusAccepted}, nil},
			{"CreatedRange", sello.DocumentFilter{CreatedFrom: &from, CreatedTo: &to}, []*sello.Document{all[3], all[2], all[1]}},
			{"TypeAndRange", sello.DocumentFilter{Type: sello.TypeCreditoFiscal, CreatedFrom: &from}, []*sello.Document{all[4], all[2]}},
			{"Buyer", sello.DocumentFilter{BuyerRNC: otherBuyer}, []*sello.Document{all[5], all[2]}},
			{"OtherBuyer", sello.DocumentFilter{BuyerRNC: "131880681"}, []*sello.Document{all[4], all[3], all[1], all[0]}},
			{"UnknownBuyer", sello.DocumentFilter{BuyerRNC: "40200000009"}, nil},
			{"BuyerAndType", sello.DocumentFilter{BuyerRNC: otherBuyer, Type: sello.TypeConsumo}, []*sello.Document{all[5]}},
			{"ENCF", sello.DocumentFilter{ENCF: all[3].ENCF}, []*sello.Document{all[3]}},
			{"ENCFAndOtherType", sello.DocumentFilter{ENCF: all[3].ENCF, Type: sello.TypeCreditoFiscal}, nil},
			{"ENCFUnknown", sello.DocumentFilter{ENCF: encf(sello.TypeCreditoFiscal, 99)}, nil},
			{"ENCFAndCursor", sello.DocumentFilter{ENCF: all[3].ENCF, Cursor: sello.FormatCursor(all[4].CreatedAt, all[4].ID)}, []*sello.Document{all[3]}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				got, _, err := e.s.ListDocuments(ctx, tn.ID, sello.EnvTest, tt.f)
				if err != nil {
					t.Fatalf("ListDocuments: %v", err)
				}
				deepEqual(t, "documents", encfs(got), encfs(tt.want))
			})
		}
	})
	t.Run("ListPagination", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		docs := mustCreateN(t, e, tn.ID, sello.EnvTest, 23, 0)
		seen := map[string]int{}
		var order []string
		cursor, pages := "", 0
		for {
			page, next, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{Limit: 5, Cursor: cursor})
			if err != nil {
				t.Fatalf("ListDocuments page %d: %v", pages, err)
			}
			pages++
			if len(page) > 5 {
				t.Fatalf("page %d: got %d documents, want at most 5", pages, len(page))
			}
			for _, d := range page {
				seen[d.ENCF]++
				order = append(order, d.ENCF)
			}
			if next == "" {
				break
			}
			if pages > 10 {
				t.Fatal("pagination does not end")
			}
			cursor = next
		}
		if pages != 5 {
			t.Errorf("pages: got %d, want 5", pages)
		}
		want := encfs(docs)
		slices.Reverse(want)
		deepEqual(t, "visited newest first", order, want)
		for e, n := range seen {
			if n != 1 {
				t.Errorf("%s visited %d times", e, n)
			}
		}
	})
	t.Run("ListLimit", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 1000)
		mustCreateN(t, e, tn.ID, sello.EnvTest, sello.DefaultPageSize+2, 0)
		for _, tt := range []struct{ limit, want int }{{1, 1}, {3, 3}, {0, sello.DefaultPageSize}, {sello.MaxPageSize + 1, sello.DefaultPageSize + 2}} {
			got, next, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{Limit: tt.limit})
			if err != nil {
				t.Fatalf("ListDocuments: %v", err)
			}
			if len(got) != tt.want || (next == "") != (tt.want == sello.DefaultPageSize+2) {
				t.Errorf("limit %d: got %d documents and next %q, want %d", tt.limit, len(got), next, tt.want)
			}
		}
	})
	t.Run("ErrMalformedCursor", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		for _, c := range []string{"not a cursor", "bm9wZQ", "!!!"} {
			_, _, err := e.s.ListDocuments(t.Context(), tn.ID, sello.EnvTest, sello.DocumentFilter{Cursor: c})
			wantError(t, err, sello.CodeInvalidRequest, "ursor")
		}
	})
}

func testEvents(t *testing.T, open Open) {
	t.Run("AfterAndLimit", func(t *testing.T) {
		e := newEnv(t, open)
		ctx := t.Context()
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		docs := mustCreateN(t, e, tn.ID, sello.EnvTest, 5, 0)
		all := mustEvents(t, e.s, tn.ID, sello.EnvTest, len(docs))
		var got []string
		for i, ev := range all {
			got = append(got, ev.Document.ENCF)
			if i > 0 && !all[i-1].Pos.Less(ev.Pos) {
				t.Errorf("position %+v after %+v: want increasing", ev.Pos, all[i-1].Pos)
			}
		}
		deepEqual(t, "oldest first", got, encfs(docs))
		page, err := e.s.ListEvents(ctx, tn.ID, sello.EnvTest, sello.EventFilter{After: all[1].Pos, Limit: 2})
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		if len(page) != 2 || page[0].ID != all[2].ID || page[1].ID != all[3].ID {
			t.Errorf("after %+v, limit 2: got %d events, want events 3 and 4", all[1].Pos, len(page))
		}
	})
	t.Run("Type", func(t *testing.T) {
		e := newEnv(t, open)
		tn := MustCreateTenant(t, e.s)
		MustAddSequence(t, e.s, tn.ID, sello.EnvTest, sello.TypeCreditoFiscal, 1, 100)
		mustCreateN(t, e, tn.ID, sello.EnvTest, 2, 0)
		for _, tt := range []struct {
			typ  sello.EventType
			want int
		}{{sello.EventECFQueued, 2}, {sello.EventECFAccepted, 0}} {
			if got := WaitEvents(t, e.s, tn.ID, sello.EnvTest, sello.EventFilter{Type: tt.typ}, AtLeast(tt.want)); len(got) != tt.want {
				t.Errorf("type %s: got %d events, want %d", tt.typ, len(got), tt.want)
			}
		}
	})
}
