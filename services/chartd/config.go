package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"chartd.dev/libs/blob"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/services/brand"
	"chartd.dev/services/chart"
	"chartd.dev/services/data"
	"chartd.dev/services/gateway"
	"chartd.dev/services/render"
)

// Config is every setting of a chartd process. Each flag also reads
// CHARTD_<FLAG> from the environment (dots and dashes become underscores),
// and a flag given on the command line wins. The process-wide settings are
// here; each service declares its own, prefixed with its name.
type Config struct {
	Target      string
	Addr        string
	DataDir     string
	PublicURL   string
	PostgresURL string
	// SQLiteReserveMiB is the reserve kept beside the SQLite file so
	// deletes work on a full disk (libs/store/sqlite).
	SQLiteReserveMiB int
	RedisURL         string
	InternalToken    string
	// RedisReplicas is how many processes share the rate limits: while
	// Redis is out each one limits in process at 1/RedisReplicas of an
	// allowance (libs/quota).
	RedisReplicas int
	// SecretsKeyFile names the file of the server key that seals
	// signing-key secrets at rest (libs/secrets: 64 hex characters, mode
	// 0600). Empty means <DataDir>/secrets.key, generated on first start,
	// for -target=all; the render target run apart must name the cluster's
	// key.
	SecretsKeyFile string
	// S3 is the cluster's image store (MinIO); an empty endpoint keeps
	// images on disk under DataDir.
	S3              blob.S3Config
	LogLevel        string
	ShutdownTimeout time.Duration
	// MetricsAddr is where /metrics is served for Prometheus, apart from
	// the API; empty serves none. TraceSampleRatio is the share of new
	// traces exported over OTLP.
	MetricsAddr      string
	TraceSampleRatio float64
	// ShutdownDelay is how long a process keeps serving after SIGTERM,
	// with /readyz at 503, before it stops accepting: the time endpoints
	// take to drop it from every load balancer, so no request reaches a
	// closed port.
	ShutdownDelay time.Duration
	// MaxConnAge is how long a keep-alive connection serves before the
	// next answer on it closes it. A Service's load balancer (kube-proxy)
	// picks a pod per connection, not per request, so without it the
	// gateway's connections stay on the render pods that were there first
	// and a pod the fleet grows by gets no traffic.
	MaxConnAge time.Duration
	// SingleNodeTrial lets a service run apart start without the shared
	// backends (-postgres-url, -redis-url), on private SQLite files and
	// in-process limits: one machine trying split mode, never a cluster.
	SingleNodeTrial bool

	Gateway gateway.Config
	Chart   chart.Config
	Data    data.Config
	Brand   brand.Config
	Render  render.Config
	// URLs are where services that run apart are reached (split mode), by
	// service name.
	URLs map[string]string
}

// RegisterFlags declares the flags on fs with their defaults: the
// process's own, each service's (prefixed with its name) and one
// -<service>-url per service the gateway routes to.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Target, "target", TargetAll, "what to run: "+strings.Join(targetNames(), "|"))
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "listen address host:port")
	fs.StringVar(&c.DataDir, "data-dir", "./data", "directory of the embedded backends (SQLite file, images)")
	fs.StringVar(&c.PublicURL, "public-url", "", "public address of the site, e.g. http://127.0.0.1:8080 (default: http://<addr>)")
	fs.StringVar(&c.PostgresURL, "postgres-url", "", "PostgreSQL URL; empty uses SQLite in -data-dir")
	fs.IntVar(&c.SQLiteReserveMiB, "sqlite-reserve-mib", sqlite.DefaultReserveBytes>>20, "MiB kept free beside the SQLite file for deletes on a full disk (0 keeps none)")
	fs.StringVar(&c.RedisURL, "redis-url", "", "Redis URL for rate limits and counters; empty uses in-process ones")
	fs.IntVar(&c.RedisReplicas, "redis-replicas", 1, "how many replicas share the rate limits in Redis; while it is out each limits in process at 1/N of an allowance")
	fs.StringVar(&c.S3.Endpoint, "s3-endpoint", "", "S3/MinIO host:port for the image store; empty keeps images in -data-dir")
	fs.StringVar(&c.S3.Bucket, "s3-bucket", "chartd-images", "bucket of the image store")
	fs.StringVar(&c.S3.AccessKey, "s3-access-key", "", "access key of the image store")
	fs.StringVar(&c.S3.SecretKey, "s3-secret-key", "", "secret key of the image store")
	fs.StringVar(&c.S3.Region, "s3-region", "", "region of the image store's bucket")
	fs.BoolVar(&c.S3.Secure, "s3-secure", false, "reach the image store over TLS")
	fs.IntVar(&c.S3.ExpireDays, "s3-expire-days", 30, "days a cached image stays in the bucket (its lifecycle rule)")
	fs.StringVar(&c.SecretsKeyFile, "secrets-key-file", "", "file of the server key that encrypts signing-key secrets at rest: 64 hex characters (openssl rand -hex 32), mode 0600 or 0400; empty: <data-dir>/secrets.key, generated on first start, with -target=all (the render target run apart needs it named)")
	fs.StringVar(&c.InternalToken, "internal-token", "", "shared secret between gateway and services (required unless -target=all)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug|info|warn|error")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "listen address host:port of the Prometheus /metrics endpoint, apart from the API; empty: none (OTLP push still works)")
	fs.Float64Var(&c.TraceSampleRatio, "trace-sample-ratio", 1, "share of new traces recorded and sent to OTEL_EXPORTER_OTLP_ENDPOINT, in (0, 1]; a sampled caller's trace is always followed")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long SIGTERM waits for in-flight requests")
	fs.DurationVar(&c.ShutdownDelay, "shutdown.delay", 5*time.Second, "how long SIGTERM keeps serving with /readyz at 503 before it stops accepting: the endpoint propagation of the cluster (SIGINT stops at once)")
	fs.DurationVar(&c.MaxConnAge, "max-conn-age", 5*time.Second, "how long a keep-alive connection serves before the next answer closes it, so clients dial again and a Service spreads them over its new pods; 0: never")
	fs.BoolVar(&c.SingleNodeTrial, "single-node-trial", false, "let a service run apart start without -postgres-url and -redis-url (private SQLite and in-process limits: a trial on one machine, never a cluster)")
	c.URLs = map[string]string{}
	for _, s := range services() {
		s.flags(c, fs)
		if s.name == gateway.Name {
			continue
		}
		fs.Func(s.name+"-url", s.name+" service URL, for processes that call it (split mode)", func(v string) error {
			c.URLs[s.name] = v
			return nil
		})
	}
}

