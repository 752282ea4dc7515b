package sello_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/sello-do/sello"
	"github.com/shopspring/decimal"
)

func TestOverviewRange(t *testing.T) {
	for _, c := range []struct{ today, from, to sello.Date }{
		{ymd(2026, 11, 27), ymd(2025, 12, 1), ymd(2026, 11, 30)},
		{ymd(2026, 1, 1), ymd(2025, 2, 1), ymd(2026, 1, 31)},
		{ymd(2028, 2, 10), ymd(2027, 3, 1), ymd(2028, 2, 29)},
	} {
		if from, to := sello.OverviewRange(c.today); from != c.from || to != c.to {
			t.Errorf("OverviewRange(%s): %s to %s, want %s to %s", c.today, from, to, c.from, c.to)
		}
	}
}

// TestNewOverview: every state counts per day; the sums leave out
// documents DGII rejected (and failed ones, and refuted received ones),
// subtract credit notes, and fall in the month of each FechaEmision;
// this month's types are listed in the types' order.
func TestNewOverview(t *testing.T) {
	today := ymd(2026, 2, 10)
	row := func(d sello.Date, typ sello.DocumentType, state string, n int64, total, itbis string) sello.DayTotals {
		return sello.DayTotals{Day: d, Type: typ, State: state, Count: n, Total: decimal.RequireFromString(total), ITBIS: decimal.RequireFromString(itbis)}
	}
	issued := []sello.DayTotals{
		row(ymd(2026, 2, 1), sello.TypeCreditoFiscal, "accepted", 3, "3540.00", "540.00"),
		row(ymd(2026, 2, 1), sello.TypeCreditoFiscal, "rejected", 1, "1180.00", "180.00"),
		row(ymd(2026, 2, 1), sello.TypeConsumo, sello.IssuedInProcess, 2, "236.00", "36.00"),
		row(ymd(2026, 2, 9), sello.TypeNotaCredito, "accepted", 1, "118.00", "18.00"),
		row(ymd(2026, 2, 9), sello.TypeCreditoFiscal, "failed", 1, "50.00", "9.00"),
		row(ymd(2026, 2, 28), sello.TypeConsumo, "accepted_conditional", 1, "10.00", "1.53"),
		row(ymd(2025, 3, 31), sello.TypeCreditoFiscal, "accepted", 1, "1.00", "0.18"),
		row(ymd(2025, 2, 28), sello.TypeCreditoFiscal, "accepted", 9, "9.00", "1.00"), // before the range
	}
	received := []sello.DayTotals{
		row(ymd(2026, 2, 3), sello.TypeCreditoFiscal, sello.DGIIAccepted, 2, "2000.00", "360.00"),
		row(ymd(2026, 2, 3), sello.TypeCreditoFiscal, sello.DGIIRefuted, 1, "1000.00", "180.00"),
		row(ymd(2026, 2, 3), sello.TypeCreditoFiscal, sello.DGIIRejected, 1, "1000.00", "180.00"),
		row(ymd(2026, 2, 4), sello.TypeCreditoFiscal, "", 1, "5.50", "0"),
		row(ymd(2026, 1, 15), sello.TypeCreditoFiscal, sello.DGIIPending, 1, "100.00", "18.00"),
	}
	o := sello.NewOverview(today, issued, received)
	if len(o.Issued) != 28 || len(o.Received) != 28 || o.Issued[0].Day != ymd(2026, 2, 1) || o.Issued[27].Day != ymd(2026, 2, 28) {
		t.Fatalf("days: %d issued, %d received, from %s to %s; want February's 28", len(o.Issued), len(o.Received), o.Issued[0].Day, o.Issued[len(o.Issued)-1].Day)
	}
	if got := o.Issued[0].States; got["accepted"] != 3 || got["rejected"] != 1 || got[sello.IssuedInProcess] != 2 || o.Issued[0].Total() != 6 {
		t.Errorf("1 February's issued states: %v", got)
	}
	if got := o.Issued[8].States; got["accepted"] != 1 || got["failed"] != 1 {
		t.Errorf("9 February's issued states: %v", got)
	}
	if got := o.Received[2].States; got[sello.DGIIAccepted] != 2 || got[sello.DGIIRefuted] != 1 || got[sello.DGIIRejected] != 1 {
		t.Errorf("3 February's received states: %v", got)
	}
	if len(o.Months) != sello.OverviewMonths || o.Months[0].Month != ymd(2025, 3, 1) || o.Month().Month != ymd(2026, 2, 1) {
		t.Fatalf("months: %d, from %s to %s", len(o.Months), o.Months[0].Month, o.Month().Month)
	}
	wantSums(t, "February issued", o.Month().Issued, 7, "3668.00", "559.53")
	wantSums(t, "February received", o.Month().Received, 3, "2005.50", "360.00")
	wantSums(t, "January received", o.Months[10].Received, 1, "100.00", "18.00")
	wantSums(t, "March 2025 issued", o.Months[0].Issued, 1, "1.00", "0.18")
	if len(o.Types) != 3 || o.Types[0].Type != sello.TypeCreditoFiscal || o.Types[1].Type != sello.TypeConsumo || o.Types[2].Type != sello.TypeNotaCredito {
		t.Fatalf("types: %+v", o.Types)
	}
	wantSums(t, "February's 31 issued", o.Types[0].Issued, 3, "3540.00", "540.00")
	wantSums(t, "February's 31 received", o.Types[0].Received, 3, "2005.50", "360.00")
	wantSums(t, "February's 34 issued", o.Types[2].Issued, 1, "-118.00", "-18.00")
}

