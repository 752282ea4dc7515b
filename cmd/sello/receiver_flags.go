package main

import (
	"flag"
	"fmt"
	"net/netip"
	"strings"

	"github.com/sello-do/sello"
)

// receiverFlags are serve's limits of the tenants' receiver services and
// the reverse proxies in front of it (docs/receptor.md, "Limits").
type receiverFlags struct {
	limits  sello.ReceiverLimits
	proxies string
}

// receiverEnv pairs each of receiverFlags' flags with its environment
// variable, for setFromEnv.
var receiverEnv = []string{
	"receiver-address-rate", "SELLO_RECEIVER_ADDRESS_RATE",
	"receiver-address-burst", "SELLO_RECEIVER_ADDRESS_BURST",
	"receiver-tenant-rate", "SELLO_RECEIVER_TENANT_RATE",
	"receiver-tenant-burst", "SELLO_RECEIVER_TENANT_BURST",
	"receiver-issuer-quota", "SELLO_RECEIVER_ISSUER_QUOTA",
	"receiver-encf-quota", "SELLO_RECEIVER_ENCF_QUOTA",
	"receiver-timeout", "SELLO_RECEIVER_TIMEOUT",
	"trusted-proxies", "SELLO_TRUSTED_PROXIES",
}

func (f *receiverFlags) register(fs *flag.FlagSet) {
	d := sello.DefaultReceiverLimits
	f.limits = d
	fs.Float64Var(&f.limits.PerAddress.Rate, "receiver-address-rate", d.PerAddress.Rate, "calls per second one client address (an IPv6 /64) may make to the tenants' receivers together (env SELLO_RECEIVER_ADDRESS_RATE)")
	fs.IntVar(&f.limits.PerAddress.Burst, "receiver-address-burst", d.PerAddress.Burst, "calls one client address may make to the receivers at once (env SELLO_RECEIVER_ADDRESS_BURST)")
	fs.Float64Var(&f.limits.PerTenant.Rate, "receiver-tenant-rate", d.PerTenant.Rate, "calls per second one tenant's receiver takes from every address together (env SELLO_RECEIVER_TENANT_RATE)")
	fs.IntVar(&f.limits.PerTenant.Burst, "receiver-tenant-burst", d.PerTenant.Burst, "calls one tenant's receiver takes at once (env SELLO_RECEIVER_TENANT_BURST)")
	fs.IntVar(&f.limits.IssuerQuota, "receiver-issuer-quota", d.IssuerQuota, "documents of one issuer RNC a tenant's receiver takes in 24 hours before DGII confirms them; 0 for no quota (env SELLO_RECEIVER_ISSUER_QUOTA)")
	fs.IntVar(&f.limits.ENCFQuota, "receiver-encf-quota", d.ENCFQuota, "different documents under one issuer RNC and e-NCF a tenant's receiver keeps while DGII has not confirmed one (counting those received in the last 72 hours); 0 for no quota (env SELLO_RECEIVER_ENCF_QUOTA)")
	fs.DurationVar(&f.limits.Timeout, "receiver-timeout", d.Timeout, "how long a call to a receiver may take, its body included, at most "+readTimeout.String()+" (env SELLO_RECEIVER_TIMEOUT)")
	fs.StringVar(&f.proxies, "trusted-proxies", "", "comma-separated addresses or CIDR prefixes of the reverse proxies in front of the server: a receiver call from one of them is counted under the client address its X-Forwarded-For names; none by default (env SELLO_TRUSTED_PROXIES)")
}

// parse returns the limits and the trusted proxies. Returns a usageError
// naming the flag that is not usable.
func (f *receiverFlags) parse() (*sello.ReceiverLimits, []netip.Prefix, error) {
	l := f.limits
	switch {
	case l.PerAddress.Rate <= 0 || l.PerAddress.Burst < 1:
		return nil, nil, usageError{fmt.Sprintf("--receiver-address-rate must be above 0 and --receiver-address-burst at least 1, not %g and %d", l.PerAddress.Rate, l.PerAddress.Burst)}
	case l.PerTenant.Rate <= 0 || l.PerTenant.Burst < 1:
		return nil, nil, usageError{fmt.Sprintf("--receiver-tenant-rate must be above 0 and --receiver-tenant-burst at least 1, not %g and %d", l.PerTenant.Rate, l.PerTenant.Burst)}
	case l.IssuerQuota < 0:
		return nil, nil, usageError{fmt.Sprintf("--receiver-issuer-quota must be 0 (no quota) or more, not %d", l.IssuerQuota)}
	case l.ENCFQuota < 0:
		return nil, nil, usageError{fmt.Sprintf("--receiver-encf-quota must be 0 (no quota) or more, not %d", l.ENCFQuota)}
	case l.Timeout <= 0 || l.Timeout > readTimeout:
		return nil, nil, usageError{fmt.Sprintf("--receiver-timeout must be positive and at most %s (the server's time to read a request), not %s", readTimeout, l.Timeout)}
	}
	var proxies []netip.Prefix
	for _, s := range strings.Split(f.proxies, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, nil, usageError{fmt.Sprintf("--trusted-proxies: %q is neither an address nor a CIDR prefix", s)}
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		proxies = append(proxies, p.Masked())
	}
	return &l, proxies, nil
}
