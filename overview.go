package sello

import (
	"context"
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// A tenant's month at a glance (the portal's Inicio, docs/portal.md): its
// documents issued and received per day and state, and their totals and
// ITBIS this month and in each of the last twelve.
//
// The stores keep the sums per day, type and state (DayTotals) in the
// transaction of every document's creation and change, so a month or a
// year costs the same to read with a thousand documents or a million: a
// row per day, type and state, never a document (docs/decisions.md,
// "Inicio's totals"). A document's day is its FechaEmision, the date its
// taxes belong to; its amounts are the e-CF's MontoTotal and TotalITBIS,
// which DGII's format writes in pesos whatever the currency of the sale
// (the foreign currency's amounts are in OtraMoneda, converted at the
// document's TipoCambio by the issuer), so every sum is in DOP.

// OverviewMonths is how many months the overview sums: this month and the
// eleven before it.
const OverviewMonths = 12

// DayTotals is one day's documents of one type in one state: how many,
// and the sums of their MontoTotal and TotalITBIS in DOP.
type DayTotals struct {
	Day  Date
	Type DocumentType
	// State is, for issued documents, their Status, those on their way
	// to DGII (queued for signing, signed, submitted) together as
	// IssuedInProcess: signing and sending a document change nothing in
	// the totals, and cost no write to them. For received documents it is
	// DGII's confirmation (InboundDGII.Status; "" for documents received
	// before Sello asked DGII).
	State string
	Count int64
	Total decimal.Decimal
	ITBIS decimal.Decimal
}

// OverviewStore reads what the month at a glance shows.
type OverviewStore interface {
	// FindIssuedTotals returns the tenant's documents in env whose
	// FechaEmision is from from to to, both included, per day, type and
	// state (IssuedState), in no particular order; days, types and states
	// without documents are absent.
	FindIssuedTotals(ctx context.Context, tenantID string, env Environment, from, to Date) ([]DayTotals, error)
	// FindReceivedTotals is FindIssuedTotals for the documents suppliers
	// sent the tenant, per DGII's confirmation of each.
	FindReceivedTotals(ctx context.Context, tenantID string, env Environment, from, to Date) ([]DayTotals, error)
	// CountFailedWebhookDeliveries counts the tenant's failed webhook
	// deliveries in env (those the Webhooks page's failed view lists), up
	// to limit: a count of limit means limit or more.
	CountFailedWebhookDeliveries(ctx context.Context, tenantID string, env Environment, limit int) (int, error)
}

// Sums are documents counted and their amounts summed.
type Sums struct {
	Count int64
	Total decimal.Decimal
	ITBIS decimal.Decimal
}

// add counts t in s, its amounts with sign (-1 for a credit note).
func (s *Sums) add(t DayTotals) {
	s.Count += t.Count
	if t.Type == TypeNotaCredito {
		s.Total = s.Total.Sub(t.Total)
		s.ITBIS = s.ITBIS.Sub(t.ITBIS)
		return
	}
	s.Total = s.Total.Add(t.Total)
	s.ITBIS = s.ITBIS.Add(t.ITBIS)
}

// IssuedInProcess is the day totals' state of the issued documents on
// their way to DGII: queued for signing, signed or submitted.
const IssuedInProcess = "in_process"

// IssuedState is the day totals' state of an issued document in status s
// (DayTotals.State): s, or IssuedInProcess. The stores' triggers write
// the same.
func IssuedState(s Status) string {
	switch s {
	case StatusQueuedForSigning, StatusSigned, StatusSubmitted:
		return IssuedInProcess
	}
	return string(s)
}

// IssuedCounts reports whether issued documents in the day totals' state
// count in the totals: all but those DGII rejected and those that failed
// before reaching it (neither has fiscal effect). Documents on their way
// count: they were issued, and DGII's answer is usually seconds away.
func IssuedCounts(state string) bool {
	return state != string(StatusRejected) && state != string(StatusFailed)
}

// ReceivedCounts reports whether received documents in DGII's confirmation
// state count in the totals: all but those DGII rejected and those it
// refuted (another document under the e-NCF is the issuer's).
func ReceivedCounts(state string) bool { return state != DGIIRejected && state != DGIIRefuted }

// DayStates is one day's documents per state: how many in each.
type DayStates struct {
	Day    Date
	States map[string]int64
}

// Total is how many documents the day has in every state.
func (d DayStates) Total() int64 {
	var n int64
	for _, c := range d.States {
		n += c
	}
	return n
}

// MonthSums is one month's totals: issued and received.
type MonthSums struct {
	// Month is the month's first day.
	Month    Date
	Issued   Sums
	Received Sums
}

// TypeSums is one document type's totals in a month.
type TypeSums struct {
	Type     DocumentType
	Issued   Sums
	Received Sums
}

// Overview is a tenant's month at a glance in one environment.
type Overview struct {
	// Today is the day it was made, in the Dominican Republic.
	Today Date
	// Issued and Received are this month's documents per day, from the
	// first to the last day of the month (days to come included, with
	// nothing).
	Issued, Received []DayStates
	// Months are the totals of the last OverviewMonths months, the oldest
	// first: the last is this month's.
	Months []MonthSums
	// Types are this month's totals per document type, in the types'
	// order, those with documents only.
	Types []TypeSums
}

// Month is this month's totals.
func (o *Overview) Month() MonthSums { return o.Months[len(o.Months)-1] }

// OverviewRange is the FechaEmision range an overview on today reads: from
// the first day of the month OverviewMonths-1 months before today's to
// the last day of today's month.
func OverviewRange(today Date) (from, to Date) {
	first := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, time.UTC)
	return DateOf(first.AddDate(0, -(OverviewMonths - 1), 0)), DateOf(first.AddDate(0, 1, -1))
}

