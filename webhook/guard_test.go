package webhook_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/sello-do/sello/webhook"
)

// blockedAddrs has every class of address the guard refuses, with a word
// its reason must contain.
var blockedAddrs = []struct{ addr, reason string }{
	// loopback
	{"127.0.0.1", "loopback"},
	{"127.255.255.254", "loopback"},
	{"::1", "loopback"},
	// private (RFC 1918)
	{"10.0.0.1", "private"},
	{"10.255.255.255", "private"},
	{"172.16.0.1", "private"},
	{"172.31.255.255", "private"},
	{"192.168.1.1", "private"},
	// link-local and metadata
	{"169.254.169.254", "link-local"},
	{"169.254.0.1", "link-local"},
	{"fe80::1", "link-local"},
	{"fe80::1%eth0", "link-local"},
	{"febf:ffff::1", "link-local"},
	// CGNAT
	{"100.64.0.1", "carrier-grade NAT"},
	{"100.127.255.254", "carrier-grade NAT"},
	// IPv6 unique-local (AWS IMDSv6 fd00:ec2::254 among them) and site-local
	{"fc00::1", "unique-local"},
	{"fd00:ec2::254", "unique-local"},
	{"fec0::1", "site-local"},
	// multicast
	{"224.0.0.1", "multicast"},
	{"239.255.255.250", "multicast"},
	{"ff02::1", "multicast"},
	{"ff05::1:3", "multicast"},
	// unspecified, "this network"
	{"0.0.0.0", "this network"},
	{"0.1.2.3", "this network"},
	{"::", "unspecified"},
	// broadcast and reserved
	{"255.255.255.255", "broadcast"},
	{"240.0.0.1", "reserved"},
	{"250.1.2.3", "reserved"},
	// documentation, benchmarking, IETF protocol assignments
	{"192.0.2.1", "documentation"},
	{"198.51.100.7", "documentation"},
	{"203.0.113.9", "documentation"},
	{"2001:db8::1", "documentation"},
	{"3fff::1", "documentation"},
	{"198.18.0.1", "benchmarking"},
	{"198.19.255.255", "benchmarking"},
	{"192.0.0.8", "IETF"},
	{"192.88.99.1", "6to4 relay"},
	{"2001:2::1", "IETF"},
	{"2001:10::1", "IETF"},
	{"100::1", "discard"},
	// IPv4-mapped forms of blocked IPv4
	{"::ffff:127.0.0.1", "loopback"},
	{"::ffff:10.0.0.1", "private"},
	{"::ffff:169.254.169.254", "link-local"},
	{"::ffff:100.64.0.1", "carrier-grade NAT"},
	{"::ffff:0.0.0.0", "this network"},
	// NAT64 and 6to4 embedding blocked IPv4
	{"64:ff9b::7f00:1", "127.0.0.1"},
	{"64:ff9b::a9fe:a9fe", "169.254.169.254"},
	{"64:ff9b::a00:1", "10.0.0.1"},
	{"64:ff9b::c0a8:101", "private"},
	{"2002:7f00:1::", "127.0.0.1"},
	{"2002:a9fe:a9fe::1", "169.254.169.254"},
	{"2002:c0a8:0101::", "192.168.1.1"},
	{"2002:6440:1::", "carrier-grade NAT"},
	// local-use NAT64, Teredo
	{"64:ff9b:1::808:808", "local-use NAT64"},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"},
	{"2001::1", "Teredo"},
	// outside global unicast: IPv4-compatible, IPv4-translated, 5f00::/16, unassigned
	{"::127.0.0.1", "not a global unicast"},
	{"::8.8.8.8", "not a global unicast"},
	{"::ffff:0:8.8.8.8", "not a global unicast"},
	{"5f00::1", "not a global unicast"},
	{"4000::1", "not a global unicast"},
	{"e000::1", "not a global unicast"},
}

// publicAddrs pass the guard.
var publicAddrs = []string{
	"8.8.8.8",
	"1.1.1.1",
	"93.184.215.14",
	"100.63.255.255",  // just below CGNAT
	"100.128.0.0",     // just above CGNAT
	"172.15.255.255",  // just below 172.16/12
	"172.32.0.0",      // just above
	"169.253.255.255", // just below link-local
	"192.0.1.255",
	"198.17.255.255",
	"198.20.0.0",
	"223.255.255.255", // last before multicast
	"::ffff:8.8.8.8",
	"2606:4700:4700::1111",
	"2001:4860:4860::8888",
	"2001:200::1",      // just past 2001::/23
	"2620:4f:8000::1",  // AS112-v6 is a public service
	"64:ff9b::808:808", // NAT64 of 8.8.8.8 (IPv6-only hosts on DNS64)
	"2002:808:808::1",  // 6to4 of 8.8.8.8
	"3fff:1000::1",     // just past 3fff::/20
}

