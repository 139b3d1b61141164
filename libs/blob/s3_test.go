package blob_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"

	"chartd.dev/libs/blob"
	"chartd.dev/libs/blob/blobtest"
	"chartd.dev/libs/testserver"
)

// TestS3 runs against a real MinIO server, one bucket per case.
func TestS3(t *testing.T) {
	m, err := testserver.StartMinIO()
	if err != nil {
		t.Fatalf("start minio: %v", err)
	}
	t.Cleanup(func() { m.Stop() })
	config := func(bucket string) blob.S3Config {
		return blob.S3Config{Endpoint: m.Endpoint(), Bucket: bucket, AccessKey: m.AccessKey(),
			SecretKey: m.SecretKey(), ExpireDays: 7}
	}
	admin, err := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey(), m.SecretKey(), "")})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Conformance", func(t *testing.T) {
		var n atomic.Int32
		blobtest.Run(t, func(t *testing.T) blob.Store {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s, err := blob.NewS3(ctx, config(fmt.Sprintf("conformance-%d", n.Add(1))))
			if err != nil {
				t.Fatalf("NewS3: %v", err)
			}
			return s
		})
	})

	t.Run("CreatesBucketAndLifecycle", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		const bucket = "lifecycle"
		if _, err := blob.NewS3(ctx, config(bucket)); err != nil {
			t.Fatalf("NewS3: %v", err)
		}
		if ok, err := admin.BucketExists(ctx, bucket); !ok || err != nil {
			t.Fatalf("bucket not created: %v, %v", ok, err)
		}
		rule := func() (days int, others []string) {
			t.Helper()
			lc, err := admin.GetBucketLifecycle(ctx, bucket)
			if err != nil {
				t.Fatalf("get lifecycle: %v", err)
			}
			days = -1
			for _, r := range lc.Rules {
				if r.ID != blob.ExpireRuleID {
					others = append(others, r.ID)
					continue
				}
				if r.Status != "Enabled" {
					t.Errorf("rule status %q", r.Status)
				}
				days = int(r.Expiration.Days)
			}
			return days, others
		}
		if days, _ := rule(); days != 7 {
			t.Fatalf("expiry rule days = %d, want 7", days)
		}
		// An operator's own rule survives a restart with a new expiry.
		lc, _ := admin.GetBucketLifecycle(ctx, bucket)
		lc.Rules = append(lc.Rules, lifecycle.Rule{ID: "ops-tmp", Status: "Enabled",
			RuleFilter: lifecycle.Filter{Prefix: "tmp/"}, Expiration: lifecycle.Expiration{Days: 1}})
		if err := admin.SetBucketLifecycle(ctx, bucket, lc); err != nil {
			t.Fatal(err)
		}
		c := config(bucket)
		c.ExpireDays = 30
		s, err := blob.NewS3(ctx, c) // the bucket exists now: reopened, not created
		if err != nil {
			t.Fatalf("NewS3 on an existing bucket: %v", err)
		}
		days, others := rule()
		if days != 30 || len(others) != 1 || others[0] != "ops-tmp" {
			t.Fatalf("after reopen: expiry %d days, other rules %v; want 30 and [ops-tmp]", days, others)
		}
		if err := s.Put(ctx, "png/ab/x", []byte("x"), "image/png"); err != nil {
			t.Fatal(err)
		}
		info, err := admin.StatObject(ctx, bucket, "png/ab/x", minio.StatObjectOptions{})
		if err != nil || info.ContentType != "image/png" {
			t.Fatalf("stored content type %q, %v; want image/png", info.ContentType, err)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, c := range []struct {
			name string
			edit func(*blob.S3Config)
			want string
		}{
			{"no endpoint", func(c *blob.S3Config) { c.Endpoint = "" }, "no endpoint"},
			{"no bucket", func(c *blob.S3Config) { c.Bucket = "" }, "no bucket"},
			{"no expiry", func(c *blob.S3Config) { c.ExpireDays = 0 }, "ExpireDays must be at least 1"},
			{"bad bucket name", func(c *blob.S3Config) { c.Bucket = "Bad_Bucket" }, "Bad_Bucket"},
			{"wrong secret", func(c *blob.S3Config) { c.SecretKey = "wrong-secret" }, "check bucket"},
		} {
			cfg := config("errors")
			c.edit(&cfg)
			_, err := blob.NewS3(ctx, cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: NewS3 = %v, want an error containing %q", c.name, err, c.want)
			}
			if err != nil && cfg.Endpoint != "" && cfg.Bucket != "" && !strings.Contains(err.Error(), cfg.Endpoint+"/"+cfg.Bucket) {
				t.Errorf("%s: error %q does not name endpoint and bucket", c.name, err)
			}
		}
		// A server that is down: the error names where it tried.
		down, err := testserver.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		cfg := config("errors")
		cfg.Endpoint = fmt.Sprintf("127.0.0.1:%d", down)
		short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancelShort()
		if _, err := blob.NewS3(short, cfg); err == nil || !strings.Contains(err.Error(), cfg.Endpoint+"/errors") {
			t.Errorf("NewS3 on a closed port = %v, want an error naming %s/errors", err, cfg.Endpoint)
		}
		// Get on a bucket removed behind the store's back is an error, not
		// a cache miss.
		s, err := blob.NewS3(ctx, config("vanishing"))
		if err != nil {
			t.Fatal(err)
		}
		if err := admin.RemoveBucket(ctx, "vanishing"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, "png/ab/x"); err == nil || errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get in a missing bucket = %v, want an error other than ErrNotFound", err)
		}
	})
}
