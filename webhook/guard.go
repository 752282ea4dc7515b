package webhook

import (
	"fmt"
	"net/netip"
)

// BlockedError says a delivery was refused by the SSRF policy: the target
// address is not a public Internet address (or the URL is not deliverable).
// No connection was made. Its class is ClassBlocked.
type BlockedError struct {
	// Host is the host name that resolved to Addr, when there was one.
	Host string
	// Addr is the refused address; it is not valid when the refusal is
	// about something else (a network other than TCP, a malformed URL).
	Addr netip.Addr
	// Reason says what kind of address Addr is, e.g. "a private (RFC 1918)
	// address".
	Reason string
}

// Error implements the error interface. The message is meant for the
// tenant's delivery log.
func (e *BlockedError) Error() string {
	switch {
	case !e.Addr.IsValid():
		return "blocked: " + e.Reason
	case e.Host != "" && e.Host != e.Addr.String():
		return fmt.Sprintf("blocked: %s resolved to %s, %s; webhooks go only to public Internet addresses", e.Host, e.Addr, e.Reason)
	}
	return fmt.Sprintf("blocked: %s is %s; webhooks go only to public Internet addresses", e.Addr, e.Reason)
}

// Reasons used in BlockedError.
const (
	reasonUnspecified = "an unspecified address"
	reasonThisNetwork = "a \"this network\" address (0.0.0.0/8)"
	reasonLoopback    = "a loopback address"
	reasonPrivate     = "a private (RFC 1918) address"
	reasonCGNAT       = "a carrier-grade NAT (100.64.0.0/10) address"
	reasonLinkLocal   = "a link-local address (cloud metadata services live here)"
	reasonIETF        = "an IETF protocol assignment, not a host"
	reasonDoc         = "a documentation address"
	reasonBenchmark   = "a benchmarking address"
	reason6to4Relay   = "a 6to4 relay anycast address"
	reasonMulticast   = "a multicast address"
	reasonBroadcast   = "the broadcast address"
	reasonReserved    = "a reserved address"
	reasonUniqueLocal = "an IPv6 unique-local (private) address"
	reasonSiteLocal   = "an IPv6 site-local address"
	reasonTeredo      = "a Teredo tunnel address"
	reasonNAT64Local  = "a local-use NAT64 address"
	reasonDiscard     = "an IPv6 discard-only address"
	reasonNotGlobal   = "not a global unicast address"
)

// blockedPrefix is one row of the policy table.
type blockedPrefix struct {
	prefix netip.Prefix
	reason string
}

// blockedV4 is the IPv4 part of the IANA special-purpose registry that is
// not a webhook target, plus multicast, reserved and broadcast. Order
// matters only where prefixes overlap (broadcast before 240/4).
var blockedV4 = []blockedPrefix{
	{netip.MustParsePrefix("0.0.0.0/8"), reasonThisNetwork},
	{netip.MustParsePrefix("10.0.0.0/8"), reasonPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), reasonCGNAT},
	{netip.MustParsePrefix("127.0.0.0/8"), reasonLoopback},
	{netip.MustParsePrefix("169.254.0.0/16"), reasonLinkLocal},
	{netip.MustParsePrefix("172.16.0.0/12"), reasonPrivate},
	{netip.MustParsePrefix("192.0.0.0/24"), reasonIETF},
	{netip.MustParsePrefix("192.0.2.0/24"), reasonDoc},
	{netip.MustParsePrefix("192.88.99.0/24"), reason6to4Relay},
	{netip.MustParsePrefix("192.168.0.0/16"), reasonPrivate},
	{netip.MustParsePrefix("198.18.0.0/15"), reasonBenchmark},
	{netip.MustParsePrefix("198.51.100.0/24"), reasonDoc},
	{netip.MustParsePrefix("203.0.113.0/24"), reasonDoc},
	{netip.MustParsePrefix("224.0.0.0/4"), reasonMulticast},
	{netip.MustParsePrefix("255.255.255.255/32"), reasonBroadcast},
	{netip.MustParsePrefix("240.0.0.0/4"), reasonReserved},
}

