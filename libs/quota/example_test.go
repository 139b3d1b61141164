package quota_test

import (
	"context"
	"fmt"
	"time"

	"chartd.dev/libs/quota"
)

// The monthly image allowance on a Counter: each different picture costs
// one the first time it is drawn in a month, a picture already drawn costs
// nothing, and a new one past the limit is refused. MemoryCounter is the
// Counter of the one-machine setup; RedisCounter answers the same way for a
// fleet.
func ExampleCounter() {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)
	var c quota.Counter = quota.NewMemoryCounter(func() time.Time { return now })

	const account, limit = "account-1", 2
	for _, picture := range []string{"hash-a", "hash-b", "hash-a", "hash-c"} {
		n, ok, err := c.AddUniqueWithin(ctx, account, quota.Month, picture, limit)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: ok %v, %d of %d this month\n", picture, ok, n, limit)
	}

	now = now.Add(2 * time.Hour) // 01:00 on the 1st: a new month
	n, _ := c.CountUnique(ctx, account, quota.Month)
	fmt.Printf("%s: %d used, resets in %v\n", quota.Month.ID(now), n, quota.Month.Reset(now))
	// Output:
	// hash-a: ok true, 1 of 2 this month
	// hash-b: ok true, 2 of 2 this month
	// hash-a: ok true, 2 of 2 this month
	// hash-c: ok false, 2 of 2 this month
	// 2026-12: 0 used, resets in 743h0m0s
}