// EnvName is the environment variable of a flag.
func EnvName(flagName string) string {
	return "CHARTD_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(flagName))
}

// ParseConfig reads args and the environment into a validated Config. Every
// problem is reported at once.
func ParseConfig(args []string, getenv func(string) string) (Config, error) {
	var c Config
	fs := flag.NewFlagSet("chartd", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] {
			return
		}
		if v := getenv(EnvName(f.Name)); v != "" {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", EnvName(f.Name), err))
			}
		}
	})
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Addr
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	errs = append(errs, c.Validate())
	return c, errors.Join(errs...)
}

// Validate lists every problem with the settings.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	known := false
	for _, t := range targetNames() {
		known = known || t == c.Target
	}
	if !known {
		bad("-target %q: use one of %s", c.Target, strings.Join(targetNames(), ", "))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("-addr %q: want host:port", c.Addr)
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		bad("-public-url %q: want http(s)://host[:port] with no path", c.PublicURL)
	}
	if c.DataDir == "" && (c.PostgresURL == "" || c.Target == TargetAll) {
		bad("-data-dir is empty: the embedded backends need a directory")
	}
	if c.SQLiteReserveMiB < 0 {
		bad("-sqlite-reserve-mib %d: want 0 or more", c.SQLiteReserveMiB)
	}
	if c.PostgresURL != "" {
		if u, err := url.Parse(c.PostgresURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			bad("-postgres-url: want postgres://user@host:port/db")
		}
	}
	if c.RedisURL != "" {
		if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
			bad("-redis-url: want redis://host:port/db")
		}
	}
	if err := new(slog.Level).UnmarshalText([]byte(c.LogLevel)); err != nil {
		bad("-log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	if c.Target != TargetAll && len(c.InternalToken) < 16 {
		bad("-internal-token: needs at least 16 characters when services run apart (-target=%s)", c.Target)
	}
	if c.Gateway.MaxBodyBytes < 1024 {
		bad("-gateway.max-body-bytes %d: want at least 1024", c.Gateway.MaxBodyBytes)
	}
	if c.RedisReplicas < 1 {
		bad("-redis-replicas %d: want 1 or more", c.RedisReplicas)
	}
	if c.Gateway.MaxHeaderBytes < 4<<10 || c.Gateway.MaxHeaderBytes > serverMaxHeaderBytes/2 {
		// Below the server's own cap, so the gateway's error body is what
		// an oversized request gets.
		bad("-gateway.max-header-bytes %d: want %d to %d", c.Gateway.MaxHeaderBytes, 4<<10, serverMaxHeaderBytes/2)
	}
	for _, name := range urlsNeeded(c.Target) {
		v := c.URLs[name]
		if u, err := url.Parse(v); v == "" || err != nil || u.Host == "" {
			bad("-%s-url %q: -target=%s calls the %s service and needs its URL", name, v, c.Target, name)
		}
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil || c.MetricsAddr == c.Addr {
			bad("-metrics-addr %q: want host:port, apart from -addr", c.MetricsAddr)
		}
	}
	if !(c.TraceSampleRatio > 0 && c.TraceSampleRatio <= 1) {
		bad("-trace-sample-ratio %g: want more than 0 and at most 1", c.TraceSampleRatio)
	}
	if c.ShutdownTimeout <= 0 {
		bad("-shutdown-timeout must be positive")
	}
	if c.MaxConnAge < 0 {
		bad("-max-conn-age must not be negative")
	}
	if c.ShutdownDelay < 0 {
		bad("-shutdown.delay must not be negative")
	}
	if c.Target != TargetAll && !c.SingleNodeTrial {
		needs := sharedBackends(c.Target)
		if needs.postgres && c.PostgresURL == "" {
			bad("-postgres-url: -target=%s shares the store with the other services; without it each process would keep a private SQLite file (-single-node-trial allows that on one machine)", c.Target)
		}
		if needs.redis && c.RedisURL == "" {
			bad("-redis-url: -target=%s shares rate limits and counters with the other replicas; without it each process would keep its own (-single-node-trial allows that on one machine)", c.Target)
		}
	}
	return errors.Join(errs...)
}

func (c Config) logLevel() slog.Level {
	var l slog.Level
	l.UnmarshalText([]byte(c.LogLevel))
	return l
}
