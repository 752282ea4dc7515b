package portal

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/sello-do/sello"
	"github.com/sello-do/sello/internal/i18n"
	"github.com/shopspring/decimal"
)

// failedDeliveriesShown is how many failed webhook deliveries Inicio
// counts: past it the page says "more than".
const failedDeliveriesShown = 999

// homeData is Inicio, the company's month at a glance in one environment.
type homeData struct {
	Now      time.Time
	Overview *sello.Overview
	// Month is this month's name ("noviembre de 2026").
	Month string
	// Issued and Received are this month's totals; Types per type.
	Issued, Received sello.Sums
	Types            []sello.TypeSums
	// The charts: this month's documents per day (issued, received) and
	// the last twelve months' totals and ITBIS.
	IssuedDays, ReceivedDays, MonthTotals, MonthITBIS *barChart
	// Banner is DGII's state in the page's environment when it is not
	// available (contingency, or sending what waited), else nil.
	Banner *envState
	// Sequences are the types whose e-NCF ranges run out.
	Sequences []sello.SequenceAlert
	// Certificates are the signing certificates that expire within
	// sello.CertificateExpiryWarning; NoCertificate says none is valid.
	Certificates  []*sello.Certificate
	NoCertificate bool
	// FailedDeliveries counts the failed webhook deliveries (up to
	// failedDeliveriesShown+1), FailedHref is their list.
	FailedDeliveries int
	FailedHref       string
}

// handleHome is Inicio, the company's month at a glance in one
// environment (the path's {env}; TesteCF at /): its documents issued and
// received per day this month, their totals and ITBIS this month and in
// each of the last twelve, DGII's state, and what needs attention: e-NCF
// ranges running out, certificates expiring, failed webhook deliveries.
// Every role reads it. Its reads are bounded whatever the number of
// documents (sello.OverviewStore).
func (s *Server) handleHome(w http.ResponseWriter, r *http.Request, v *visit) error {
	if env := r.PathValue("env"); env != "" {
		if _, err := sello.ParseEnvironment(env); err != nil {
			return pageError(sello.CodeNotFound, v.T("There is no such page."))
		}
	}
	l := s.layout(r, v, v.Tenant.Name)
	h, err := s.home(r.Context(), l)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, homePage(l, h))
	return nil
}

// home reads and sums what Inicio shows.
func (s *Server) home(ctx context.Context, l *layoutData) (*homeData, error) {
	now := s.now()
	today := sello.TodayInDR(now)
	tenantID, env := l.V.Tenant.ID, l.Env
	from, to := sello.OverviewRange(today)
	issued, err := s.Store.FindIssuedTotals(ctx, tenantID, env, from, to)
	if err != nil {
		return nil, err
	}
	received, err := s.Store.FindReceivedTotals(ctx, tenantID, env, from, to)
	if err != nil {
		return nil, err
	}
	o := sello.NewOverview(today, issued, received)
	h := &homeData{Now: now, Overview: o, Month: monthName(l, o.Month().Month), Issued: o.Month().Issued, Received: o.Month().Received, Types: o.Types}
	h.IssuedDays = dayChart(l, "issued-days", l.T("Documents issued per day"), l.T("How many documents the company issued each day of %s, by their state at DGII.", h.Month), o.Issued, issuedSeries)
	h.ReceivedDays = dayChart(l, "received-days", l.T("Documents received per day"), l.T("How many documents suppliers sent the company each day of %s, by DGII's confirmation of each.", h.Month), o.Received, receivedSeries)
	h.MonthTotals = monthChart(l, "month-totals", l.T("Total issued and received per month"), l.T("The total in pesos of the documents issued and of those received in each of the last 12 months, credit notes subtracted, without those DGII rejected."), o.Months, func(s sello.Sums) decimal.Decimal { return s.Total })
	h.MonthITBIS = monthChart(l, "month-itbis", l.T("ITBIS issued and received per month"), l.T("The ITBIS of the documents issued and of those received in each of the last 12 months, credit notes subtracted, without those DGII rejected."), o.Months, func(s sello.Sums) decimal.Decimal { return s.ITBIS })
	if st := l.current(); st.State == string(sello.DGIIContingency) || st.State == string(sello.DGIIDraining) {
		h.Banner = &st
	}
	seqs, err := s.Store.FindSequences(ctx, tenantID, env)
	if err != nil {
		return nil, err
	}
	h.Sequences = sello.SequenceAlerts(seqs, s.SequenceThresholds, now)
	certs, err := s.Store.FindCertificates(ctx, tenantID, env)
	if err != nil {
		return nil, err
	}
	h.NoCertificate = true
	for _, c := range certs {
		if !c.Valid(now) {
			continue
		}
		h.NoCertificate = false
		if c.NotAfter.Sub(now) <= sello.CertificateExpiryWarning {
			h.Certificates = append(h.Certificates, c)
		}
	}
	if h.FailedDeliveries, err = s.Store.CountFailedWebhookDeliveries(ctx, tenantID, env, failedDeliveriesShown+1); err != nil {
		return nil, err
	}
	h.FailedHref = deliveriesPath(env) + "?" + url.Values{"estado": {failedView}}.Encode()
	return h, nil
}

