package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

func startSMTP(t *testing.T, starttls bool) *testserver.SMTP {
	t.Helper()
	s, err := testserver.StartSMTP(starttls)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func wait(t *testing.T, s *testserver.SMTP, to string) testserver.Mail {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m, err := s.Wait(ctx, func(m testserver.Mail) bool { return m.RcptTo == to })
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSMTPSend sends through a real SMTP server and reads the delivered
// message back: envelope, headers (a non-ASCII subject encoded) and a
// body whose long link survives quoted-printable.
func TestSMTPSend(t *testing.T) {
	srv := startSMTP(t, false)
	s, err := New(Config{SMTPURL: srv.URL(), From: "chartd <no-reply@chartd.test>"}, "https://chartd.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	link := "http://127.0.0.1:8080/signup/confirm?token=" + strings.Repeat("Ab9_-", 20)
	text := "Hello Zoë,\n\nFinish signing up: " + link + "\n"
	if err := s.Send(context.Background(), Message{To: "ada@example.com", Subject: "Confirm — chartd", Text: text}); err != nil {
		t.Fatal(err)
	}
	m := wait(t, srv, "ada@example.com")
	if m.Subject != "Confirm — chartd" || m.Header.Get("From") != `"chartd" <no-reply@chartd.test>` || m.Header.Get("To") != "<ada@example.com>" {
		t.Errorf("headers: subject %q from %q to %q", m.Subject, m.Header.Get("From"), m.Header.Get("To"))
	}
	if strings.TrimRight(m.Text, "\n") != strings.TrimRight(text, "\n") {
		t.Errorf("body %q, want %q", m.Text, text)
	}
	if m.Header.Get("Message-Id") == "" || m.Header.Get("Date") == "" {
		t.Errorf("no Message-ID or Date: %v", m.Header)
	}
}

// TestSMTPStartTLS: against a server offering STARTTLS the sender
// upgrades, verifying the certificate: an untrusted one fails the send,
// the trusted one delivers.
func TestSMTPStartTLS(t *testing.T) {
	srv := startSMTP(t, true)
	s, err := NewSMTP(Config{SMTPURL: srv.URL(), From: "no-reply@chartd.test"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), Message{To: "untrusted@example.com", Subject: "x", Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "starttls") {
		t.Fatalf("send to an untrusted certificate: %v, want a starttls failure", err)
	}
	s.TLS = &tls.Config{RootCAs: srv.Roots}
	if err := s.Send(context.Background(), Message{To: "trusted@example.com", Subject: "over TLS", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if m := wait(t, srv, "trusted@example.com"); m.Subject != "over TLS" {
		t.Errorf("subject %q", m.Subject)
	}
	if ms, _ := srv.Messages(); len(ms) != 1 {
		t.Errorf("%d messages delivered, want 1 (the untrusted try must not deliver)", len(ms))
	}
}

// TestSMTPAuthRequiresServerSupport: a user in the URL means AUTH PLAIN;
// a server that offers no AUTH fails the send instead of mailing
// unauthenticated.
func TestSMTPAuthRequiresServerSupport(t *testing.T) {
	srv := startSMTP(t, false)
	s, err := NewSMTP(Config{SMTPURL: "smtp://user:secret@" + srv.Addr(), From: "no-reply@chartd.test"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), Message{To: "ada@example.com", Subject: "x", Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "auth") {
		t.Fatalf("send with a user to a server without AUTH: %v", err)
	}
}

// TestHeaderInjection: a CR or LF in the recipient or the subject is
// refused before anything is sent, by both senders.
func TestHeaderInjection(t *testing.T) {
	srv := startSMTP(t, false)
	smtpS, err := New(Config{SMTPURL: srv.URL(), From: "no-reply@chartd.test"}, "https://chartd.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	logS, err := New(Config{From: "no-reply@chartd.test"}, "http://127.0.0.1:8080", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	bad := []Message{
		{To: "ada@example.com", Subject: "hi\r\nBcc: eve@evil.example", Text: "x"},
		{To: "ada@example.com", Subject: "hi\nBcc: eve@evil.example", Text: "x"},
		{To: "ada@example.com\r\nBcc: eve@evil.example", Subject: "hi", Text: "x"},
		{To: "ada@example.com\n", Subject: "hi", Text: "x"},
	}
	for _, s := range []Sender{smtpS, logS} {
		for _, m := range bad {
			if err := s.Send(context.Background(), m); !errors.Is(err, ErrHeaderInjection) {
				t.Errorf("%T send %q / %q: %v, want ErrHeaderInjection", s, m.To, m.Subject, err)
			}
		}
		if err := s.Send(context.Background(), Message{To: "Ada <ada@example.com>", Subject: "x"}); err == nil {
			t.Errorf("%T accepted a display name as the recipient", s)
		}
	}
	if _, err := New(Config{From: "a@b.example\r\nBcc: eve@evil.example"}, "http://127.0.0.1:8080", nil); !errors.Is(err, ErrHeaderInjection) {
		t.Errorf("From with a line break: %v", err)
	}
	// A well-formed message after the refusals is the only one delivered.
	if err := smtpS.Send(context.Background(), Message{To: "ada@example.com", Subject: "ok", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	wait(t, srv, "ada@example.com")
	if ms, _ := srv.Messages(); len(ms) != 1 {
		t.Errorf("%d messages delivered, want 1", len(ms))
	}
}

// TestSMTPTimeout: a server that accepts and never greets fails the send
// at the timeout instead of holding the request.
func TestSMTPTimeout(t *testing.T) {
	pace := testserver.MeasurePace()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	s, err := NewSMTP(Config{SMTPURL: "smtp://" + ln.Addr().String(), From: "no-reply@chartd.test", Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = s.Send(context.Background(), Message{To: "ada@example.com", Subject: "x", Text: "x"})
	if took := time.Since(start); err == nil || pace.Over(took, 5*time.Second) {
		t.Fatalf("send to a silent server: %v after %v, want a timeout near 300ms (%v)", err, took, pace)
	}
}

// TestLogSender: with no SMTP server, a local trial's message (its public
// URL loopback), link included, goes to the log at INFO, where make run's
// console shows it; on a public URL others reach, the sender is Off: it
// refuses the message and logs nothing, the link least of all.
func TestLogSender(t *testing.T) {
	link := "/signup/confirm?token=abc"
	for _, tt := range []struct {
		publicURL string
		local     bool
	}{
		{"http://127.0.0.1:8080", true},
		{"http://127.0.0.2:8080", true},
		{"http://[::1]:8080", true},
		{"http://localhost:8080", true},
		{"http://chartd.localhost", true},
		{"https://charts.example.com", false},
		{"http://10.0.0.5:8080", false},
		{"http://0.0.0.0:8080", false},
		{"http://localhost.example.com", false},
		{"http://127.0.0.1.example.com", false},
	} {
		t.Run(tt.publicURL, func(t *testing.T) {
			var buf bytes.Buffer
			s, err := New(Config{From: "no-reply@chartd.test"}, tt.publicURL, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
			if err != nil {
				t.Fatal(err)
			}
			if got := Local(tt.publicURL); got != tt.local {
				t.Fatalf("Local(%q) = %v, want %v", tt.publicURL, got, tt.local)
			}
			err = s.Send(context.Background(), Message{To: "ada@example.com", Subject: "Confirm", Text: "Open " + tt.publicURL + link})
			out := buf.String()
			if tt.local {
				if _, ok := s.(*Log); !ok || err != nil || IsOff(s) {
					t.Fatalf("sender %T (%v) for a local trial, want *Log", s, err)
				}
				if !strings.Contains(out, "level=INFO") || !strings.Contains(out, link) || !strings.Contains(out, "ada@example.com") {
					t.Errorf("log: %s", out)
				}
				return
			}
			if !IsOff(s) || !errors.Is(err, ErrNoServer) {
				t.Fatalf("sender %T answered %v for %s, want Off and ErrNoServer", s, err, tt.publicURL)
			}
			if strings.Contains(out, "token=") || strings.Contains(out, "ada@example.com") {
				t.Errorf("the off sender logged the message: %s", out)
			}
		})
	}
}

// TestConfigURL: only smtp and smtps with a host are accepted.
func TestConfigURL(t *testing.T) {
	for _, u := range []string{"http://mail.example", "smtp://", "smtp://:25", "mailto:a@b.example"} {
		if _, err := NewSMTP(Config{SMTPURL: u, From: "a@b.example"}); err == nil {
			t.Errorf("NewSMTP(%q) accepted", u)
		}
	}
	s, err := NewSMTP(Config{SMTPURL: "smtps://u:p@mail.example", From: "a@b.example"})
	if err != nil || s.addr != "mail.example:465" || !s.implicitTLS || s.auth == nil {
		t.Errorf("smtps url: %+v %v", s, err)
	}
}