// IPv6 prefixes of the policy. NAT64 and 6to4 embed an IPv4 address and
// are judged by it; IPv4-mapped addresses are unmapped first.
var (
	nat64Prefix  = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052 well-known NAT64
	sixToFour    = netip.MustParsePrefix("2002::/16")      // RFC 3056 6to4
	globalV6     = netip.MustParsePrefix("2000::/3")       // global unicast
	loopbackV6   = netip.IPv6Loopback()                    // ::1
	loopbackV4   = netip.MustParsePrefix("127.0.0.0/8")    // for AllowLoopback
	teredoPrefix = netip.MustParsePrefix("2001::/32")      // RFC 4380
	nat64Local   = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215
	unspecV6     = netip.IPv6Unspecified()                 // ::
	discardV6    = netip.MustParsePrefix("100::/64")       // RFC 6666
	ietfV6       = netip.MustParsePrefix("2001::/23")      // IETF protocol assignments
	docV6        = netip.MustParsePrefix("2001:db8::/32")  // RFC 3849
	docV6New     = netip.MustParsePrefix("3fff::/20")      // RFC 9637
	ulaV6        = netip.MustParsePrefix("fc00::/7")       // RFC 4193
	linkLocalV6  = netip.MustParsePrefix("fe80::/10")      // RFC 4291
	siteLocalV6  = netip.MustParsePrefix("fec0::/10")      // RFC 3879, deprecated
	multicastV6  = netip.MustParsePrefix("ff00::/8")       // RFC 4291
)

// blockedV6 is checked after the embedded-IPv4 forms; anything outside
// 2000::/3 that is not listed is refused as not global unicast (which
// covers the deprecated IPv4-compatible ::a.b.c.d, ::ffff:0:a.b.c.d and
// 5f00::/16). Globally reachable special-purpose ranges (AS112-v6
// 2620:4f:8000::/48) are public hosts and pass.
var blockedV6 = []blockedPrefix{
	{nat64Local, reasonNAT64Local},
	{discardV6, reasonDiscard},
	{teredoPrefix, reasonTeredo},
	{ietfV6, reasonIETF},
	{docV6, reasonDoc},
	{docV6New, reasonDoc},
	{ulaV6, reasonUniqueLocal},
	{linkLocalV6, reasonLinkLocal},
	{siteLocalV6, reasonSiteLocal},
	{multicastV6, reasonMulticast},
}

// CheckAddr returns nil when a webhook may connect to addr, and a
// *BlockedError otherwise. Only public unicast addresses pass: loopback,
// private (RFC 1918), link-local (169.254.169.254 and other metadata
// services), CGNAT, IPv6 unique-local, site-local and link-local,
// multicast, unspecified, broadcast, documentation, benchmarking and
// reserved ranges are refused, as are IPv4-mapped (::ffff:a.b.c.d),
// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses whose embedded IPv4
// address is refused, local-use NAT64 and Teredo. Public IPv4 addresses
// behind NAT64 or 6to4 pass, so IPv6-only hosts on DNS64 still work.
//
// allowLoopback lets 127.0.0.0/8 and ::1 (and ::ffff:127.x.y.z) through,
// for tests and local demos; nothing else private. The zone of a scoped
// address is ignored.
func CheckAddr(addr netip.Addr, allowLoopback bool) error {
	if reason := blockedReason(addr, allowLoopback); reason != "" {
		return &BlockedError{Addr: addr, Reason: reason}
	}
	return nil
}

// blockedReason is CheckAddr's policy: "" allows addr.
func blockedReason(addr netip.Addr, allowLoopback bool) string {
	if !addr.IsValid() {
		return "not an IP address"
	}
	a := addr.WithZone("").Unmap() // ::ffff:a.b.c.d is a.b.c.d
	if allowLoopback && (loopbackV4.Contains(a) || a == loopbackV6) {
		return ""
	}
	if a.Is4() {
		for _, b := range blockedV4 {
			if b.prefix.Contains(a) {
				return b.reason
			}
		}
		return ""
	}
	switch {
	case a == unspecV6:
		return reasonUnspecified
	case a == loopbackV6:
		return reasonLoopback
	case nat64Prefix.Contains(a):
		b := a.As16()
		return embedded(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(a):
		b := a.As16()
		return embedded(netip.AddrFrom4([4]byte(b[2:6])))
	}
	for _, b := range blockedV6 {
		if b.prefix.Contains(a) {
			return b.reason
		}
	}
	if !globalV6.Contains(a) || !a.IsGlobalUnicast() {
		return reasonNotGlobal
	}
	return ""
}

// embedded judges the IPv4 address inside a NAT64 or 6to4 address: the
// loopback allowance never applies through a translator.
func embedded(v4 netip.Addr) string {
	if r := blockedReason(v4, false); r != "" {
		return "an address embedding " + v4.String() + ", " + r
	}
	return ""
}
