package testserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SMTP is a running aiosmtpd (Debian's python3-aiosmtpd) owned by the
// test process: it accepts every message on a loopback port and writes it
// to a Maildir (aiosmtpd.handlers.Mailbox), which Messages reads.
type SMTP struct {
	dir  string
	port int
	cmd  *exec.Cmd
	// Roots trusts the server's certificate when it was started with TLS.
	Roots *x509.CertPool
}

// aiosmtpdPython finds a Python that has aiosmtpd: Debian's, else the
// first python3 on PATH.
func aiosmtpdPython() (string, error) {
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(p, "-c", "import aiosmtpd").Run() == nil {
			return p, nil
		}
	}
	return "", errors.New("aiosmtpd not found: run tools/ci/deps.sh or apt-get install python3-aiosmtpd")
}

// StartSMTP starts aiosmtpd on a free loopback port under a fresh temp
// dir; with starttls it offers STARTTLS with a self-signed certificate
// for 127.0.0.1 (trusted by Roots). Call Stop when done.
func StartSMTP(starttls bool) (*SMTP, error) {
	py, err := aiosmtpdPython()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chartd-smtp-")
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &SMTP{dir: dir, port: port}
	args := []string{"-m", "aiosmtpd", "-n", "-l", s.Addr()}
	if starttls {
		cert, key, roots, err := selfSigned(dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.Roots = roots
		args = append(args, "--tlscert", cert, "--tlskey", key, "--no-requiretls")
	}
	args = append(args, "-c", "aiosmtpd.handlers.Mailbox", filepath.Join(dir, "maildir"))
	cmd := exec.Command(py, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start aiosmtpd: %w", err)
	}
	s.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := waitTCP(ctx, s.Addr()); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Addr is host:port of the server.
func (s *SMTP) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// URL is the smtp:// URL of the server, for -gateway.mail.smtp-url.
func (s *SMTP) URL() string { return "smtp://" + s.Addr() }

// Stop kills the server and removes its directory.
func (s *SMTP) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}

// Mail is one delivered message, decoded.
type Mail struct {
	// RcptTo is the envelope recipient (aiosmtpd's X-RcptTo).
	RcptTo  string
	Header  mail.Header
	Subject string
	// Text is the body, quoted-printable decoded.
	Text string
	// Raw is the message as stored.
	Raw string
}

// Messages answers every delivered message, oldest first.
func (s *SMTP) Messages() ([]Mail, error) {
	var out []Mail
	var names []string
	for _, sub := range []string{"new", "cur"} {
		m, _ := filepath.Glob(filepath.Join(s.dir, "maildir", sub, "*"))
		names = append(names, m...)
	}
	type dated struct {
		at time.Time
		m  Mail
	}
	var all []dated
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(n)
		if err != nil {
			return nil, err
		}
		m, err := parseMail(b)
		if err != nil {
			return nil, fmt.Errorf("maildir %s: %w", n, err)
		}
		all = append(all, dated{fi.ModTime(), m})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	for _, d := range all {
		out = append(out, d.m)
	}
	return out, nil
}

func parseMail(b []byte) (Mail, error) {
	msg, err := mail.ReadMessage(strings.NewReader(string(b)))
	if err != nil {
		return Mail{}, err
	}
	var body io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	text, err := io.ReadAll(body)
	if err != nil {
		return Mail{}, err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		return Mail{}, err
	}
	return Mail{RcptTo: msg.Header.Get("X-RcptTo"), Header: msg.Header, Subject: subject,
		Text: strings.ReplaceAll(string(text), "\r\n", "\n"), Raw: string(b)}, nil
}

// Wait answers the first delivered message that match accepts, polling
// the Maildir until ctx ends.
func (s *SMTP) Wait(ctx context.Context, match func(Mail) bool) (Mail, error) {
	for {
		ms, err := s.Messages()
		if err != nil {
			return Mail{}, err
		}
		for _, m := range ms {
			if match(m) {
				return m, nil
			}
		}
		select {
		case <-ctx.Done():
			return Mail{}, fmt.Errorf("wait for a mail (%d delivered): %w", len(ms), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(dir string) (certFile, keyFile string, roots *x509.CertPool, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "chartd test smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return "", "", nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", nil, err
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", nil, err
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return "", "", nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return "", "", nil, err
	}
	roots = x509.NewCertPool()
	roots.AddCert(cert)
	return certFile, keyFile, roots, nil
}
