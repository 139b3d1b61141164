package httpx

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ServerErrorsMetric counts the lines net/http writes to http.Server's
// ErrorLog, by kind: each is a bug in a handler (a second WriteHeader, a
// panic that escaped) or trouble below HTTP (accept, TLS), and none of
// them reaches the request log.
const ServerErrorsMetric = "chartd_http_server_errors_total"

// serverErrorKind classifies an ErrorLog line by its prefix; bug says it
// is a handler's fault (logged at ERROR; the rest at WARN).
func serverErrorKind(line string) (kind string, bug bool) {
	has := func(prefix string) bool { return strings.HasPrefix(line, prefix) }
	switch {
	case has("http: superfluous response.WriteHeader"):
		return "superfluous_write_header", true
	case has("http: panic serving"):
		return "panic", true
	case has("http: response.WriteHeader on hijacked"), has("http: response.Write on hijacked"):
		return "hijacked_write", true
	case has("http: invalid Content-Length"), has("http: WriteHeader called with both"):
		return "invalid_content_length", true
	case has("http: TLS handshake error"):
		return "tls_handshake", false
	case has("http: Accept error"):
		return "accept", false
	}
	return "other", false
}

// ServerErrorLog answers a logger for http.Server.ErrorLog that sends each
// line to log as a structured record and counts it in ServerErrorsMetric,
// so net/http's own complaints are seen, alerted on and attributed.
func ServerErrorLog(logger *slog.Logger, meter metric.Meter) (*log.Logger, error) {
	c, err := meter.Int64Counter(ServerErrorsMetric,
		metric.WithDescription("Lines net/http wrote to the server's ErrorLog (handler bugs, accept and TLS errors), by kind."),
		metric.WithUnit("{line}"))
	if err != nil {
		return nil, fmt.Errorf("create metric %s: %w", ServerErrorsMetric, err)
	}
	return log.New(serverLogWriter{log: logger, count: c}, "", 0), nil
}

type serverLogWriter struct {
	log   *slog.Logger
	count metric.Int64Counter
}

func (w serverLogWriter) Write(p []byte) (int, error) {
	line := strings.TrimRight(string(p), "\n")
	kind, bug := serverErrorKind(line)
	lvl := slog.LevelWarn
	if bug {
		lvl = slog.LevelError
	}
	ctx := context.Background()
	w.count.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(attribute.String("kind", kind))))
	w.log.LogAttrs(ctx, lvl, "http server", slog.String("kind", kind), slog.String("err", line))
	return len(p), nil
}
