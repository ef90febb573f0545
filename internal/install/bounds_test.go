package install

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it takes longer than d (f is then left blocked).
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
		panic("unreachable")
	}
}

// TestKeySkipsPipe: a named pipe beside the client's files is neither hashed nor copied (opening
// it would block for ever); only regular files travel.
func TestKeySkipsPipe(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "adapter.sh"), []byte("echo hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Recipe{Runtime: Binary, Files: os.DirFS(src)}
	type result struct {
		dir string
		err error
	}
	got := within(t, 10*time.Second, "Ensure with a named pipe in the folder", func() result {
		dir, _, err := Ensure(context.Background(), t.TempDir(), "c", r, &bytes.Buffer{})
		return result{dir, err}
	})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if _, err := os.Stat(filepath.Join(got.dir, "adapter.sh")); err != nil {
		t.Errorf("the adapter was not copied: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(got.dir, "pipe")); err == nil {
		t.Errorf("the pipe was copied")
	}
}

// TestKeyStreams: hashing a large file beside the client's files takes memory of a buffer, not
// of the file (a 256 MiB sparse file here).
func TestKeyStreams(t *testing.T) {
	src := t.TempDir()
	f, err := os.Create(filepath.Join(src, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := Recipe{Runtime: Binary, Files: os.DirFS(src)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := r.Key(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("Key allocated %d MiB for a 256 MiB file; want it streamed", alloc>>20)
	}
}

// alive says whether pid runs (a zombie, dead and unreaped, does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// pidsIn reads the pids a step wrote into files of dir.
func pidsIn(t *testing.T, dir string, names ...string) []int {
	t.Helper()
	var pids []int
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatalf("the step wrote no %s: %v", n, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestStepBackground: a step that leaves a process running in the background, and one that
// leaves a daemon in a session of its own, succeeds at once (the output they hold does not keep
// it waiting), and neither is left running.
func TestStepBackground(t *testing.T) {
	out := t.TempDir()
	r := Recipe{Runtime: Binary, Steps: []string{
		"sleep 1000 & echo $! > " + out + "/bg; " +
			"(setsid sh -c 'echo $$ > " + out + "/daemon; exec sleep 1000' &); sleep 0.2; echo done"}}
	start := time.Now()
	err := within(t, 20*time.Second, "Ensure", func() error {
		_, _, err := Ensure(context.Background(), t.TempDir(), "c", r, &bytes.Buffer{})
		return err
	})
	if err != nil {
		t.Fatalf("the step failed: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the install took %s: it waited on what the step left", took)
	}
	for _, pid := range pidsIn(t, out, "bg", "daemon") {
		if alive(pid) {
			t.Errorf("pid %d the step left in the background still runs", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestStepOutputBounded: a step that writes 64 MB keeps only the end of it (in memory too), and
// its error says how much there was.
func TestStepOutputBounded(t *testing.T) {
	r := Recipe{Runtime: Binary, Steps: []string{"head -c 64000000 /dev/zero | tr '\\0' x; echo; echo the real reason; exit 3"}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := Ensure(context.Background(), t.TempDir(), "c", r, &bytes.Buffer{})
	runtime.ReadMemStats(&after)
	var se *StepError
	if !errors.As(err, &se) {
		t.Fatalf("%v; want a StepError", err)
	}
	if len(se.Output) > 4096 || !strings.HasSuffix(se.Output, "\nthe real reason") || se.Total != 64000000+17 {
		t.Errorf("output of %d bytes ending %q, total %d; want at most 4096 ending with the reason, total 64000017", len(se.Output), se.Output[max(0, len(se.Output)-40):], se.Total)
	}
	if !strings.Contains(err.Error(), "exit status 3; the end of its output (64000017 bytes in all):\n") {
		t.Errorf("the error does not say it shows the end: %.200s", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the step's output took %d MiB; want it bounded", alloc>>20)
	}
}

// TestStepTimeout: a step that runs past StepTimeout is stopped, with what it started, and fails
// saying so.
func TestStepTimeout(t *testing.T) {
	defer func(d time.Duration) { StepTimeout = d }(StepTimeout)
	StepTimeout = time.Second
	out := t.TempDir()
	r := Recipe{Runtime: Binary, Steps: []string{"sleep 1000 & echo $! > " + out + "/bg; sleep 1000"}}
	err := within(t, 15*time.Second, "Ensure", func() error {
		_, _, err := Ensure(context.Background(), t.TempDir(), "c", r, &bytes.Buffer{})
		return err
	})
	want := `install step "sleep 1000 & echo $! > ` + out + `/bg; sleep 1000" failed: it ran for longer than 1s and was stopped`
	if err == nil || err.Error() != want {
		t.Errorf("%v\nwant %s", err, want)
	}
	if pid := pidsIn(t, out, "bg")[0]; alive(pid) {
		t.Errorf("pid %d the step started still runs", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestStepCancelled: a cancelled install (SIGINT) stops the step and everything it started.
func TestStepCancelled(t *testing.T) {
	out := t.TempDir()
	r := Recipe{Runtime: Binary, Steps: []string{"sleep 1000 & echo $! > " + out + "/bg; wait"}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(out, "bg")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	err := within(t, 15*time.Second, "Ensure", func() error {
		_, _, err := Ensure(ctx, t.TempDir(), "c", r, &bytes.Buffer{})
		return err
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Errorf("%v after %s; want context.Canceled at once", err, time.Since(start))
	}
	if pid := pidsIn(t, out, "bg")[0]; alive(pid) {
		t.Errorf("pid %d the step started still runs", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