func wantSums(t *testing.T, what string, got sello.Sums, n int64, total, itbis string) {
	t.Helper()
	if got.Count != n || !got.Total.Equal(decimal.RequireFromString(total)) || !got.ITBIS.Equal(decimal.RequireFromString(itbis)) {
		t.Errorf("%s: %d documents, %s, ITBIS %s; want %d, %s, ITBIS %s", what, got.Count, got.Total, got.ITBIS, n, total, itbis)
	}
}

func ymd(y int, m time.Month, d int) sello.Date { return sello.Date{Year: y, Month: m, Day: d} }

// TestSequenceAlerts: a type warns when every usable range of it is low
// (or none is usable), or every one expires soon; a healthy range of the
// type keeps it quiet.
func TestSequenceAlerts(t *testing.T) {
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	soon, later := ymd(2026, 12, 10), ymd(2027, 12, 31)
	seq := func(typ sello.DocumentType, from, to, next int64, expires *sello.Date) *sello.Sequence {
		return &sello.Sequence{Type: typ, From: from, To: to, Next: next, ExpiresOn: expires}
	}
	got := sello.SequenceAlerts([]*sello.Sequence{
		seq(sello.TypeCreditoFiscal, 1, 1000, 950, &later),                  // low
		seq(sello.TypeCreditoFiscal, 1001, 2000, 1001, &soon),               // expiring: the type's numbers go on in neither alone
		seq(sello.TypeConsumo, 1, 1000, 990, nil),                           // low
		seq(sello.TypeConsumo, 1001, 100000, 1001, nil),                     // fine: 32 is quiet
		seq(sello.TypeNotaDebito, 1, 10, 11, &later),                        // used up, nothing else
		seq(sello.TypeNotaCredito, 1, 100000, 5, nil),                       // fine
		seq(sello.TypeGubernamental, 1, 100000, 5, &soon),                   // expiring
		seq(sello.TypeExportaciones, 1, 100000, 5, &sello.Date{2026, 1, 1}), // expired, nothing else
	}, sello.DefaultSequenceThresholds, now)
	want := []sello.SequenceAlert{
		{Type: sello.TypeNotaDebito, Low: true},
		{Type: sello.TypeGubernamental, Left: 99996, ExpiresOn: &soon},
		{Type: sello.TypeExportaciones, Low: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("alerts:\n got  %+v\n want %+v", got, want)
	}
}

func TestIssuedState(t *testing.T) {
	for s, want := range map[sello.Status]string{
		sello.StatusQueuedForSigning: sello.IssuedInProcess, sello.StatusSigned: sello.IssuedInProcess, sello.StatusSubmitted: sello.IssuedInProcess,
		sello.StatusAccepted: "accepted", sello.StatusAcceptedConditional: "accepted_conditional", sello.StatusRejected: "rejected", sello.StatusFailed: "failed",
	} {
		if got := sello.IssuedState(s); got != want {
			t.Errorf("IssuedState(%s) = %s, want %s", s, got, want)
		}
	}
	if len(sello.Statuses) != 7 {
		t.Errorf("%d statuses: IssuedState and the stores' triggers (document_day_state) name every one", len(sello.Statuses))
	}
}
