// Package clientip answers the address of the client behind a request,
// the key of the per-address rate limits.
//
// Without configuration it is the connection's peer (r.RemoteAddr), and
// X-Forwarded-For is ignored: any client can write that header. Behind an
// ingress controller the peer is the controller for every client, so the
// operator names the proxies' networks (Proxies). When the peer is one of
// them, X-Forwarded-For is read from the right: each trusted proxy appended
// the address it received the request from, so the first address from the
// right that is not a trusted proxy is the client. Entries further left were
// written by that client and are never read: a client that forges the header
// cannot choose its address. The leftmost entry, which some software takes,
// is exactly the forgeable one.
//
// A malformed entry (not an IP address, such as "unknown" or an obfuscated
// identifier) stops the walk: the answer is the last address read, the
// trusted hop that appended the malformed entry. IPv4-mapped IPv6
// addresses are answered as IPv4 and zones are dropped, so one client has
// one key whichever way it is written.
//
// The Forwarded header (RFC 7239) is not read. A proxy sets one of the two
// headers; a client may send the other, so reading both would let it
// choose, and which one the proxy sets would have to be configured too.
// ingress-nginx, Envoy-based Gateway API implementations and cloud load
// balancers all set X-Forwarded-For.
package clientip

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// HeaderForwardedFor is the header trusted proxies append the client
// address to.
const HeaderForwardedFor = "X-Forwarded-For"

// FlagUsage is the help of a service's -<service>.trusted-proxies flag.
const FlagUsage = "comma-separated `CIDRs` of the proxies in front of this service (set to your ingress controller's pod CIDR): " +
	"from one of them, the client address of the per-address rate limits is the rightmost X-Forwarded-For address that is not a trusted proxy; " +
	"empty (the default): the connection's address, X-Forwarded-For ignored"

// Proxies is the set of networks whose hosts are trusted proxies. The zero
// value trusts none: the client is always the connection's peer. It is a
// flag.Value (comma-separated CIDRs; each Set adds to the list) and is safe
// for concurrent use once configured.
type Proxies struct {
	nets []netip.Prefix
}

// Parse reads a comma-separated list of CIDRs (10.244.0.0/16,
// fd00::/8) or single addresses (10.0.0.7, a /32 or /128). Blank entries
// are skipped, so "" is no proxies. A prefix of length 0 (0.0.0.0/0, ::/0)
// is refused: trusting every address lets every client choose its own.
func Parse(list string) (Proxies, error) {
	var p Proxies
	if err := p.Set(list); err != nil {
		return Proxies{}, err
	}
	return p, nil
}

// MustParse is Parse for lists known to be valid, in tests; it panics on
// an error.
func MustParse(list string) Proxies {
	p, err := Parse(list)
	if err != nil {
		panic(err)
	}
	return p
}

// Set adds the comma-separated networks of list (see Parse). On an error
// nothing is added.
func (p *Proxies) Set(list string) error {
	var add []netip.Prefix
	var errs []error
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		n, err := parseNet(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		add = append(add, n)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	p.nets = append(p.nets, add...)
	return nil
}

// parseNet reads one CIDR or address into its masked prefix, an
// IPv4-mapped one as the IPv4 prefix it covers.
func parseNet(s string) (netip.Prefix, error) {
	var n netip.Prefix
	if strings.Contains(s, "/") {
		var err error
		if n, err = netip.ParsePrefix(s); err != nil {
			return n, fmt.Errorf("trusted proxy %q: want a CIDR such as 10.244.0.0/16 or fd00::/8", s)
		}
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return n, fmt.Errorf("trusted proxy %q: want a CIDR such as 10.244.0.0/16 or an IP address", s)
		}
		n = netip.PrefixFrom(a, a.BitLen())
	}
	if a := n.Addr(); a.Is4In6() && n.Bits() >= 96 {
		n = netip.PrefixFrom(a.Unmap(), n.Bits()-96)
	}
	if n.Bits() == 0 {
		return n, fmt.Errorf("trusted proxy %q trusts every address, so any client could choose its own: name the proxies' network (the ingress controller's pod CIDR)", s)
	}
	return n.Masked(), nil
}

// String answers the networks, comma-separated, in the form Parse reads.
func (p Proxies) String() string {
	s := make([]string, len(p.nets))
	for i, n := range p.nets {
		s[i] = n.String()
	}
	return strings.Join(s, ",")
}

// Enabled reports whether any proxy is trusted, that is whether
// X-Forwarded-For is read at all.
func (p Proxies) Enabled() bool { return len(p.nets) > 0 }

// Trusts reports whether a is the address of a trusted proxy (an
// IPv4-mapped address counts as IPv4).
func (p Proxies) Trusts(a netip.Addr) bool {
	a = normalize(a)
	for _, n := range p.nets {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// ClientIP answers the client address of r as text, the key of its
// per-address limits (see the package doc). A peer address that is not an
// IP address (a Unix socket's, or one a test made up) is answered as it
// is, without its port.
func (p Proxies) ClientIP(r *http.Request) string {
	if a, ok := p.Client(r.RemoteAddr, r.Header); ok {
		return a.String()
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// Client answers the client address of a request from peer, its
// connection's address (host:port, or a bare address), and its header h.
// ok is false when peer is not an IP address.
func (p Proxies) Client(peer string, h http.Header) (addr netip.Addr, ok bool) {
	client, ok := parsePeer(peer)
	if !ok {
		return netip.Addr{}, false
	}
	if !p.Trusts(client) {
		return client, true
	}
	// Several header lines are one list, in order (RFC 9110 §5.3).
	lines := h.Values(HeaderForwardedFor)
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for {
			cut := strings.LastIndexByte(rest, ',')
			hop, ok := parseHop(rest[cut+1:])
			if !ok {
				return client, true
			}
			client = hop
			if !p.Trusts(hop) {
				return client, true
			}
			if cut < 0 {
				break
			}
			rest = rest[:cut]
		}
	}
	// Every hop is a trusted proxy: the leftmost one is where the request
	// came from.
	return client, true
}

// parsePeer reads a connection's address: host:port, or a bare address.
func parsePeer(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return normalize(ap.Addr()), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return normalize(a), true
	}
	return netip.Addr{}, false
}

// parseHop reads one X-Forwarded-For entry: an address, optionally with a
// port (1.2.3.4:80, [2001:db8::1]:443), an IPv6 address optionally in
// brackets, surrounded by optional whitespace.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.Trim(s, " \t")
	if s == "" {
		return netip.Addr{}, false
	}
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return netip.Addr{}, false
		}
		if tail := s[end+1:]; tail != "" {
			ap, err := netip.ParseAddrPort(s)
			if err != nil {
				return netip.Addr{}, false
			}
			return normalize(ap.Addr()), true
		}
		a, err := netip.ParseAddr(s[1:end])
		if err != nil || !a.Is6() {
			return netip.Addr{}, false
		}
		return normalize(a), true
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return normalize(a), true
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return normalize(ap.Addr()), true
}

// normalize answers a's canonical form: IPv4 for an IPv4-mapped address,
// no zone.
func normalize(a netip.Addr) netip.Addr {
	return a.Unmap().WithZone("")
}
