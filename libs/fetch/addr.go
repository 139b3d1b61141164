package fetch

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"
)

// publicAddr reports whether ip is a public unicast address. The prefix
// table is code.dny.dev/ssrf's (private, CGNAT, link-local, documentation,
// benchmarking, reserved, 6to4, Teredo, NAT64, everything outside IPv6
// 2000::/3); net/netip's own predicates are checked as well so a gap in one
// list is not a hole. IPv4-mapped IPv6 is judged as the IPv4 it carries.
func publicAddr(g *ssrf.Guardian, ip netip.Addr) bool {
	if !ip.IsValid() || ip.Zone() != "" {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		!ip.IsGlobalUnicast() {
		return false
	}
	return g.SafeAddr(ip) == nil
}

// host is a URL host as the fetcher understands it.
type host struct {
	name string     // ASCII, lower case, no trailing dot, no brackets
	ip   netip.Addr // valid when the host is an IP literal
}

// hostport is the canonical "host:port" used to match Allow entries.
func (h host) hostport(port int) string {
	if h.ip.IsValid() {
		return netip.AddrPortFrom(h.ip, uint16(port)).String()
	}
	return net.JoinHostPort(h.name, strconv.Itoa(port))
}

// parseHost canonicalises a URL hostname the way the HTTP transport will
// dial it (IDNA mapping, so "127。0。0。1" is 127.0.0.1) and refuses the
// spellings that browsers and inet_aton read as IPv4 addresses but that are
// not a plain dotted quad: 2130706433, 0177.0.0.1, 0x7f.0.0.1, 127.1.
// Zone ids are refused: they only name addresses inside this machine.
func parseHost(g *ssrf.Guardian, raw string) (host, *Error) {
	if raw == "" {
		return host{}, newError(ErrInvalidURL, "", "the address has no host name", nil)
	}
	if strings.Contains(raw, "%") {
		return host{}, newError(ErrPrivateAddress, "",
			raw+" is a scoped address on a local network interface, not a public website", nil)
	}
	if strings.Contains(raw, ":") {
		ip, err := netip.ParseAddr(raw)
		if err != nil {
			return host{}, newError(ErrInvalidURL, "", raw+" is not a valid IPv6 address", err)
		}
		return host{name: ip.String(), ip: ip}, nil
	}
	name := raw
	if !isASCII(name) {
		a, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return host{}, newError(ErrInvalidURL, "", raw+" is not a valid host name", err)
		}
		name = a
	}
	name = strings.ToLower(name)
	name = strings.TrimSuffix(name, ".")
	if name == "" || strings.HasSuffix(name, ".") || strings.HasPrefix(name, ".") {
		return host{}, newError(ErrInvalidURL, "", raw+" is not a valid host name", nil)
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		return host{name: ip.String(), ip: ip}, nil
	}
	if endsInNumber(name) {
		ip, ok := parseIPv4Loose(name)
		switch {
		case !ok:
			return host{}, newError(ErrInvalidURL, "", raw+" is neither a host name nor an IP address", nil)
		case !publicAddr(g, ip):
			return host{}, newError(ErrPrivateAddress, "",
				raw+" is another spelling of "+ip.String()+", a private network address; only public websites can be fetched", nil)
		default:
			return host{}, newError(ErrInvalidURL, "",
				raw+" is an unusual spelling of the IP address "+ip.String()+"; write it as "+ip.String()+" or use the site's name", nil)
		}
	}
	return host{name: name}, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// endsInNumber is the WHATWG URL rule: a host whose last label is a
// number is parsed as IPv4 (and inet_aton agrees), so no public name has it.
func endsInNumber(name string) bool {
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	if last == "" && len(labels) > 1 {
		last = labels[len(labels)-2]
	}
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number reads one part of a loose IPv4 address: decimal, octal
// with a leading 0, or hex with 0x.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	if strings.ContainsAny(s, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	return n, err == nil
}

// parseIPv4Loose parses the 1-4 part IPv4 forms (127.1, 0x7f000001,
// 0177.0.0.1) the way browsers and inet_aton do.
func parseIPv4Loose(name string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(name, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// normalizeHostPort canonicalises an Allow entry so it compares equal to
// host.hostport of the same destination.
func normalizeHostPort(s string) (string, bool) {
	h, p, err := net.SplitHostPort(strings.TrimSpace(s))
	if err != nil || h == "" {
		return "", false
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return "", false
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return netip.AddrPortFrom(ip, uint16(port)).String(), true
	}
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", false
	}
	return net.JoinHostPort(h, strconv.Itoa(port)), true
}
