package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/telemetry"
	"chartd.dev/libs/testserver"
)

// servers are the real PostgreSQL and Redis this package's tests share.
type servers struct {
	pg    *testserver.Postgres
	redis *testserver.Redis
	minio *testserver.MinIO
	// smtp receives the sign-up mails of every instance.
	smtp *testserver.SMTP
}

// clusterFlags point a chartd at the shared servers: a fresh PostgreSQL
// database, Redis and a MinIO bucket of its own.
func clusterFlags(t *testing.T) []string {
	t.Helper()
	return []string{"-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL(),
		"-s3-endpoint", shared.minio.Endpoint(), "-s3-access-key", shared.minio.AccessKey(), "-s3-secret-key", shared.minio.SecretKey(),
		"-s3-bucket", bucketName(t)}
}

// bucketName makes a bucket name of its own for a test.
func bucketName(t *testing.T) string {
	dbSeq.Lock()
	dbSeq.n++
	n := dbSeq.n
	dbSeq.Unlock()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(t.Name()))
	return fmt.Sprintf("%.40s-%d", name, n)
}

var shared servers

func TestMain(m *testing.M) {
	code, err := runMain(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runMain(m *testing.M) (int, error) {
	pg, err := testserver.StartPostgres()
	if err != nil {
		return 0, err
	}
	defer pg.Stop()
	rd, err := testserver.StartRedis()
	if err != nil {
		return 0, err
	}
	defer rd.Stop()
	mn, err := testserver.StartMinIO()
	if err != nil {
		return 0, err
	}
	defer mn.Stop()
	sm, err := testserver.StartSMTP(false)
	if err != nil {
		return 0, err
	}
	defer sm.Stop()
	shared = servers{pg: pg, redis: rd, minio: mn, smtp: sm}
	// Images are checked as opaque bodies against the document.
	openapi3filter.RegisterBodyDecoder("image/svg+xml", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("image/png", openapi3filter.FileBodyDecoder)
	return m.Run(), nil
}

// client speaks to a running chartd and checks every answer against the
// OpenAPI document the server itself serves.
type client struct {
	t      *testing.T
	base   string // public URL
	key    string
	http   *http.Client
	router routers.Router
}

func newClient(t *testing.T, publicURL, key string) *client {
	t.Helper()
	c := &client{t: t, base: publicURL, key: key, http: &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}}
	// Connections dialed but never used count as busy for 5 s when the
	// server drains; closing them keeps test shutdowns quick.
	t.Cleanup(c.http.CloseIdleConnections)
	resp, err := c.http.Get(publicURL + "/api/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json invalid: %v", err)
	}
	c.router, err = gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, a.body)
	}
}

// errCode answers the error body's code, failing when the body is not one.
func (a answer) errCode(t *testing.T) string {
	t.Helper()
	var b struct {
		Error struct{ Code, Message, Docs string } `json:"error"`
	}
	a.json(t, &b)
	if b.Error.Code == "" || b.Error.Message == "" || !strings.Contains(b.Error.Docs, "/docs/limits/#"+b.Error.Code) {
		t.Fatalf("not an error body: %s", a.body)
	}
	return b.Error.Code
}

// doPatient is do, sent again after a 429's Retry-After, at most ten
// times: a render fleet busy on a loaded machine answers 429, an honest
// answer that tells the caller to retry, not the failure a test looks for.
func (c *client) doPatient(method, path string, body any) answer {
	c.t.Helper()
	for try := 0; ; try++ {
		a := c.do(method, path, body)
		ra, err := strconv.Atoi(a.header.Get("Retry-After"))
		if a.status != http.StatusTooManyRequests || err != nil || try == 9 {
			return a
		}
		time.Sleep(time.Duration(max(ra, 1)) * time.Second)
	}
}

// do sends a request and validates the answer against the document when
// the route is in it. Rate-limit headers must be on every answer.
func (c *client) do(method, path string, body any, hdr ...string) answer {
	c.t.Helper()
	var rb io.Reader
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	if raw != nil {
		rb = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.base+path, rb)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: data}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if resp.Header.Get(h) == "" {
			c.t.Errorf("%s %s: answer %d lacks %s", method, path, resp.StatusCode, h)
		}
	}
	c.validate(req, raw, a)
	return a
}