// The series of the charts per day: issued documents by their status
// (those on their way to DGII together), received ones by DGII's
// confirmation (those it has not confirmed yet together).
var (
	issuedSeries = []stateSeries{
		{"chart series: accepted", "bar-accepted", []string{string(sello.StatusAccepted)}},
		{"chart series: accepted with conditions", "bar-conditional", []string{string(sello.StatusAcceptedConditional)}},
		{"chart series: on their way to DGII", "bar-pending", []string{sello.IssuedInProcess}},
		{"chart series: rejected", "bar-rejected", []string{string(sello.StatusRejected)}},
		{"chart series: failed", "bar-failed", []string{string(sello.StatusFailed)}},
	}
	receivedSeries = []stateSeries{
		{"chart series: accepted by DGII", "bar-accepted", []string{sello.DGIIAccepted}},
		{"chart series: not confirmed yet", "bar-pending", []string{sello.DGIIPending, sello.DGIINotFound, ""}},
		{"chart series: rejected", "bar-rejected", []string{sello.DGIIRejected}},
		{"chart series: refuted", "bar-failed", []string{sello.DGIIRefuted}},
	}
)

// stateSeries is a series of a chart per day: its catalogue key, its
// colour and the states it counts.
type stateSeries struct {
	Key, Class string
	States     []string
}

// dayChart is a stacked chart of this month's documents per day.
func dayChart(l *layoutData, id, title, desc string, days []sello.DayStates, series []stateSeries) *barChart {
	c := &barChart{ID: id, Title: title, Desc: desc, Stacked: true, Axis: l.T("Day"), Total: l.T("Total")}
	for _, s := range series {
		c.Series = append(c.Series, chartSeries{Name: l.T(s.Key), Class: s.Class})
	}
	for _, d := range days {
		g := chartGroup{Name: formatDay(l, d.Day)}
		if d.Day.Day == 1 || d.Day.Day%5 == 0 {
			g.Tick = strconv.Itoa(d.Day.Day)
		}
		for _, s := range series {
			var n int64
			for _, st := range s.States {
				n += d.States[st]
			}
			g.Values = append(g.Values, decimal.NewFromInt(n))
			g.Text = append(g.Text, strconv.FormatInt(n, 10))
		}
		g.TotalText = strconv.FormatInt(d.Total(), 10)
		g.InTable = d.Total() > 0
		c.Groups = append(c.Groups, g)
	}
	return c
}

// monthChart is a chart of the last twelve months: issued beside
// received, of the amount of picks.
func monthChart(l *layoutData, id, title, desc string, months []sello.MonthSums, pick func(sello.Sums) decimal.Decimal) *barChart {
	c := &barChart{ID: id, Title: title, Desc: desc, Axis: l.T("Month"), Money: true,
		Series: []chartSeries{{Name: l.T("issued documents, plural"), Class: "bar-issued"}, {Name: l.T("received documents, plural"), Class: "bar-received"}}}
	for _, m := range months {
		g := chartGroup{Tick: l.T(fmt.Sprintf("month %d, short", m.Month.Month)), Name: monthName(l, m.Month), InTable: true}
		for _, v := range []decimal.Decimal{pick(m.Issued), pick(m.Received)} {
			g.Values = append(g.Values, v)
			g.Text = append(g.Text, i18n.FormatMoney(l.V.Lang, v))
		}
		c.Groups = append(c.Groups, g)
	}
	return c
}

// monthName is a month and its year: "noviembre de 2026".
func monthName(l *layoutData, d sello.Date) string {
	return l.T("%s %d (a month and its year)", l.T(fmt.Sprintf("month %d", d.Month)), d.Year)
}

// money is an amount as the page shows it: RD$ 1,180.00.
func money(l *layoutData, d decimal.Decimal) string { return i18n.FormatMoney(l.V.Lang, d) }

// homeTypeName is a document type's short name: "E31 Crédito fiscal".
func homeTypeName(l *layoutData, t sello.DocumentType) string {
	return t.Code() + " " + l.T(fmt.Sprintf("short name of type %s", t))
}

// formatDay is a date in the page's language: 26/11/2026.
func formatDay(l *layoutData, d sello.Date) string {
	return i18n.FormatDate(l.V.Lang, time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC))
}

// daysLeft is how many whole days are left until t.
func daysLeft(now, t time.Time) int { return int(t.Sub(now) / (24 * time.Hour)) }

// handleDGIIStates is the header's list of environments with DGII's state,
// for htmx to refresh it (?env= marks the page's environment).
func (s *Server) handleDGIIStates(w http.ResponseWriter, r *http.Request, v *visit) error {
	l := s.layout(r, v, "")
	if env, err := sello.ParseEnvironment(r.URL.Query().Get("env")); err == nil {
		l.Env = env
	}
	s.render(w, r, http.StatusOK, dgiiStates(l))
	return nil
}

// current is the DGII state of the page's environment.
func (l *layoutData) current() envState {
	for _, e := range l.DGII {
		if e.Env == l.Env {
			return e
		}
	}
	return envState{Env: l.Env, State: "unknown"}
}
