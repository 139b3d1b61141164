// Package mail sends the site's few emails (sign-up confirmations and
// notices): a Sender interface, an SMTP sender on the standard library's
// net/smtp (STARTTLS when the server offers it, AUTH PLAIN when a user is
// given, one deadline for the whole exchange), a log sender for a local
// trial with no SMTP server (make run, a loopback public URL), which
// writes each message through slog so the person at the console can
// follow its link, and an off sender for a server others reach with no
// SMTP server, which refuses every message and logs none: the mails hold
// live sign-in links, and logs are read by more people than mailboxes
// (CWE-532). Every sender refuses CR or LF in an address or the subject,
// so no caller can inject headers.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Message is one plain-text email.
type Message struct {
	// To is the one recipient's bare address.
	To string
	// Subject is one line; non-ASCII is encoded (RFC 2047).
	Subject string
	// Text is the body, UTF-8, sent quoted-printable.
	Text string
}

// Sender delivers messages.
type Sender interface {
	// Send delivers m or answers why not; it returns when the server has
	// accepted the message (or the context or the timeout ended it).
	Send(ctx context.Context, m Message) error
}

// ErrHeaderInjection means an address or the subject holds a CR or LF,
// which would start a header of the caller's choosing.
var ErrHeaderInjection = errors.New("mail: line break in an address or the subject")

// DefaultTimeout bounds one message's whole SMTP exchange.
const DefaultTimeout = 10 * time.Second

// Config chooses the sender.
type Config struct {
	// SMTPURL is smtp://[user:pass@]host[:port] (port 25 by default;
	// STARTTLS when offered) or smtps://… (TLS from the start, port 465).
	// Empty: the log sender on a loopback public URL, else none (Off).
	SMTPURL string
	// From is the sender's address, with or without a display name.
	From string
	// Timeout bounds one message's dial and exchange.
	Timeout time.Duration
}

// RegisterFlags declares prefix+".smtp-url", ".from" and ".timeout".
func (c *Config) RegisterFlags(prefix string, fs *flag.FlagSet) {
	fs.StringVar(&c.SMTPURL, prefix+".smtp-url", "", "SMTP server for the site's emails, smtp://user:pass@host:port (STARTTLS when offered) or smtps://…; empty writes them to the log when the public URL is loopback (a local trial), and elsewhere turns sign-up off")
	fs.StringVar(&c.From, prefix+".from", "chartd <no-reply@chartd.localhost>", "From address of the site's emails")
	fs.DurationVar(&c.Timeout, prefix+".timeout", DefaultTimeout, "bound on sending one email (dial and SMTP exchange)")
}

// New answers the SMTP sender of cfg; with no SMTP URL, the log sender on
// log when publicURL is a local trial's (Local), else Off.
func New(cfg Config, publicURL string, log *slog.Logger) (Sender, error) {
	if _, err := parseFrom(cfg.From); err != nil {
		return nil, err
	}
	if cfg.SMTPURL != "" {
		return NewSMTP(cfg)
	}
	if Local(publicURL) {
		return &Log{Log: log, From: cfg.From}, nil
	}
	return Off{}, nil
}