func (c *client) validate(req *http.Request, body []byte, a answer) {
	c.t.Helper()
	vreq := req.Clone(context.Background())
	if body != nil {
		vreq.Body = io.NopCloser(bytes.NewReader(body))
	}
	route, params, err := c.router.FindRoute(vreq)
	if err != nil {
		return // not a documented route: refusals are checked by the caller
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if a.status < 300 {
		// What the server accepted, the document must accept: the typed
		// op and step schemas included.
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.t.Errorf("%s %s: accepted request does not match the OpenAPI document: %v\n%.300s", req.Method, req.URL.Path, err, body)
		}
		if body != nil {
			vreq.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.status, Header: a.header,
		Body: io.NopCloser(bytes.NewReader(a.body)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s %s: answer %d does not match the OpenAPI document: %v\n%.300s", req.Method, req.URL.Path, a.status, err, a.body)
	}
}

// instance is one running chartd (all mode in-process, or split processes).
type instance struct {
	url  string
	app  *App                           // set when the instance runs in this process
	open func(t *testing.T) store.Store // the store the instance uses, for making accounts
	// procs and addrs are the processes of a split instance and the
	// services' addresses, by target.
	procs map[string]*exec.Cmd
	addrs map[string]string
	// args are the flags every process of a split instance shares, to
	// start another one.
	args []string
}

// newAccount makes an account with a key directly in the store, as chartctl does.
func (in instance) newAccount(t *testing.T, planID string) string {
	t.Helper()
	st := in.open(t)
	defer st.Close()
	ctx := context.Background()
	a, err := st.CreateAccount(ctx, planID)
	if err != nil {
		t.Fatal(err)
	}
	key, prefix, hash := auth.NewKey()
	if _, err := st.CreateAPIKey(ctx, a.ID, "test", prefix, hash); err != nil {
		t.Fatal(err)
	}
	return key
}

// startAll runs chartd -target=all in this process on a loopback port,
// with extra flags (e.g. -postgres-url).
func startAll(t *testing.T, extra ...string) instance {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pub := "http://" + ln.Addr().String()
	// One browser per instance keeps the many instances of these tests
	// cheap; libs/raster tests the pool at its default size.
	// A browser's start may take minutes on a loaded machine (issue 31
	// item 16); nothing here is about start speed.
	args := append([]string{"-target=all", "-data-dir", dir, "-addr", ln.Addr().String(), "-public-url", pub, "-render.browsers=1", "-render.start-timeout=5m",
		"-gateway.mail.smtp-url", shared.smtp.URL()}, extra...)
	cfg, err := ParseConfig(args, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tel, err := telemetry.New(ctx, telemetry.Config{Service: "test", LogLevel: 8, LogOut: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	app, err := NewApp(ctx, cfg, tel)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, app, ln, 10*time.Second) }()
	waitReady(t, app)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		app.Close()
	})
	return instance{url: pub, open: storeOpener(cfg), app: app}
}

// waitReady waits until every module of app is ready (the Chromium pool
// warm), polling the condition: minutes, as a browser's start may take
// on a loaded machine.
func waitReady(t *testing.T, app *App) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	var err error
	for time.Now().Before(deadline) {
		if err = app.Ready(context.Background()); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("chartd not ready: %v", err)
}

func storeOpener(cfg Config) func(t *testing.T) store.Store {
	return func(t *testing.T) store.Store {
		t.Helper()
		var st store.Store
		var err error
		if cfg.PostgresURL != "" {
			st, err = postgres.Open(context.Background(), cfg.PostgresURL)
		} else {
			st, err = sqlite.Open(context.Background(), filepath.Join(cfg.DataDir, "chartd.db"))
		}
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
}

var dbSeq struct {
	sync.Mutex
	n int
}

// freshDatabase makes a new PostgreSQL database on the shared server.
func freshDatabase(t *testing.T) string {
	t.Helper()
	dbSeq.Lock()
	dbSeq.n++
	name := fmt.Sprintf("chartd_%d_%d", os.Getpid(), dbSeq.n)
	dbSeq.Unlock()
	u, err := shared.pg.CreateDatabase(name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// buildBinary compiles chartd once per test run.
var binOnce struct {
	sync.Once
	path string
	err  error
}

func chartdBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "chartd-bin-")
		if err != nil {
			binOnce.err = err
			return
		}
		binOnce.path = filepath.Join(dir, "chartd")
		out, err := exec.Command("go", "build", "-o", binOnce.path, ".").CombinedOutput()
		if err != nil {
			binOnce.err = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binOnce.err != nil {
		t.Fatal(binOnce.err)
	}
	return binOnce.path
}

// startProcess runs the chartd binary with args and waits for /healthz.
func startProcess(t *testing.T, bin string, addr string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append(args, "-addr", addr)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("logs of %v:\n%s", args, logs.String())
		}
	})
	waitURL(t, "http://"+addr+"/healthz", &logs, args)
	return cmd
}

