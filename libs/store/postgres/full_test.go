package postgres_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/testserver"
)

// psql runs one statement as the server's superuser.
func psql(t *testing.T, sql string) {
	t.Helper()
	u := strings.TrimPrefix(server.pg.URL("postgres"), "postgres://postgres@")
	hostPort := u[:strings.Index(u, "/")]
	host, port, _ := strings.Cut(hostPort, ":")
	if out, err := exec.Command("psql", "-h", host, "-p", port, "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", sql, err, out)
	}
}

// TestDiskFullIsStorageFull puts a database in a tablespace on a real
// 8 MiB tmpfs and fills it with charts: PostgreSQL's disk_full (SQLSTATE
// 53100) comes back as store.ErrStorageFull, and a delete still works
// (PostgreSQL's WAL is on another disk here).
func TestDiskFullIsStorageFull(t *testing.T) {
	dir, err := os.MkdirTemp("", "chartd-pg-full-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unmount, err := testserver.MountTmpfs(dir, 8<<20)
	if err != nil {
		t.Fatalf("a real full disk is needed: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	name := fmt.Sprintf("full_%d", server.dbs.Add(1))
	psql(t, fmt.Sprintf(`CREATE TABLESPACE %s LOCATION '%s'`, name, dir))
	psql(t, fmt.Sprintf(`CREATE DATABASE %s TABLESPACE %s`, name, name))
	t.Cleanup(func() {
		psql(t, fmt.Sprintf(`DROP DATABASE %s WITH (FORCE)`, name))
		psql(t, fmt.Sprintf(`DROP TABLESPACE %s`, name))
	})
	ctx := context.Background()
	s, err := postgres.Open(ctx, server.pg.URL(name))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	var made []string
	for len(made) < 64 {
		raw := make([]byte, 256<<10)
		rand.Read(raw)
		c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "big", Type: "bar", Spec: []byte(`{}`),
			Data: &store.Dataset{Format: "csv", Raw: raw}}, 0)
		if err != nil {
			if !errors.Is(err, store.ErrStorageFull) {
				t.Fatalf("create %d on a full disk: %v, want store.ErrStorageFull", len(made)+1, err)
			}
			break
		}
		made = append(made, c.ID)
	}
	if len(made) == 0 || len(made) == 64 {
		t.Fatalf("%d charts of 256 KiB made on an 8 MiB tablespace", len(made))
	}
	t.Logf("tablespace full after %d charts", len(made))
	if err := s.DeleteChart(ctx, a.ID, made[0]); err != nil {
		t.Fatalf("delete on a full tablespace: %v", err)
	}
}
