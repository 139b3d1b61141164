// Package testserver starts real PostgreSQL, Redis and MinIO servers on
// loopback ports under a temporary directory, for tests that must run
// against the real thing. A missing server binary is an error, never a skip:
// `make test` installs them (tools/ci/deps.sh).
package testserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FreePort asks the kernel for an unused loopback TCP port.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitTCP(ctx context.Context, addr string) error {
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", addr, ctx.Err())
		case <-time.After(30 * time.Millisecond):
		}
	}
}

// pgBinDir finds the directory holding initdb and pg_ctl.
func pgBinDir() (string, error) {
	if d := os.Getenv("CHARTD_PG_BINDIR"); d != "" {
		return d, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: run tools/ci/deps.sh or apt-get install postgresql")
}

// Postgres is a running PostgreSQL server owned by the test process.
type Postgres struct {
	dir  string
	bin  string
	port int
	asPG bool
}

// StartPostgres initialises a cluster in a fresh temp dir and starts it on a
// free loopback port. Call Stop when done.
func StartPostgres() (*Postgres, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chartd-pg-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	p := &Postgres{dir: dir, bin: bin, asPG: os.Geteuid() == 0}
	if p.asPG {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p.port = port
	if out, err := p.run(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	if err := p.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

// Start (re)starts the server on its port with the data it had.
func (p *Postgres) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", p.port, p.dir)
	if out, err := p.run(filepath.Join(p.bin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"), "-w", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		return fmt.Errorf("pg_ctl start: %w: %s %s", err, out, log)
	}
	return nil
}

// Shutdown stops the server as a restart does: open connections are cut,
// what was committed is kept (a fast shutdown; the server runs with
// synchronous_commit off, so a crash could lose the last commits). Start
// brings it back.
func (p *Postgres) Shutdown() error {
	out, err := p.run(filepath.Join(p.bin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-m", "fast", "-w", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

func (p *Postgres) run(name string, args ...string) ([]byte, error) {
	var cmd *exec.Cmd
	if p.asPG {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	} else {
		cmd = exec.Command(name, args...)
	}
	cmd.Dir = p.dir
	return cmd.CombinedOutput()
}

// URL is the connection string of the given database on this server.
func (p *Postgres) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.port, db)
}

// CreateDatabase makes a new empty database and answers its URL, so each
// test can start from a clean schema.
func (p *Postgres) CreateDatabase(name string) (string, error) {
	out, err := exec.Command("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(p.port), "-U", "postgres", "-d", "postgres",
		"-v", "ON_ERROR_STOP=1", "-c", fmt.Sprintf(`CREATE DATABASE "%s"`, strings.ReplaceAll(name, `"`, ""))).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("create database %s: %w: %s", name, err, out)
	}
	return p.URL(name), nil
}

// Stop shuts the server down and removes its files.
func (p *Postgres) Stop() error {
	out, err := p.run(filepath.Join(p.bin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(p.dir)
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

// Redis is a running redis-server owned by the test process. It can be
// stopped and started again on the same port to test outages.
type Redis struct {
	dir  string
	port int
	cmd  *exec.Cmd
}

// StartRedis starts redis-server on a free loopback port with persistence off.
func StartRedis() (*Redis, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, errors.New("redis-server not found: run tools/ci/deps.sh or apt-get install redis-server")
	}
	dir, err := os.MkdirTemp("", "chartd-redis-")
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	r := &Redis{dir: dir, port: port}
	if err := r.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

// Addr is host:port of the server.
func (r *Redis) Addr() string { return fmt.Sprintf("127.0.0.1:%d", r.port) }

// URL is a redis:// URL for go-redis' ParseURL.
func (r *Redis) URL() string { return "redis://" + r.Addr() + "/0" }

// Start (re)starts the server on its port.
func (r *Redis) Start() error {
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", r.dir)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	r.cmd = cmd
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return waitTCP(ctx, r.Addr())
}

// Kill stops the server abruptly (the outage case); Start brings it back.
func (r *Redis) Kill() error {
	if r.cmd == nil || r.cmd.Process == nil {
		return nil
	}
	err := r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
	return err
}

// Shutdown stops the server after saving its data to disk, as a restart
// of a Redis with persistence does; Start brings it back with that data.
func (r *Redis) Shutdown() error {
	if r.cmd == nil || r.cmd.Process == nil {
		return nil
	}
	c, err := net.DialTimeout("tcp", r.Addr(), 5*time.Second)
	if err != nil {
		return fmt.Errorf("shut down redis: %w", err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "*2\r\n$8\r\nSHUTDOWN\r\n$4\r\nSAVE\r\n"); err != nil {
		return fmt.Errorf("shut down redis: send SHUTDOWN SAVE: %w", err)
	}
	// The server closes the connection as it exits; an answer means it
	// refused.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if reply, _ := io.ReadAll(c); len(reply) > 0 {
		return fmt.Errorf("shut down redis: %s", strings.TrimSpace(string(reply)))
	}
	r.cmd.Wait()
	r.cmd = nil
	return nil
}

// Stop kills the server and removes its files.
func (r *Redis) Stop() error {
	err := r.Kill()
	os.RemoveAll(r.dir)
	return err
}
