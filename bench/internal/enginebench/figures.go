package enginebench

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Ms is d in milliseconds, the unit every benchmark's tables use.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Median is the median of xs (the mean of the middle two for an even count), NaN for none: the
// figure the tables give, since a shared engine's outliers would move a mean.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// P90 is the nearest-rank 90th percentile of xs (one of the samples, not interpolated), NaN
// for none.
func P90(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(math.Ceil(0.9*float64(len(s))))-1]
}

// LoadAvg is the machine's 1, 5 and 15 minute load averages ("?" when unknown), printed beside
// the figures because a busy machine slows what is timed.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ShortID is an image or container id as docker prints it: 12 hex digits, no "sha256:".
func ShortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	return id[:min(12, len(id))]
}

// Tail is the last n bytes of b: the end of a command's output, which says why it failed,
// kept short in an error.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// PeakRSS is a process's peak resident memory (VmHWM in /proc/PID/status) in bytes, or -1 when
// it cannot be read (the process is gone).
func PeakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return -1
}

// CPUTime is the user and system time a process has used so far, or 0 once it is gone.
func CPUTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
}
