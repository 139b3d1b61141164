// Package signing owns the secrets of image-link signing keys: it makes
// them, seals them before they reach the store, opens what the store holds,
// re-seals secrets stored raw by earlier versions, and caches live keys for
// verification (Keys).
//
// The store keeps a signing key's secret as opaque bytes; this package is
// the one place that knows what they mean. A secret is SecretLen random
// bytes, stored sealed with libs/secrets under the server key and bound to
// its account and kid, so a dump of the table alone cannot sign links and a
// sealed secret copied to another row does not open.
//
// Rows written before sealing existed hold the raw secret: exactly
// SecretLen bytes, which no sealed secret can be (sealing adds
// secrets.Overhead bytes). Such a legacy secret is still accepted when read,
// disappears when the account's key is rotated, and `chartctl secrets
// migrate` (Migrate) re-seals all of them in place without breaking a link.
package signing

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
)

// SecretLen is the length of a signing secret (HMAC-SHA256 key), and the
// length of every raw secret earlier versions stored.
const SecretLen = 32

// ErrLegacy means a secret is stored raw and the caller refuses raw ones.
var ErrLegacy = errors.New("signing: secret stored unsealed (run `chartctl secrets migrate`)")

// NewSecret answers a fresh random signing secret.
func NewSecret() []byte {
	s := make([]byte, SecretLen)
	rand.Read(s) // never fails
	return s
}

// additionalData names the row a sealed secret belongs to: a domain label,
// then the account id (length-prefixed, so no two pairs encode alike) and
// the kid.
func additionalData(accountID, kid string) []byte {
	const domain = "chartd signing-key secret\x00"
	ad := make([]byte, 0, len(domain)+4+len(accountID)+len(kid))
	ad = append(ad, domain...)
	ad = binary.BigEndian.AppendUint32(ad, uint32(len(accountID)))
	ad = append(ad, accountID...)
	return append(ad, kid...)
}

// Seal seals secret for the signing_keys row (accountID, kid).
func Seal(box *secrets.Box, accountID, kid string, secret []byte) ([]byte, error) {
	if len(secret) != SecretLen {
		return nil, fmt.Errorf("signing: secret is %d bytes, want %d", len(secret), SecretLen)
	}
	return box.Seal(secret, additionalData(accountID, kid))
}

// IsLegacy reports whether a stored secret is a raw one from before
// sealing.
func IsLegacy(stored []byte) bool { return len(stored) == SecretLen }

// Open answers the secret of a stored key. legacy is true when the row
// holds a raw secret from before sealing (answered as it is). A sealed
// secret that does not open — another server key, another row, tampered —
// wraps secrets.ErrOpen.
func Open(box *secrets.Box, k store.SigningKey) (secret []byte, legacy bool, err error) {
	if IsLegacy(k.Secret) {
		return k.Secret, true, nil
	}
	if !secrets.SealedLen(len(k.Secret), SecretLen) {
		return nil, false, fmt.Errorf("signing key %s: stored secret is %d bytes, neither raw (%d) nor sealed (%d or %d): %w",
			k.ID, len(k.Secret), SecretLen, SecretLen+secrets.OverheadV1, SecretLen+secrets.Overhead, secrets.ErrOpen)
	}
	secret, err = box.Open(k.Secret, additionalData(k.AccountID, k.ID))
	if err != nil {
		return nil, false, fmt.Errorf("signing key %s: %w", k.ID, err)
	}
	return secret, false, nil
}

// Create makes a signing key for the account: a fresh kid and secret,
// stored sealed. It answers the stored row (whose Secret is the sealed
// bytes) and the secret itself.
func Create(ctx context.Context, st store.Accounts, box *secrets.Box, accountID string) (store.SigningKey, []byte, error) {
	kid := uuid.NewString()
	secret := NewSecret()
	sealed, err := Seal(box, accountID, kid, secret)
	if err != nil {
		return store.SigningKey{}, nil, err
	}
	k, err := st.CreateSigningKey(ctx, accountID, kid, sealed)
	if err != nil {
		return store.SigningKey{}, nil, err
	}
	return k, secret, nil
}

// Rotate replaces the account's signing keys in one transaction: a new key
// (when box, the server key, is given) and every live one revoked, so the
// links they signed stop; a failure changes nothing. It answers the new key
// (zero without box) and the kids revoked. The site and chartctl both
// rotate with it.
func Rotate(ctx context.Context, st store.Accounts, box *secrets.Box, accountID string) (store.SigningKey, []string, error) {
	var kid string
	var sealed []byte
	if box != nil {
		kid = uuid.NewString()
		var err error
		if sealed, err = Seal(box, accountID, kid, NewSecret()); err != nil {
			return store.SigningKey{}, nil, err
		}
	}
	k, revoked, err := st.RotateSigningKey(ctx, accountID, kid, sealed)
	if err != nil {
		return store.SigningKey{}, nil, err
	}
	return k, revoked, nil
}