// NewOverview sums the day totals of issued and received documents read
// over OverviewRange(today) into the overview of today's month. Counts
// are of every state; sums are of the documents that count (IssuedCounts,
// ReceivedCounts), credit notes (type 34) subtracting.
func NewOverview(today Date, issued, received []DayTotals) *Overview {
	from, _ := OverviewRange(today)
	o := &Overview{Today: today}
	start := time.Date(from.Year, from.Month, 1, 0, 0, 0, 0, time.UTC)
	for i := range OverviewMonths {
		o.Months = append(o.Months, MonthSums{Month: DateOf(start.AddDate(0, i, 0))})
	}
	first := time.Date(today.Year, today.Month, 1, 0, 0, 0, 0, time.UTC)
	days := first.AddDate(0, 1, -1).Day()
	o.Issued, o.Received = make([]DayStates, days), make([]DayStates, days)
	for i := range days {
		d := DateOf(first.AddDate(0, 0, i))
		o.Issued[i] = DayStates{Day: d, States: map[string]int64{}}
		o.Received[i] = DayStates{Day: d, States: map[string]int64{}}
	}
	types := map[DocumentType]*TypeSums{}
	month := func(d Date) int { return (d.Year-from.Year)*12 + int(d.Month) - int(from.Month) }
	for _, side := range []struct {
		rows   []DayTotals
		days   []DayStates
		counts func(string) bool
		sums   func(*MonthSums) *Sums
		types  func(*TypeSums) *Sums
	}{
		{issued, o.Issued, IssuedCounts,
			func(m *MonthSums) *Sums { return &m.Issued }, func(t *TypeSums) *Sums { return &t.Issued }},
		{received, o.Received, ReceivedCounts,
			func(m *MonthSums) *Sums { return &m.Received }, func(t *TypeSums) *Sums { return &t.Received }},
	} {
		for _, t := range side.rows {
			m := month(t.Day)
			if m < 0 || m >= OverviewMonths || t.Count == 0 {
				continue
			}
			if m == OverviewMonths-1 {
				side.days[t.Day.Day-1].States[t.State] += t.Count
			}
			if !side.counts(t.State) {
				continue
			}
			side.sums(&o.Months[m]).add(t)
			if m == OverviewMonths-1 {
				ts := types[t.Type]
				if ts == nil {
					ts = &TypeSums{Type: t.Type}
					types[t.Type] = ts
				}
				side.types(ts).add(t)
			}
		}
	}
	for _, t := range DocumentTypes {
		if ts := types[t]; ts != nil {
			o.Types = append(o.Types, *ts)
		}
	}
	return o
}

// SequenceAlert is a document type whose e-NCF ranges are running out:
// every usable range of the type is low or expiring (Sequence.Warnings),
// or none is usable (used up or expired) and documents of the type are
// refused.
type SequenceAlert struct {
	Type DocumentType
	// Left is how many numbers the type's usable ranges have left.
	Left int64
	// Low: the numbers are running out (every usable range is low), or
	// none is left.
	Low bool
	// ExpiresOn is the soonest expiry among the usable ranges when every
	// one of them is expiring; nil otherwise.
	ExpiresOn *Date
}

// SequenceAlerts returns the alerts of a tenant's ranges of one
// environment at now under th, in the types' order. A type with a range
// that is neither low nor expiring is fine: its numbers go on there.
func SequenceAlerts(seqs []*Sequence, th SequenceThresholds, now time.Time) []SequenceAlert {
	byType := map[DocumentType][]*Sequence{}
	for _, s := range seqs {
		byType[s.Type] = append(byType[s.Type], s)
	}
	var out []SequenceAlert
	for _, t := range DocumentTypes {
		if len(byType[t]) == 0 {
			continue
		}
		a := SequenceAlert{Type: t, Low: true}
		usable, expiring := 0, 0
		for _, s := range byType[t] {
			if s.State(now) != SequenceActive {
				continue
			}
			usable++
			a.Left += s.Remaining()
			ws := s.Warnings(th, now)
			if !slices.Contains(ws, SequenceWarningLow) {
				a.Low = false
			}
			if slices.Contains(ws, SequenceWarningExpiring) {
				expiring++
				if a.ExpiresOn == nil || a.ExpiresOn.After(*s.ExpiresOn) {
					a.ExpiresOn = s.ExpiresOn
				}
			}
		}
		if usable > 0 && expiring < usable {
			a.ExpiresOn = nil
		}
		if a.Low || a.ExpiresOn != nil {
			out = append(out, a)
		}
	}
	return out
}
