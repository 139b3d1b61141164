package blob

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/lifecycle"
)

var _ Store = (*S3)(nil)

// ExpireRuleID names the lifecycle rule NewS3 owns in the bucket; other
// rules an operator adds are left in place.
const ExpireRuleID = "chartd-blob-expire"

// S3Config says where the cache bucket lives and how long objects live in
// it. ExpireDays bounds the bucket's size in a cluster, where no single
// process can keep a byte count, so it must be at least 1.
type S3Config struct {
	Endpoint   string // host:port, no scheme
	Bucket     string
	AccessKey  string
	SecretKey  string
	Region     string // may be empty for MinIO
	Secure     bool   // HTTPS
	ExpireDays int
}

// S3 is a Store in a MinIO or S3 bucket, shared by every render replica.
// S3 writes are atomic per object, so readers never see a torn image.
type S3 struct {
	client *minio.Client
	cfg    S3Config
}

// NewS3 connects to the bucket, creating it when missing, and installs the
// lifecycle rule expiring objects after cfg.ExpireDays, so the cache is
// bounded without a separate cleanup job. Creation races between replicas
// are harmless.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	where := fmt.Sprintf("blob s3 %s/%s", cfg.Endpoint, cfg.Bucket)
	switch {
	case cfg.Endpoint == "":
		return nil, fmt.Errorf("%s: no endpoint given", where)
	case cfg.Bucket == "":
		return nil, fmt.Errorf("%s: no bucket given", where)
	case cfg.ExpireDays < 1:
		return nil, fmt.Errorf("%s: ExpireDays must be at least 1 (it bounds the bucket's size), got %d", where, cfg.ExpireDays)
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: cfg.Secure,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	s := &S3{client: client, cfg: cfg}
	if err := s.ensureBucket(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := s.ensureLifecycle(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return s, nil
}

func (s *S3) ensureBucket(ctx context.Context) error {
	ok, err := s.client.BucketExists(ctx, s.cfg.Bucket)
	if err != nil {
		return fmt.Errorf("check bucket: %w", err)
	}
	if ok {
		return nil
	}
	err = s.client.MakeBucket(ctx, s.cfg.Bucket, minio.MakeBucketOptions{Region: s.cfg.Region})
	if code := minio.ToErrorResponse(err).Code; code == minio.BucketAlreadyOwnedByYou {
		return nil // another replica created it first
	}
	if err != nil {
		return fmt.Errorf("create bucket: %w", err)
	}
	return nil
}

// ensureLifecycle adds or updates the expiry rule, keeping other rules, and
// writes nothing when the rule is already as wanted.
func (s *S3) ensureLifecycle(ctx context.Context) error {
	cfg, err := s.client.GetBucketLifecycle(ctx, s.cfg.Bucket)
	if minio.ToErrorResponse(err).Code == "NoSuchLifecycleConfiguration" {
		cfg, err = lifecycle.NewConfiguration(), nil
	}
	if err != nil {
		return fmt.Errorf("read lifecycle: %w", err)
	}
	want := lifecycle.Rule{
		ID:         ExpireRuleID,
		Status:     "Enabled",
		Expiration: lifecycle.Expiration{Days: lifecycle.ExpirationDays(s.cfg.ExpireDays)},
	}
	rules := make([]lifecycle.Rule, 0, len(cfg.Rules)+1)
	for _, r := range cfg.Rules {
		if r.ID != ExpireRuleID {
			rules = append(rules, r)
			continue
		}
		if r.Status == want.Status && r.Expiration.Days == want.Expiration.Days && r.RuleFilter.IsNull() && r.Prefix == "" {
			return nil
		}
	}
	cfg.Rules = append(rules, want)
	if err := s.client.SetBucketLifecycle(ctx, s.cfg.Bucket, cfg); err != nil {
		return fmt.Errorf("install lifecycle rule %s (expire after %d days): %w", ExpireRuleID, s.cfg.ExpireDays, err)
	}
	return nil
}

func (s *S3) errorf(op, key string, err error) error {
	return fmt.Errorf("blob s3 %s/%s: %s %q: %w", s.cfg.Endpoint, s.cfg.Bucket, op, key, err)
}

// Put uploads data under key with its content type, so the bucket can be
// served or inspected directly.
func (s *S3) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, s.cfg.Bucket, key, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return s.errorf("put", key, err)
	}
	return nil
}

// Get downloads the object under key; a missing object wraps ErrNotFound.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.cfg.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.errorf("get", key, err)
	}
	defer obj.Close()
	data, err := io.ReadAll(obj)
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return nil, s.errorf("get", key, ErrNotFound)
	}
	if err != nil {
		return nil, s.errorf("get", key, err)
	}
	return data, nil
}

// Delete removes the object under key; S3 deletes are idempotent.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.cfg.Bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return s.errorf("delete", key, err)
	}
	return nil
}
