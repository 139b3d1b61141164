package render

import (
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"chartd.dev/libs/dataset"
)

// Bounds of the answers /img remembers: links by count (~300 bytes
// each), picture bodies by count and size, so the whole stays under
// ~100 MB.
const (
	knownLinks     = 65_536
	knownBodies    = 256
	knownBodyBytes = 256 << 10
)

// knownLink is what an image link answered last: enough to answer it
// again without drawing while what decides the picture is unchanged —
// the link (its signature is checked on every request, so a revoked key
// still stops it at once), the owner's plan (the watermark), the chart's
// last save (its concurrency token, which every write changes) and the
// month the picture was counted in.
type knownLink struct {
	account, plan string
	saved         time.Time
	month         time.Time
	hash          string
	// lint and notices are the picture's headers.
	lint    []string
	notices []dataset.Notice
}

// fresh tells whether k still answers for account on plan, for a chart
// last saved at saved, in the month that resets at month.
func (k knownLink) fresh(account, plan string, saved, month time.Time) bool {
	return k.account == account && k.plan == plan && k.saved.Equal(saved) && k.month.Equal(month)
}

// knownBody is a picture's answer body, by picture hash.
type knownBody struct {
	contentType string
	body        []byte
}

// known remembers /img answers in the process: links by their verified
// path and query, bodies by picture hash.
type known struct {
	links  *lru.Cache[string, knownLink]
	bodies *lru.Cache[string, knownBody]
}

// newKnown builds the caches of /img answers.
func newKnown() (known, error) {
	links, err := lru.New[string, knownLink](knownLinks)
	if err != nil {
		return known{}, fmt.Errorf("image link cache: %w", err)
	}
	bodies, err := lru.New[string, knownBody](knownBodies)
	if err != nil {
		return known{}, fmt.Errorf("image body cache: %w", err)
	}
	return known{links: links, bodies: bodies}, nil
}

// keepBody remembers a picture's body when it is small enough.
func (k known) keepBody(hash, contentType string, body []byte) {
	if len(body) == 0 || len(body) > knownBodyBytes {
		return
	}
	k.bodies.Add(hash, knownBody{contentType: contentType, body: body})
}