// Local tells whether publicURL is a local trial's: its host is a
// loopback address or localhost, so only this machine reaches the site
// and its console may show the mails.
func Local(publicURL string) bool {
	u, err := url.Parse(publicURL)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ErrNoServer is Off's refusal: no SMTP server is set, and the site is
// not a local trial.
var ErrNoServer = errors.New("mail: no SMTP server is set (-gateway.mail.smtp-url); mail is off")

// Off is the sender of a server others reach with no SMTP server: it
// refuses every message and never logs one, since the site's mails hold
// one-time sign-in links.
type Off struct{}

// Send refuses m with ErrNoServer.
func (Off) Send(context.Context, Message) error { return ErrNoServer }

// IsOff tells whether s delivers nothing, so the features that need mail
// (sign-up) are off.
func IsOff(s Sender) bool {
	_, off := s.(Off)
	return off
}

// parseFrom checks the From setting and answers its bare address.
func parseFrom(from string) (*mail.Address, error) {
	if strings.ContainsAny(from, "\r\n") {
		return nil, ErrHeaderInjection
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail from %q: %w", from, err)
	}
	return a, nil
}

// checkMessage refuses line breaks in the headers' parts and a To that
// is not one bare address.
func checkMessage(m Message) error {
	if strings.ContainsAny(m.To, "\r\n") || strings.ContainsAny(m.Subject, "\r\n") {
		return ErrHeaderInjection
	}
	a, err := mail.ParseAddress(m.To)
	if err != nil || a.Address != m.To {
		return fmt.Errorf("mail to %q: not one bare address", m.To)
	}
	return nil
}

// SMTP sends through one SMTP server, one connection a message.
type SMTP struct {
	addr, host  string
	implicitTLS bool
	auth        smtp.Auth
	from        *mail.Address
	timeout     time.Duration
	// TLS, when set, is the TLS configuration (tests trust their own
	// certificate with it); nil verifies against the system roots.
	TLS *tls.Config
}

// NewSMTP builds the SMTP sender of cfg.
func NewSMTP(cfg Config) (*SMTP, error) {
	from, err := parseFrom(cfg.From)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(cfg.SMTPURL)
	if err != nil {
		return nil, fmt.Errorf("mail smtp url: %w", err)
	}
	s := &SMTP{from: from, timeout: cfg.Timeout, host: u.Hostname()}
	port := u.Port()
	switch u.Scheme {
	case "smtp":
		if port == "" {
			port = "25"
		}
	case "smtps":
		s.implicitTLS = true
		if port == "" {
			port = "465"
		}
	default:
		return nil, fmt.Errorf("mail smtp url: scheme %q is not smtp or smtps", u.Scheme)
	}
	if s.host == "" {
		return nil, errors.New("mail smtp url: no host")
	}
	s.addr = net.JoinHostPort(s.host, port)
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		// PlainAuth sends the password only over TLS (or to localhost).
		s.auth = smtp.PlainAuth("", u.User.Username(), pass, s.host)
	}
	return s, nil
}

func (s *SMTP) tlsConfig() *tls.Config {
	if s.TLS != nil {
		c := s.TLS.Clone()
		if c.ServerName == "" {
			c.ServerName = s.host
		}
		return c
	}
	return &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12}
}

// Send delivers m in one SMTP exchange bounded by the timeout and ctx.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	if err := checkMessage(m); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	d := net.Dialer{}
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("mail: dial %s: %w", s.addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	// A cancelled ctx ends a stalled exchange at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if s.implicitTLS {
		conn = tls.Client(conn, s.tlsConfig())
	}
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		return fmt.Errorf("mail: greeting of %s: %w", s.addr, err)
	}
	defer c.Close()
	if err := s.exchange(c, m); err != nil {
		return fmt.Errorf("mail to %s via %s: %w", m.To, s.addr, err)
	}
	return nil
}

func (s *SMTP) exchange(c *smtp.Client, m Message) error {
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !s.implicitTLS {
		if err := c.StartTLS(s.tlsConfig()); err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
	}
	if s.auth != nil {
		if err := c.Auth(s.auth); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	if err := c.Mail(s.from.Address); err != nil {
		return err
	}
	if err := c.Rcpt(m.To); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(compose(s.from, m, time.Now())); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	// The server accepted the message at the end of DATA; a failed QUIT
	// does not undo that.
	c.Quit()
	return nil
}

// compose writes m as an RFC 5322 message: fixed headers (the subject
// encoded when not ASCII) and a quoted-printable UTF-8 body.
func compose(from *mail.Address, m Message, now time.Time) []byte {
	var id [12]byte
	rand.Read(id[:])
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\n", from.String())
	fmt.Fprintf(&b, "To: <%s>\r\n", m.To)
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", m.Subject))
	fmt.Fprintf(&b, "Date: %s\r\n", now.UTC().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id[:]), domain)
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	qp.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n", "\r\n")))
	qp.Close()
	return b.Bytes()
}

// Log is the sender of a local trial without an SMTP server: it writes
// each message to the log (at INFO, so make run's console shows it), and
// delivers nothing. New never gives it to a server others reach.
type Log struct {
	Log  *slog.Logger
	From string
}

// Send logs m.
func (l *Log) Send(ctx context.Context, m Message) error {
	if err := checkMessage(m); err != nil {
		return err
	}
	l.Log.InfoContext(ctx, "email not sent: no SMTP server is set, so here is its text", "from", l.From, "to", m.To, "subject", m.Subject, "text", m.Text)
	return nil
}
