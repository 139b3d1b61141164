package clientip

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// cluster is what the tests trust: an ingress controller's pod network, a
// cloud load balancer's address and an IPv6 pod network.
const cluster = "10.244.0.0/16, 192.0.2.10, fd00:1::/64"

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		err      string
	}{
		{in: "", want: ""},
		{in: " , ,", want: ""},
		{in: "10.244.0.0/16", want: "10.244.0.0/16"},
		{in: "10.244.3.7/16", want: "10.244.0.0/16"}, // masked
		{in: "10.0.0.7", want: "10.0.0.7/32"},
		{in: "2001:db8::1", want: "2001:db8::1/128"},
		{in: " 10.0.0.0/8 ,fd00::/8 ", want: "10.0.0.0/8,fd00::/8"},
		{in: "::ffff:10.0.0.0/104", want: "10.0.0.0/8"}, // IPv4-mapped: the IPv4 network
		{in: "::ffff:10.0.0.1", want: "10.0.0.1/32"},
		{in: "10.0.0.0/33", err: "10.0.0.0/33"},
		{in: "10.0.0.0/8,nonsense", err: "nonsense"},
		{in: "10.0.0.0/8 10.1.0.0/16", err: "10.0.0.0/8 10.1.0.0/16"},
		{in: "0.0.0.0/0", err: "trusts every address"},
		{in: "::/0", err: "trusts every address"},
		{in: "fe80::1%eth0", err: "fe80::1%eth0"},
		{in: "ingress-nginx", err: "ingress-nginx"},
		{in: "010.0.0.1", err: "010.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := Parse(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%q) = %v, %v; want an error naming %q", tt.in, p, err, tt.err)
				}
				if p.Enabled() {
					t.Fatalf("Parse(%q) failed but trusts %v", tt.in, p)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := p.String(); got != tt.want {
				t.Fatalf("Parse(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if p.Enabled() != (tt.want != "") {
				t.Fatalf("Parse(%q).Enabled() = %v", tt.in, p.Enabled())
			}
		})
	}
}

