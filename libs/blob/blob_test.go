package blob_test

import (
	"errors"
	"strings"
	"testing"

	"chartd.dev/libs/blob"
	"chartd.dev/libs/blob/blobtest"
)

func TestValidateKey(t *testing.T) {
	for _, k := range []string{
		"a",
		blobtest.Key("x"),
		"png/ab/.hidden",
		"svg/x-y_z.1/2",
		strings.Repeat("k", blob.MaxKeyLen),
	} {
		if err := blob.ValidateKey(k); err != nil {
			t.Errorf("ValidateKey(%.40q) = %v, want nil", k, err)
		}
	}
	for _, k := range blobtest.InvalidKeys() {
		err := blob.ValidateKey(k)
		if !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("ValidateKey(%.40q) = %v, want ErrInvalidKey", k, err)
		}
	}
	for k, why := range map[string]string{
		"png/../x":                            `".."`,
		"/png":                                `starts with "/"`,
		"png/A":                               `byte 'A' at 4`,
		strings.Repeat("a", blob.MaxKeyLen+1): "257 bytes",
		"png//a":                              "empty path segment",
	} {
		if err := blob.ValidateKey(k); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ValidateKey(%.40q) = %v, want it to say %s", k, err, why)
		}
	}
}
