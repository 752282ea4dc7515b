package sello

import (
	"context"
	"fmt"
	"time"
)

// ReceiverLimits bound what the tenants' receiver services take from the
// public internet (docs/receptor.md, "Limits"): requests per client address
// and per receiver, the documents an issuer may deliver to a tenant in a
// day, and under one e-NCF, while DGII has not confirmed them, and how long
// a call may take.
type ReceiverLimits struct {
	// PerAddress limits the calls of one client address (an IPv6 /64) to
	// every receiver together.
	PerAddress RatePlan
	// PerTenant limits the calls to one receiver, the RNC and environment
	// in the path, from every address together; an RNC that is no
	// tenant's is counted the same.
	PerTenant RatePlan
	// IssuerQuota is how many documents of one issuer RNC a tenant's
	// reception service takes in an environment in IssuerQuotaWindow while
	// DGII has not confirmed them; 0 for no quota.
	IssuerQuota int
	// ENCFQuota is how many different documents under one issuer RNC and
	// e-NCF a tenant's reception service keeps in an environment while
	// DGII has not confirmed them (pending or not_found), counting those
	// received in ENCFQuotaWindow; 0 for no quota. Only one of them can be
	// the issuer's: the quota bounds what a forger, or a sender that signs
	// again on every retry, can make the receiver keep.
	ENCFQuota int
	// Timeout bounds a call from its start: past it the receiver stops
	// working on it, and signs and stores nothing.
	Timeout time.Duration
}

// IssuerQuotaHour is the hour, in UTC, of a document received at t in its
// issuer's counts (InboundTx.AddIssuerReceipts).
func IssuerQuotaHour(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

// IssuerQuotaWindow is the window ReceiverLimits.IssuerQuota counts in: a
// day, sliding.
const IssuerQuotaWindow = 24 * time.Hour

// ENCFQuotaWindow is the window ReceiverLimits.ENCFQuota counts in: the
// time the confirmation job asks DGII about a document (InboundConfirmFor).
// A document DGII has not confirmed by then stops counting, so that
// documents posted first under an issuer's e-NCF keep the genuine one out
// for that long at most.
const ENCFQuotaWindow = InboundConfirmFor

// DefaultReceiverLimits are the limits of sello serve (docs/receptor.md,
// "Limits"): far above what one supplier, a provider sending for many
// suppliers from a few addresses, or DGII's certification sends, and far
// below a flood.
var DefaultReceiverLimits = ReceiverLimits{
	PerAddress:  RatePlan{Name: "receiver-address", Rate: 50, Burst: 1000},
	PerTenant:   RatePlan{Name: "receiver", Rate: 200, Burst: 4000},
	IssuerQuota: 10_000,
	ENCFQuota:   DefaultENCFQuota,
	Timeout:     time.Minute,
}

// DefaultENCFQuota is DefaultReceiverLimits.ENCFQuota: an issuer's genuine
// document under an e-NCF is one, its retries signed again a few more.
const DefaultENCFQuota = 10

// CheckQuota returns RATE_LIMITED (ENCFQuotaExceeded) when h holds quota
// (more than 0) unconfirmed documents or more under issuerRNC's encf, nil
// otherwise. h counts the documents received in ENCFQuotaWindow up to now.
func (h *InboundENCF) CheckQuota(quota int, issuerRNC, encf string, now time.Time) error {
	if quota <= 0 || h.Unconfirmed < quota {
		return nil
	}
	return ENCFQuotaExceeded(quota, issuerRNC, encf, h.Earliest.Add(ENCFQuotaWindow).Sub(now))
}

// ENCFQuotaExceeded is the RATE_LIMITED of a receipt over
// ReceiverLimits.ENCFQuota, naming the issuer and e-NCF, with the seconds
// until the earliest counted document leaves the window (retry, at least
// 1 s).
func ENCFQuotaExceeded(quota int, issuerRNC, encf string, retry time.Duration) error {
	secs := max(1, int(retry.Seconds()+0.999))
	e := Errorf(CodeRateLimited, "This receiver holds %d documents under e-NCF %s of RNC %s that DGII has not confirmed, the most it keeps under one e-NCF. Send again once DGII has confirmed one of them, or after %d s.",
		quota, encf, issuerRNC, secs)
	e.RetryAfterSeconds = secs
	return e
}

// checkIssuerQuota returns RATE_LIMITED, with the seconds until the
// earliest counted document leaves the window, when the tenant's receiver
// in env took IssuerQuota documents of issuerRNC in the last
// IssuerQuotaWindow. Concurrent calls may each pass at the last place: the
// quota bounds a flood, not an exact count.
func (rc *Reception) checkIssuerQuota(ctx context.Context, t *Tenant, env Environment, issuerRNC string) error {
	if rc.IssuerQuota <= 0 {
		return nil
	}
	now := rc.now()
	since := now.Add(-IssuerQuotaWindow)
	// The hours' counts first (a few rows, however many documents): they
	// never count fewer than the window holds, so under the quota they
	// answer. Only at it does the exact count run, for the answer and
	// its Retry-After.
	if n, err := rc.Store.CountInboundFromIssuerHours(ctx, t.ID, env, issuerRNC, since); err != nil {
		return fmt.Errorf("count issuer's documents: %w", err)
	} else if n < rc.IssuerQuota {
		return nil
	}
	n, earliest, err := rc.Store.CountInboundFromIssuer(ctx, t.ID, env, issuerRNC, since)
	if err != nil {
		return fmt.Errorf("count issuer's documents: %w", err)
	} else if n < rc.IssuerQuota {
		return nil
	}
	retry := max(1, int(earliest.Add(IssuerQuotaWindow).Sub(now).Seconds()+0.999))
	e := Errorf(CodeRateLimited, "This receiver took the %d documents of RNC %s it takes in 24 hours before DGII confirms them. Retry after %d s.", rc.IssuerQuota, issuerRNC, retry)
	e.RetryAfterSeconds = retry
	return e
}

// CallExpired is UNAVAILABLE once ctx has ended (a receiver call's deadline
// passed, or its caller left), nil before: the receiver then stops, signing
// and storing nothing more.
func CallExpired(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return &Error{Code: CodeUnavailable, Message: "This receiver could not answer in time; send again.", Err: err}
	}
	return nil
}