// TestFlag: Proxies is a flag; each use adds, an error adds nothing.
func TestFlag(t *testing.T) {
	var p Proxies
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	fs.Var(&p, "trusted-proxies", "")
	if err := fs.Parse([]string{"-trusted-proxies=10.0.0.0/8", "-trusted-proxies", "fd00::/8,192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "10.0.0.0/8,fd00::/8,192.0.2.1/32"; got != want {
		t.Fatalf("flag value %q, want %q", got, want)
	}
	if err := fs.Set("trusted-proxies", "172.16.0.0/12,bad"); err == nil {
		t.Fatal("a bad entry was accepted")
	}
	if got, want := p.String(), "10.0.0.0/8,fd00::/8,192.0.2.1/32"; got != want {
		t.Fatalf("after a refused Set: %q, want %q", got, want)
	}
	if def := fs.Lookup("trusted-proxies").DefValue; def != "" {
		t.Fatalf("default %q, want empty", def)
	}
}

func TestTrusts(t *testing.T) {
	p := MustParse(cluster)
	for s, want := range map[string]bool{
		"10.244.1.2":           true,
		"::ffff:10.244.1.2":    true,
		"10.245.0.1":           false,
		"192.0.2.10":           true,
		"192.0.2.11":           false,
		"fd00:1::5":            true,
		"fd00:2::5":            false,
		"fe80::1%eth0":         false,
		"::ffff:192.0.2.10":    true,
		"2001:db8::10.244.1.2": false,
		"::10.244.1.2":         false, // IPv4-compatible is not IPv4-mapped
		"fd00:1::5%eth0":       true,  // zone ignored
		"64:ff9b::10.244.1.2":  false, // NAT64 is another address
		"::ffff:0a00:0001":     false,
		"::ffff:0af4:0101":     true, // 10.244.1.1
	} {
		if got := p.Trusts(netip.MustParseAddr(s)); got != want {
			t.Errorf("Trusts(%s) = %v, want %v", s, got, want)
		}
	}
	if (Proxies{}).Trusts(netip.MustParseAddr("10.244.1.2")) {
		t.Error("no proxies configured, yet an address is trusted")
	}
}

func TestClient(t *testing.T) {
	const (
		ingress = "10.244.0.5:41234" // the ingress controller's pod
		lb      = "192.0.2.10:5000"  // a load balancer in front of it
		outside = "203.0.113.9:5555" // a client connecting directly
	)
	tests := []struct {
		name    string
		proxies string
		peer    string
		xff     []string // header lines, in order
		want    string
	}{
		// No proxies configured: the peer, whatever the header says.
		{"no proxies, no header", "", outside, nil, "203.0.113.9"},
		{"no proxies ignore the header", "", outside, []string{"198.51.100.1"}, "203.0.113.9"},
		{"no proxies ignore the header behind an ingress", "", ingress, []string{"198.51.100.1"}, "10.244.0.5"},

		// A client that does not come through a trusted proxy cannot
		// choose its address.
		{"untrusted peer forges", cluster, outside, []string{"198.51.100.1"}, "203.0.113.9"},
		{"untrusted peer forges a trusted address", cluster, outside, []string{"10.244.0.9"}, "203.0.113.9"},

		// Behind the ingress.
		{"one hop", cluster, ingress, []string{"198.51.100.1"}, "198.51.100.1"},
		{"no header", cluster, ingress, nil, "10.244.0.5"},
		{"forged leftmost entry is never read", cluster, ingress, []string{"1.1.1.1, 198.51.100.1"}, "198.51.100.1"},
		{"forged chain of trusted addresses", cluster, ingress, []string{"10.244.9.9, 192.0.2.10, 198.51.100.1"}, "198.51.100.1"},
		{"load balancer then ingress", cluster, ingress, []string{"198.51.100.1, 192.0.2.10"}, "198.51.100.1"},
		{"forged, client, load balancer", cluster, ingress, []string{"8.8.8.8, 198.51.100.1, 192.0.2.10"}, "198.51.100.1"},
		{"load balancer peer", cluster, lb, []string{"198.51.100.1"}, "198.51.100.1"},
		{"every hop trusted: the leftmost", cluster, ingress, []string{"10.244.7.7, 192.0.2.10"}, "10.244.7.7"},
		{"several header lines are one list", cluster, ingress, []string{"8.8.8.8, 198.51.100.1", "192.0.2.10"}, "198.51.100.1"},
		{"several header lines, client in the last", cluster, ingress, []string{"8.8.8.8", "198.51.100.1"}, "198.51.100.1"},
		{"whitespace", cluster, ingress, []string{" \t198.51.100.1\t ,  192.0.2.10 "}, "198.51.100.1"},
		{"no spaces", cluster, ingress, []string{"8.8.8.8,198.51.100.1,192.0.2.10"}, "198.51.100.1"},
		{"with a port", cluster, ingress, []string{"198.51.100.1:6000"}, "198.51.100.1"},

		// IPv6 and mapped addresses.
		{"IPv6 client", cluster, ingress, []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv6 in brackets", cluster, ingress, []string{"[2001:db8::1]"}, "2001:db8::1"},
		{"IPv6 with a port", cluster, ingress, []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"IPv6 proxy chain", cluster, "[fd00:1::7]:8080", []string{"2001:db8::1, fd00:1::2"}, "2001:db8::1"},
		{"IPv6 client written long", cluster, ingress, []string{"2001:0db8:0000:0000:0000:0000:0000:0001"}, "2001:db8::1"},
		{"IPv4-mapped client", cluster, ingress, []string{"::ffff:198.51.100.1"}, "198.51.100.1"},
		{"IPv4-mapped trusted hop", cluster, ingress, []string{"198.51.100.1, ::ffff:192.0.2.10"}, "198.51.100.1"},
		{"IPv4-mapped peer", cluster, "[::ffff:10.244.0.5]:41234", []string{"198.51.100.1"}, "198.51.100.1"},
		{"IPv4-mapped untrusted peer", cluster, "[::ffff:203.0.113.9]:5555", []string{"198.51.100.1"}, "203.0.113.9"},
		{"zone dropped", cluster, ingress, []string{"fe80::1%eth0"}, "fe80::1"},

		// A malformed entry stops the walk at the last good hop.
		{"unknown", cluster, ingress, []string{"unknown"}, "10.244.0.5"},
		{"unknown behind the load balancer", cluster, ingress, []string{"unknown, 192.0.2.10"}, "192.0.2.10"},
		{"malformed left of the client is not read", cluster, ingress, []string{"garbage, 198.51.100.1"}, "198.51.100.1"},
		{"obfuscated identifier", cluster, ingress, []string{"_hidden"}, "10.244.0.5"},
		{"empty entry", cluster, ingress, []string{"198.51.100.1, , 192.0.2.10"}, "192.0.2.10"},
		{"trailing comma", cluster, ingress, []string{"198.51.100.1,"}, "10.244.0.5"},
		{"empty header line", cluster, ingress, []string{""}, "10.244.0.5"},
		{"host name", cluster, ingress, []string{"client.example"}, "10.244.0.5"},
		{"leading zeros", cluster, ingress, []string{"010.1.1.1"}, "10.244.0.5"},
		{"CIDR", cluster, ingress, []string{"198.51.100.0/24"}, "10.244.0.5"},
		{"IPv4 in brackets", cluster, ingress, []string{"[198.51.100.1]"}, "10.244.0.5"},
		{"unclosed bracket", cluster, ingress, []string{"[2001:db8::1"}, "10.244.0.5"},
		{"bad port", cluster, ingress, []string{"198.51.100.1:99999"}, "10.244.0.5"},
		{"bracket junk", cluster, ingress, []string{"[2001:db8::1]x"}, "10.244.0.5"},
		{"quoted", cluster, ingress, []string{`"198.51.100.1"`}, "10.244.0.5"},
		{"Forwarded syntax is not X-Forwarded-For", cluster, ingress, []string{"for=198.51.100.1"}, "10.244.0.5"},

		// The peer's own forms.
		{"bare peer address", cluster, "203.0.113.9", nil, "203.0.113.9"},
		{"IPv6 peer", "", "[2001:db8::7]:1", nil, "2001:db8::7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := MustParse(tt.proxies)
			h := http.Header{}
			for _, v := range tt.xff {
				h.Add(HeaderForwardedFor, v)
			}
			got, ok := p.Client(tt.peer, h)
			if !ok || got.String() != tt.want {
				t.Fatalf("Client(%q, %q) = %v, %v; want %s", tt.peer, tt.xff, got, ok, tt.want)
			}
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr, r.Header = tt.peer, h
			if s := p.ClientIP(r); s != tt.want {
				t.Fatalf("ClientIP = %q, want %s", s, tt.want)
			}
		})
	}
}

// TestClientIPOddPeers: a peer that is no IP address is answered as it
// is, as the limits keyed on it before.
func TestClientIPOddPeers(t *testing.T) {
	p := MustParse(cluster)
	for peer, want := range map[string]string{
		"@":               "@",
		"":                "",
		"pipe:1":          "pipe",
		"localhost:8080":  "localhost",
		"[fe80::1%lo]:80": "fe80::1",
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = peer
		r.Header.Set(HeaderForwardedFor, "198.51.100.1")
		if got := p.ClientIP(r); got != want {
			t.Errorf("ClientIP with peer %q = %q, want %q", peer, got, want)
		}
	}
}

// TestClientAllocations: the walk allocates nothing but the header's own
// slice, as it runs on every limited request.
func TestClientAllocations(t *testing.T) {
	p := MustParse(cluster)
	h := http.Header{HeaderForwardedFor: {"8.8.8.8, 198.51.100.1, 192.0.2.10"}}
	n := testing.AllocsPerRun(100, func() {
		if a, _ := p.Client("10.244.0.5:1", h); a != netip.MustParseAddr("198.51.100.1") {
			t.Fatal(a)
		}
	})
	if n > 0 {
		t.Fatalf("Client allocates %.0f times", n)
	}
}

// FuzzClient checks the rules on any peer and header: the answer is the
// peer or an entry of the header, in canonical form; without trusted
// proxies, or from an untrusted peer, it is the peer; every entry right of
// an answer taken from the header is a trusted proxy; and whatever a
// client writes left of an untrusted answer does not change it.
func FuzzClient(f *testing.F) {
	f.Add("10.244.0.5:1", "198.51.100.1", "8.8.8.8")
	f.Add("10.244.0.5:1", "1.1.1.1, 198.51.100.1, 192.0.2.10", "10.244.1.1")
	f.Add("[fd00:1::7]:8080", "[2001:db8::1]:443, fd00:1::2", "unknown")
	f.Add("203.0.113.9:5555", "10.244.0.9", "")
	f.Add("[::ffff:10.244.0.5]:1", "::ffff:198.51.100.1,", "_x")
	f.Add("10.244.0.5:1", "unknown, 192.0.2.10", "fe80::1%eth0")
	f.Add("10.244.0.5", "", ",,")
	p := MustParse(cluster)
	f.Fuzz(func(t *testing.T, peer, xff, forged string) {
		h := http.Header{}
		if xff != "" {
			h.Set(HeaderForwardedFor, xff)
		}
		got, ok := p.Client(peer, h)
		peerAddr, peerOK := parsePeer(peer)
		if ok != peerOK {
			t.Fatalf("Client(%q) ok = %v, the peer parses: %v", peer, ok, peerOK)
		}
		if !ok {
			return
		}
		if got != normalize(got) || !got.IsValid() {
			t.Fatalf("answer %v is not canonical", got)
		}
		if s, err := netip.ParseAddr(got.String()); err != nil || s != got {
			t.Fatalf("answer %v does not read back: %v", got, err)
		}
		if a, _ := (Proxies{}).Client(peer, h); a != peerAddr {
			t.Fatalf("without trusted proxies the answer is %v, not the peer %v", a, peerAddr)
		}
		if !p.Trusts(peerAddr) && got != peerAddr {
			t.Fatalf("untrusted peer %v, answer %v from the header", peerAddr, got)
		}
		// The answer is the peer or an entry, and the entries right of it
		// are trusted proxies that parse.
		if got != peerAddr || p.Trusts(peerAddr) {
			entries := strings.Split(xff, ",")
			found := got == peerAddr
			for i := len(entries) - 1; i >= 0; i-- {
				a, ok := parseHop(entries[i])
				if ok && a == got {
					found = true
					break
				}
				if !ok || !p.Trusts(a) {
					if !found {
						t.Fatalf("answer %v is right of entry %q, which is no trusted proxy (header %q)", got, entries[i], xff)
					}
					break
				}
			}
			if !found {
				t.Fatalf("answer %v is neither the peer %v nor an entry of %q", got, peerAddr, xff)
			}
		}
		// Prepending, as a client does, never moves an untrusted answer.
		if !p.Trusts(got) {
			h2 := http.Header{}
			h2.Add(HeaderForwardedFor, forged)
			if xff != "" {
				h2.Add(HeaderForwardedFor, xff)
			}
			if again, _ := p.Client(peer, h2); again != got {
				t.Fatalf("prepending %q moved the answer from %v to %v (header %q)", forged, got, again, xff)
			}
		}
	})
}

// FuzzParse: any accepted list prints as a list that parses to itself, and
// none trusts every address.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "10.0.0.0/8", "10.0.0.7, fd00::/8", "::ffff:10.0.0.0/104", "0.0.0.0/0", "1.2.3.4/33", "::/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if p.Enabled() {
				t.Fatalf("Parse(%q) failed but trusts %v", s, p)
			}
			return
		}
		q, err := Parse(p.String())
		if err != nil || q.String() != p.String() {
			t.Fatalf("Parse(%q) = %q, which reads back as %q, %v", s, p, q, err)
		}
		for _, n := range p.nets {
			if n.Bits() == 0 || n != n.Masked() {
				t.Fatalf("Parse(%q) holds %v", s, n)
			}
		}
	})
}
