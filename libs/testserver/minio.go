package testserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// minioBinary finds the MinIO server: $CHARTD_MINIO, else the copy
// tools/ci/deps.sh caches, else PATH.
func minioBinary() (string, error) {
	if p := os.Getenv("CHARTD_MINIO"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CHARTD_MINIO=%s: %w (run tools/ci/deps.sh or fix the variable)", p, err)
		}
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "chartd", "bin", "minio")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p, nil
	}
	return "", errors.New("minio server binary not found ($CHARTD_MINIO, $HOME/.cache/chartd/bin/minio, PATH): run tools/ci/deps.sh")
}

// MinIO is a running MinIO server owned by the test process, for tests of
// the S3 blob store against the real thing.
type MinIO struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

const (
	minioUser     = "chartd-test"
	minioPassword = "chartd-test-secret"
)

// StartMinIO starts a single-drive MinIO server in a fresh temp dir on free
// loopback ports and waits until it reports ready. Call Stop when done.
func StartMinIO() (*MinIO, error) {
	bin, err := minioBinary()
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	consolePort, err := FreePort()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chartd-minio-")
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	cmd := exec.Command(bin, "server", filepath.Join(dir, "data"),
		"--address", "127.0.0.1:"+strconv.Itoa(port),
		"--console-address", "127.0.0.1:"+strconv.Itoa(consolePort),
		"--quiet")
	cmd.Env = append(os.Environ(),
		"MINIO_ROOT_USER="+minioUser,
		"MINIO_ROOT_PASSWORD="+minioPassword,
		"MINIO_UPDATE=off", // no network here, and no business checking
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	m := &MinIO{dir: dir, port: port, cmd: cmd, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(m.done)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.waitReady(ctx); err != nil {
		m.Stop()
		log, _ := os.ReadFile(logFile.Name())
		return nil, fmt.Errorf("minio on %s: %w; log:\n%s", m.Endpoint(), err, log)
	}
	return m, nil
}

// waitReady polls until the server can serve S3 requests, it exits or ctx
// ends. /minio/health/ready alone is not enough: it answers 200 (with
// x-minio-server-status: offline) before the object layer and IAM are up,
// and requests then fail with "Server not initialized yet".
// /minio/health/cluster answers 200 only once all of them are.
func (m *MinIO) waitReady(ctx context.Context) error {
	client := &http.Client{Timeout: time.Second}
	status := func(path string) string {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+m.Endpoint()+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err.Error()
		}
		resp.Body.Close()
		if s := resp.Header.Get("x-minio-server-status"); s != "" {
			return fmt.Sprintf("%s: %s, %s", path, resp.Status, s)
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Sprintf("%s: %s", path, resp.Status)
		}
		return ""
	}
	for {
		last := status("/minio/health/ready")
		if last == "" {
			if last = status("/minio/health/cluster"); last == "" {
				return nil
			}
		}
		select {
		case <-m.done:
			return fmt.Errorf("server exited before it was ready (%v)", m.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("not ready: %w (last: %s)", ctx.Err(), last)
		case <-time.After(30 * time.Millisecond):
		}
	}
}

// Endpoint is host:port of the S3 API, as minio-go and blob.S3Config take it
// (no scheme; plain HTTP).
func (m *MinIO) Endpoint() string { return "127.0.0.1:" + strconv.Itoa(m.port) }

// AccessKey is the root user's access key.
func (m *MinIO) AccessKey() string { return minioUser }

// SecretKey is the root user's secret key.
func (m *MinIO) SecretKey() string { return minioPassword }

// Stop kills the server, waits for it to exit and removes its files.
func (m *MinIO) Stop() error {
	err := m.cmd.Process.Kill()
	<-m.done
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	if rerr := os.RemoveAll(m.dir); err == nil {
		err = rerr
	}
	return err
}