// waitURL polls url until it answers 200.
func waitURL(t *testing.T, url string, logs *bytes.Buffer, args []string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if logs == nil {
		t.Fatalf("%s did not answer 200", url)
	}
	t.Fatalf("chartd %v: %s did not answer 200:\n%s", args, url, logs.String())
}

// handedOut is every port freeAddr gave in this test process: the kernel
// hands a just-closed port out again, and a split run once got one port
// for its gateway and its brand service.
var handedOut struct {
	sync.Mutex
	ports map[int]bool
}

// freeAddr is a loopback address on a free port that no other freeAddr
// call of this process has given.
func freeAddr(t *testing.T) string {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	if handedOut.ports == nil {
		handedOut.ports = map[int]bool{}
	}
	for range 100 {
		p, err := testserver.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if !handedOut.ports[p] {
			handedOut.ports[p] = true
			return fmt.Sprintf("127.0.0.1:%d", p)
		}
	}
	t.Fatal("no free port that was not handed out already")
	return ""
}

// startSplit runs the gateway and each service as separate processes.
func startSplit(t *testing.T, extra ...string) instance {
	t.Helper()
	bin := chartdBinary(t)
	dir := t.TempDir()
	token := "split-mode-internal-token-0123456789"
	gw := freeAddr(t)
	pub := "http://" + gw
	// The cluster's server key, as an operator would hand it out.
	keyFile := filepath.Join(dir, "secrets.key")
	if _, err := secrets.EnsureKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	common := append([]string{"-data-dir", dir, "-internal-token", token, "-public-url", pub, "-log-level", "warn", "-render.browsers=1", "-secrets-key-file", keyFile, "-single-node-trial",
		"-gateway.mail.smtp-url", shared.smtp.URL()}, extra...)
	addrs := map[string]string{}
	var targets []string
	for _, s := range services() {
		if s.name != "gateway" {
			targets = append(targets, s.name)
		}
	}
	for _, target := range targets {
		addrs[target] = freeAddr(t)
		common = append(common, "-"+target+"-url", "http://"+addrs[target])
	}
	procs := map[string]*exec.Cmd{}
	for _, target := range targets {
		procs[target] = startProcess(t, bin, addrs[target], append([]string{"-target=" + target}, common...)...)
	}
	procs["gateway"] = startProcess(t, bin, gw, append([]string{"-target=gateway"}, common...)...)
	// Ready, not just alive: each process is ready on its own modules
	// (the render target once its Chromium tabs are warm).
	for _, target := range targets {
		waitURL(t, "http://"+addrs[target]+"/readyz", nil, nil)
	}
	waitURL(t, pub+"/readyz", nil, nil)
	cfg := Config{DataDir: dir}
	for i := 0; i+1 < len(extra); i++ {
		if extra[i] == "-postgres-url" {
			cfg.PostgresURL = extra[i+1]
		}
	}
	return instance{url: pub, open: storeOpener(cfg), procs: procs, addrs: addrs, args: common}
}

// accountOf answers the account id of an API key.
func accountOf(t *testing.T, in instance, key string) string {
	t.Helper()
	st := in.open(t)
	defer st.Close()
	_, a, err := st.LookupAPIKey(context.Background(), auth.Hash(key))
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}
