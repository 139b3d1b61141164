package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// countingListener counts accepted connections: whatever the SSRF corpus
// does, it must leave the count at zero.
type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// target is a loopback HTTP server that must never be reached unless a test
// puts it in Allow. It listens on 127.0.0.1 and, when it can, on [::1] at
// the same port, so IPv6 spellings of loopback would be counted too.
type target struct {
	port  int
	count atomic.Int64
	v6    bool
}

func newTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>private target</html>")
	})
	l4, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg.port = l4.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: h}
	go srv.Serve(countingListener{l4, &tg.count})
	if l6, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", tg.port)); err == nil {
		tg.v6 = true
		go srv.Serve(countingListener{l6, &tg.count})
	}
	t.Cleanup(func() { srv.Close() })
	return tg
}

func (tg *target) addr() string { return fmt.Sprintf("127.0.0.1:%d", tg.port) }

// fakeResolver answers from a table instead of DNS. A name may have several
// successive answers (the last repeats), which is how rebinding is staged.
// "localhost" goes to the real resolver (/etc/hosts), so the system's own
// answer is covered too.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	calls   map[string]int
}

func newResolver(answers map[string][][]string) *fakeResolver {
	return &fakeResolver{answers: answers, calls: map[string]int{}}
}

func (r *fakeResolver) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	if host == "localhost" {
		return net.DefaultResolver.LookupIPAddr(ctx, host)
	}
	r.mu.Lock()
	seq, ok := r.answers[host]
	i := r.calls[host]
	r.calls[host]++
	r.mu.Unlock()
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if i >= len(seq) {
		i = len(seq) - 1
	}
	var out []net.IPAddr
	for _, s := range seq[i] {
		ip, zone, _ := strings.Cut(s, "%")
		out = append(out, net.IPAddr{IP: net.ParseIP(ip), Zone: zone})
	}
	return out, nil
}

func (r *fakeResolver) callsFor(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[host]
}

// site is a loopback server that tests reach through Allow.
type site struct {
	*httptest.Server
	addr string
}

func newSite(t *testing.T, h http.Handler) *site {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return &site{Server: s, addr: strings.TrimPrefix(s.URL, "http://")}
}

// newFetcher builds a Fetcher and, when openPort is not 0, also lets that
// port through the port check so only the address check stands between
// the corpus and the target.
func newFetcher(t *testing.T, cfg Config, openPort int) *Fetcher {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if openPort != 0 {
		f.ports[openPort] = true
	}
	t.Cleanup(f.client.CloseIdleConnections)
	return f
}
