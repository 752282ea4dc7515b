package sello

import (
	"context"
	"fmt"
	"time"
)

// ReceiverLimits bound what the tenants' receiver services take from the
// public internet (docs/receptor.md, "Limits"): requests per client address
// and per receiver, the documents an issuer may deliver to a tenant in a
// day while DGII has not confirmed them, and how long a call may take.
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
	// Timeout bounds a call from its start: past it the receiver stops
	// working on it, and signs and stores nothing.
	Timeout time.Duration
}

// IssuerQuotaWindow is the window ReceiverLimits.IssuerQuota counts in: a
// day, sliding.
const IssuerQuotaWindow = 24 * time.Hour

// DefaultReceiverLimits are the limits of sello serve (docs/receptor.md,
// "Limits"): far above what one supplier, a provider sending for many
// suppliers from a few addresses, or DGII's certification sends, and far
// below a flood.
var DefaultReceiverLimits = ReceiverLimits{
	PerAddress:  RatePlan{Name: "receiver-address", Rate: 50, Burst: 1000},
	PerTenant:   RatePlan{Name: "receiver", Rate: 200, Burst: 4000},
	IssuerQuota: 10_000,
	Timeout:     time.Minute,
}

// checkIssuerQuota returns RATE_LIMITED, with the seconds until the
// issuer is under its quota again (IssuerQuotaReached), when the tenant's
// receiver in env took IssuerQuota documents of issuerRNC DGII has not
// accepted in the last IssuerQuotaWindow. Concurrent calls may each pass
// at the last place: the quota bounds a flood, not an exact count.
func (rc *Reception) checkIssuerQuota(ctx context.Context, t *Tenant, env Environment, issuerRNC string) error {
	if rc.IssuerQuota <= 0 {
		return nil
	}
	now := rc.now()
	reached, earliest, err := rc.Store.IssuerQuotaReached(ctx, t.ID, env, issuerRNC, now.Add(-IssuerQuotaWindow), rc.IssuerQuota)
	if err != nil {
		return fmt.Errorf("count issuer's documents: %w", err)
	} else if !reached {
		return nil
	}
	retry := max(1, int(earliest.Add(IssuerQuotaWindow).Sub(now).Seconds()+0.999))
	return &Error{
		Code:              CodeRateLimited,
		Message:           fmt.Sprintf("This receiver took the %d documents of RNC %s it takes in 24 hours before DGII confirms them. Retry after %d s.", rc.IssuerQuota, issuerRNC, retry),
		RetryAfterSeconds: retry,
	}
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