// ServerKeyReport says what RotateServerKey did.
type ServerKeyReport struct {
	// KeyID is the server key every secret is now sealed under.
	KeyID string `json:"key_id"`
	Keys  int    `json:"keys"`
	// Resealed counts secrets moved to KeyID (raw ones sealed included);
	// Current those already under it.
	Resealed int `json:"resealed"`
	Current  int `json:"already_current"`
}

// RotateServerKey re-seals every signing-key secret, revoked keys
// included, under box's newest server key, in one transaction: secrets of
// older keys of the ring and raw ones alike. One that does not open with
// any key of box stops it with nothing written, so a wrong key file breaks
// no link. Afterwards the older server keys can leave the key file.
func RotateServerKey(ctx context.Context, st store.Accounts, box *secrets.Box) (ServerKeyReport, error) {
	r := ServerKeyReport{KeyID: box.KeyIDs()[0]}
	seen, changed, err := st.ResealSigningKeys(ctx, func(k store.SigningKey) ([]byte, bool, error) {
		if IsLegacy(k.Secret) {
			sealed, err := Seal(box, k.AccountID, k.ID, k.Secret)
			return sealed, err == nil, err
		}
		if _, _, err := Open(box, k); err != nil {
			return nil, false, fmt.Errorf("%w (is every older key still in the key file?)", err)
		}
		return box.Reseal(k.Secret, additionalData(k.AccountID, k.ID))
	})
	if err != nil {
		return ServerKeyReport{KeyID: r.KeyID}, err
	}
	r.Keys, r.Resealed, r.Current = seen, changed, seen-changed
	return r, nil
}

// MigrateReport says what Migrate found and did. Kids are listed; counts
// cover every account's keys, revoked ones included.
type MigrateReport struct {
	Accounts int `json:"accounts"`
	Keys     int `json:"keys"`
	// Sealed counts keys already sealed that open with the server key.
	Sealed int `json:"already_sealed"`
	// Resealed lists the keys whose raw secret was sealed in place.
	Resealed []string `json:"resealed"`
	// Unreadable lists sealed keys that do not open with the server key.
	Unreadable []string `json:"unreadable"`
}

// Migrate seals, in place, every secret stored raw by an earlier version,
// revoked keys included; kids stay, so links already handed out keep
// working. It first checks that every already sealed secret opens with box:
// if one does not, box is probably not the server's key and Migrate writes
// nothing (sealing raw secrets under the wrong key would break their links)
// and answers an error with the report. Running it twice, or next to a
// running service, is safe: each write is a compare-and-set on the raw
// bytes.
func Migrate(ctx context.Context, st store.Accounts, box *secrets.Box) (MigrateReport, error) {
	r := MigrateReport{Resealed: []string{}, Unreadable: []string{}}
	accts, err := st.ListAccounts(ctx)
	if err != nil {
		return r, err
	}
	var legacy []store.SigningKey
	for _, a := range accts {
		keys, err := st.ListSigningKeys(ctx, a.ID)
		if err != nil {
			return r, err
		}
		r.Accounts++
		for _, k := range keys {
			r.Keys++
			switch _, isLegacy, err := Open(box, k); {
			case isLegacy:
				legacy = append(legacy, k)
			case err != nil:
				r.Unreadable = append(r.Unreadable, k.ID)
			default:
				r.Sealed++
			}
		}
	}
	if len(r.Unreadable) > 0 {
		return r, fmt.Errorf("%d sealed signing keys do not open with this server key (is it the key file chartd uses?); nothing was changed", len(r.Unreadable))
	}
	for _, k := range legacy {
		sealed, err := Seal(box, k.AccountID, k.ID, k.Secret)
		if err != nil {
			return r, err
		}
		err = st.SetSigningKeySecret(ctx, k.AccountID, k.ID, k.Secret, sealed)
		if errors.Is(err, store.ErrConflict) {
			// Changed since read: another migration sealed it first. Count
			// it by what is stored now.
			cur, gerr := st.GetSigningKey(ctx, k.AccountID, k.ID)
			if gerr != nil {
				return r, gerr
			}
			if _, isLegacy, oerr := Open(box, cur); oerr != nil || isLegacy {
				return r, fmt.Errorf("signing key %s changed while migrating: %w", k.ID, err)
			}
			r.Sealed++
			continue
		}
		if errors.Is(err, store.ErrNotFound) {
			r.Keys-- // deleted with its account meanwhile
			continue
		}
		if err != nil {
			return r, err
		}
		r.Resealed = append(r.Resealed, k.ID)
	}
	return r, nil
}