func TestCheckAddr(t *testing.T) {
	for _, c := range blockedAddrs {
		t.Run("Blocked/"+c.addr, func(t *testing.T) {
			err := webhook.CheckAddr(netip.MustParseAddr(c.addr), false)
			var be *webhook.BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("CheckAddr(%s) = %v, want *BlockedError", c.addr, err)
			}
			if !strings.Contains(be.Reason, c.reason) {
				t.Errorf("reason %q, want it to contain %q", be.Reason, c.reason)
			}
			if !strings.Contains(err.Error(), "public Internet") {
				t.Errorf("message %q does not say what is allowed", err)
			}
		})
	}
	for _, a := range publicAddrs {
		t.Run("Public/"+a, func(t *testing.T) {
			if err := webhook.CheckAddr(netip.MustParseAddr(a), false); err != nil {
				t.Fatalf("CheckAddr(%s) = %v, want nil", a, err)
			}
		})
	}
	t.Run("Invalid", func(t *testing.T) {
		if err := webhook.CheckAddr(netip.Addr{}, true); err == nil {
			t.Fatal("the zero Addr passed")
		}
	})
}

// TestCheckAddrAllowLoopback: the allowance lets loopback through and
// nothing else.
func TestCheckAddrAllowLoopback(t *testing.T) {
	for _, a := range []string{"127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "::ffff:127.0.0.1"} {
		if err := webhook.CheckAddr(netip.MustParseAddr(a), true); err != nil {
			t.Errorf("CheckAddr(%s, loopback allowed) = %v", a, err)
		}
	}
	for _, c := range blockedAddrs {
		a := netip.MustParseAddr(c.addr)
		if a.Unmap().Is4() && netip.MustParsePrefix("127.0.0.0/8").Contains(a.Unmap()) || a == netip.IPv6Loopback() {
			continue
		}
		if err := webhook.CheckAddr(a, true); err == nil {
			t.Errorf("CheckAddr(%s, loopback allowed) = nil, want blocked", c.addr)
		}
	}
}

// TestControl calls the dialer's Control check as net.Dialer does, with
// the resolved address about to be connected.
func TestControl(t *testing.T) {
	control := webhook.Control(false)
	for _, c := range []struct{ network, address string }{
		{"tcp4", "127.0.0.1:80"},
		{"tcp4", "169.254.169.254:80"},
		{"tcp4", "10.1.2.3:443"},
		{"tcp6", "[::1]:443"},
		{"tcp6", "[::ffff:127.0.0.1]:443"},
		{"tcp6", "[fe80::1%eth0]:443"},
		{"tcp6", "[64:ff9b::a9fe:a9fe]:80"},
		{"udp4", "8.8.8.8:53"},       // not TCP
		{"tcp4", "8.8.8.8"},          // no port
		{"tcp4", "not-an-ip:443"},    // never resolved names
		{"unix", "/run/docker.sock"}, // not TCP
	} {
		err := control(c.network, c.address)
		var be *webhook.BlockedError
		if !errors.As(err, &be) {
			t.Errorf("control(%s, %s) = %v, want *BlockedError", c.network, c.address, err)
		}
	}
	for _, c := range []struct{ network, address string }{
		{"tcp4", "8.8.8.8:443"},
		{"tcp4", "93.184.215.14:8443"}, // any port on a public address
		{"tcp4", "93.184.215.14:1"},
		{"tcp6", "[2606:4700:4700::1111]:443"},
		{"tcp6", "[64:ff9b::808:808]:443"},
	} {
		if err := control(c.network, c.address); err != nil {
			t.Errorf("control(%s, %s) = %v, want nil", c.network, c.address, err)
		}
	}
	loop := webhook.Control(true)
	if err := loop("tcp4", "127.0.0.1:54321"); err != nil {
		t.Errorf("loopback allowed: %v", err)
	}
	if err := loop("tcp6", "[::1]:1"); err != nil {
		t.Errorf("loopback allowed: %v", err)
	}
	if err := loop("tcp4", "192.168.0.1:80"); err == nil {
		t.Error("loopback allowance let a private address through")
	}
}
