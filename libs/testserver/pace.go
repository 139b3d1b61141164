package testserver

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Pace is how many times slower than a quiet reference machine this one
// runs a CPU-bound operation now (at least 1). Tests that guard against a
// pathological slowdown scale their time bounds by it, so a CI machine
// shared with other work (load 20–40 on two cores) stretches the bound
// instead of failing the test, while a real 10× slowdown still fails it.
// Speed itself is measured by benchmarks, not by these bounds.
type Pace struct {
	// Factor multiplies a quiet machine's bounds.
	Factor float64
	// Share is the part of a core the reference operation got (its CPU
	// time over its wall time): 1 on a quiet machine.
	Share float64
	// CPU is the reference operation's CPU time here, against
	// paceReference on the machine the bounds were set on.
	CPU time.Duration
}

// paceReference is the CPU time of paceWork on the two-core machine the
// tests' bounds were set on (15 runs: 18.8–20.0 ms, median 19.0). A
// slower CPU takes longer and is given that much more time.
const paceReference = 19 * time.Millisecond

// paceSamples is how many times the reference operation runs; the median
// pace is taken, so one preempted sample does not decide it.
const paceSamples = 5

// MeasurePace times the reference operation on this machine now: the pace
// is the slowdown of its wall time against a quiet reference machine's CPU
// time, contention (wall over CPU time) times a slower CPU (CPU time over
// paceReference, when more). It takes about 0.1 s quiet, a second or two loaded.
func MeasurePace() Pace {
	paces := make([]Pace, 0, paceSamples)
	for range paceSamples {
		paces = append(paces, samplePace())
	}
	slices.SortFunc(paces, func(a, b Pace) int {
		switch {
		case a.Factor < b.Factor:
			return -1
		case a.Factor > b.Factor:
			return 1
		}
		return 0
	})
	return paces[len(paces)/2]
}

// samplePace runs paceWork once on a locked thread, reading that thread's
// CPU time around it.
func samplePace() Pace {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, ok0 := threadCPU()
	start := time.Now()
	paceWork()
	wall := max(time.Since(start), time.Microsecond)
	cpu1, ok1 := threadCPU()
	cpu := max(cpu1-cpu0, time.Microsecond)
	if !ok0 || !ok1 {
		// No CPU clock: the wall time is all there is.
		cpu = min(wall, paceReference)
	}
	share := min(float64(cpu)/float64(wall), 1)
	slower := max(float64(cpu)/float64(paceReference), 1)
	return Pace{Factor: max(slower/share, 1), Share: share, CPU: cpu}
}

// paceRounds is paceWork's size: about 20 ms of CPU, several of the
// scheduler's time slices, so a sample sees the share of a core the
// machine gives rather than one uninterrupted slice.
const paceRounds = 480

// paceWork is the reference operation: hashing 64 KiB paceRounds times,
// CPU-bound and free of allocation after its buffer.
func paceWork() {
	buf := make([]byte, 64<<10)
	var sum [sha256.Size]byte
	for i := range paceRounds {
		buf[0] = byte(i)
		sum = sha256.Sum256(buf)
		buf[1] = sum[0]
	}
}

// threadCPU is the calling thread's CPU time, user and system; false
// when the system does not keep it.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// Scale answers the bound d of a quiet machine at this pace.
func (p Pace) Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * max(p.Factor, 1))
}

// Over reports whether took is over the bound d at the machine's pace.
// The pace is measured again when took is over it at the first pace, and
// the slower of the two counts: load that rose while the operation ran
// stretched it too.
func (p *Pace) Over(took, d time.Duration) bool {
	if took <= p.Scale(d) {
		return false
	}
	if now := MeasurePace(); now.Factor > p.Factor {
		*p = now
	}
	return took > p.Scale(d)
}

// String is the pace for a test's log.
func (p Pace) String() string {
	return fmt.Sprintf("pace ×%.1f (a %.0f%% share of a core, reference work %v of CPU)", p.Factor, p.Share*100, p.CPU.Round(10*time.Microsecond))
}
