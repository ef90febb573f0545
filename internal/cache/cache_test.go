package cache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// storedCell writes a cell of two runs into an output directory, as a sweep leaves it, and
// returns the output and the runs.
func storedCell(t *testing.T) (string, []Run) {
	t.Helper()
	out := t.TempDir()
	var runs []Run
	for n, tee := range []string{`{"dir":"to-server","wire":"{}\n"}`, `{"dir":"to-client","wire":"{}\n"}`} {
		dir := filepath.Join("runs", "raw__clean", "run-"+string(rune('1'+n)))
		if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, dir, "tee.jsonl"), []byte(tee+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		line := `{"client":"raw","run":` + string(rune('1'+n)) + `,"outcome":"passed","tee":"` + filepath.ToSlash(filepath.Join(dir, "tee.jsonl")) + `"}`
		runs = append(runs, Run{Number: n + 1, Line: []byte(line), Dir: dir})
	}
	return out, runs
}

// TestPutGetCopy: a cell stored is read back whole and copied into another output as it was.
func TestPutGetCopy(t *testing.T) {
	out, runs := storedCell(t)
	c := &Cache{Dir: t.TempDir()}
	sweep := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	if err := c.Put(context.Background(), Meta{Key: "k1", Cell: "raw|clean", Sweep: sweep}, out, runs, false); err != nil {
		t.Fatal(err)
	}
	e, err := c.Get("k1")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Runs) != 2 || !e.Meta.Sweep.Equal(sweep) || e.Runs[1].Dir != runs[1].Dir || string(e.Runs[0].Line) != string(runs[0].Line) {
		t.Fatalf("read back %+v", e)
	}
	to := t.TempDir()
	if err := e.Copy(to, e.Runs[1]); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(to, runs[1].Dir, "tee.jsonl")); string(got) != `{"dir":"to-client","wire":"{}\n"}`+"\n" {
		t.Errorf("copied %q", got)
	}
	if _, err := c.Get("nope"); !errors.Is(err, ErrMiss) {
		t.Errorf("a key never stored: %v, want ErrMiss", err)
	}
}

// TestDamaged: an entry truncated, edited or given a file it did not hold fails its manifest;
// discarded, it is a miss.
func TestDamaged(t *testing.T) {
	for name, damage := range map[string]func(dir string) error{
		"truncated": func(dir string) error {
			return os.Truncate(filepath.Join(dir, "files", "runs", "raw__clean", "run-1", "tee.jsonl"), 3)
		},
		"edited": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, runsFile), []byte(`{"client":"raw","run":1,"outcome":"threw"}`+"\n"+`{"client":"raw","run":2,"outcome":"threw"}`+"\n"), 0o644)
		},
		"a file added": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "files", "extra"), nil, 0o644)
		},
		"no manifest": func(dir string) error { return os.Remove(filepath.Join(dir, manifestFile)) },
	} {
		t.Run(name, func(t *testing.T) {
			out, runs := storedCell(t)
			c := &Cache{Dir: t.TempDir()}
			if err := c.Put(context.Background(), Meta{Key: "k"}, out, runs, false); err != nil {
				t.Fatal(err)
			}
			if err := damage(filepath.Join(c.Dir, "k")); err != nil {
				t.Fatal(err)
			}
			var d *DamagedError
			if _, err := c.Get("k"); !errors.As(err, &d) {
				t.Fatalf("Get: %v, want a DamagedError", err)
			}
			if err := c.Discard(context.Background(), "k"); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Get("k"); !errors.Is(err, ErrMiss) {
				t.Errorf("after Discard: %v, want ErrMiss", err)
			}
		})
	}
}

// TestConcurrentPut: sweeps storing the same key at once leave one whole entry; replace puts
// the new one in place of the old.
func TestConcurrentPut(t *testing.T) {
	out, runs := storedCell(t)
	c := &Cache{Dir: t.TempDir()}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Put(context.Background(), Meta{Key: "k", Toolscore: "one"}, out, runs, i%2 == 0)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Get("k"); err != nil {
		t.Fatalf("after concurrent stores: %v", err)
	}
	if err := c.Put(context.Background(), Meta{Key: "k", Toolscore: "two"}, out, runs[:1], true); err != nil {
		t.Fatal(err)
	}
	if e, err := c.Get("k"); err != nil || e.Meta.Toolscore != "two" || len(e.Runs) != 1 {
		t.Errorf("replaced: %+v, %v", e, err)
	}
	if metas, _ := c.List(); len(metas) != 1 {
		t.Errorf("List: %d entries, want 1 (nothing half made left beside it)", len(metas))
	}
}

// TestReadOnly: a cache that cannot be written says so, and holds nothing.
func TestReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder")
	}
	out, runs := storedCell(t)
	c := &Cache{Dir: t.TempDir()}
	if err := os.Chmod(c.Dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(c.Dir, 0o755) })
	if err := c.Put(context.Background(), Meta{Key: "k"}, out, runs, false); err == nil {
		t.Fatal("Put into a read-only folder succeeded")
	}
	if _, err := c.Get("k"); !errors.Is(err, ErrMiss) {
		t.Errorf("Get: %v, want ErrMiss", err)
	}
}

// TestDiffers: the live answers are compared with the recorded ones, ids aside and the
// volatile pointers masked.
func TestDiffers(t *testing.T) {
	dir := t.TempDir()
	tee := `{"dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n"}
{"dir":"to-client","fault":"error","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true}}\n","original":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"v\":1,\"at\":\"t1\"}}\n"}
`
	if err := os.WriteFile(filepath.Join(dir, "tee.jsonl"), []byte(tee), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := ReadSessions(dir)
	if err != nil || len(ss) != 1 || len(ss[0].Sent) != 1 {
		t.Fatalf("ReadSessions: %+v, %v", ss, err)
	}
	s := ss[0]
	live := func(answer string) Live { return Live{Answers: map[string]string{"1": answer}} }
	for _, tt := range []struct {
		answer   string
		volatile []string
		same     bool
	}{
		{`{"id":1,"jsonrpc":"2.0","result":{"at":"t1","v":1}}`, nil, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"v":1,"at":"t2"}}`, nil, false},
		{`{"jsonrpc":"2.0","id":1,"result":{"v":1,"at":"t2"}}`, []string{"/at"}, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"v":2,"at":"t2"}}`, []string{"/at"}, false},
	} {
		why := s.Differs(live(tt.answer), map[string][]string{"a": tt.volatile}, 30*time.Second)
		if (why == "") != tt.same {
			t.Errorf("%s with volatile %v: %q", tt.answer, tt.volatile, why)
		}
	}
	if why := s.Differs(Live{Answers: map[string]string{}}, nil, 30*time.Second); why == "" {
		t.Error("no live answer at all passed")
	}
}

// TestDiffersOnTime: an answer is reused only on the same side of the cell's timeout as the
// recorded one, within a quarter of it or past it; between, either side, the cell runs. A request
// the recorded session never had answered agrees only with a live answer that comes a quarter of
// the timeout after the recorded session ended, or none.
func TestDiffersOnTime(t *testing.T) {
	dir := t.TempDir()
	// Request 1 answered after 10ms; request 2 never answered, the session ending 1.5s after it.
	tee := `{"time":"2026-01-01T00:00:00Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n"}
{"time":"2026-01-01T00:00:00.01Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"}
{"time":"2026-01-01T00:00:00.5Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}\n"}
{"time":"2026-01-01T00:00:02Z","dir":"event","event":"no-server-exit"}
`
	if err := os.WriteFile(filepath.Join(dir, "tee.jsonl"), []byte(tee), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err := ReadSessions(dir)
	if err != nil || len(ss) != 1 {
		t.Fatalf("ReadSessions: %+v, %v", ss, err)
	}
	const timeout = 2 * time.Second
	for _, tt := range []struct {
		name     string
		latency1 time.Duration
		latency2 time.Duration // 0: request 2 unanswered
		same     bool
	}{
		{"both on time", 300 * time.Millisecond, 0, true},
		{"live too near the timeout", time.Second, 0, false},
		{"live late", 0, 0, false}, // request 1 unanswered live, within the timeout
		{"the hung request answered now", 5 * time.Millisecond, 100 * time.Millisecond, false},
		{"the hung request answered well after the session", 5 * time.Millisecond, 2100 * time.Millisecond, true},
	} {
		live := Live{Answers: map[string]string{}, Latency: map[string]time.Duration{}, Before: map[string][]string{}}
		if tt.latency1 > 0 {
			live.Answers["1"], live.Latency["1"] = `{"jsonrpc":"2.0","id":1,"result":{}}`, tt.latency1
		}
		if tt.latency2 > 0 {
			live.Answers["2"], live.Latency["2"] = `{"jsonrpc":"2.0","id":2,"result":{}}`, tt.latency2
		}
		if why := ss[0].Differs(live, nil, timeout); (why == "") != tt.same {
			t.Errorf("%s: differs %q, want same %v", tt.name, why, tt.same)
		}
	}
}

// TestDiffersCutStream: an answer the proxy cut from an SSE stream (sse-cut) was still sent by
// the server: the check compares the live answer with it, and where the client resumed and the
// server's event store sent the same event again, that is one message of the server's, not two.
func TestDiffersCutStream(t *testing.T) {
	dir := t.TempDir()
	call := `{"time":"2026-01-01T00:00:00Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n"}
{"time":"2026-01-01T00:00:00.01Z","dir":"event","event":"sse-cut","http":{"event_id":"E_1"},"original":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"v\":1}}"}
`
	resumed := `{"time":"2026-01-01T00:00:01Z","dir":"to-client","http":{"event_id":"E_1"},"wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"v\":1}}"}
{"time":"2026-01-01T00:00:02Z","dir":"event","event":"server-exit"}
`
	live := Live{Answers: map[string]string{"2": `{"jsonrpc":"2.0","id":2,"result":{"v":1}}`},
		Latency: map[string]time.Duration{"2": 5 * time.Millisecond}, Before: map[string][]string{}}
	for name, tee := range map[string]string{"never resumed": call + `{"time":"2026-01-01T00:00:02Z","dir":"event","event":"server-exit"}` + "\n", "resumed": call + resumed} {
		if err := os.WriteFile(filepath.Join(dir, "tee.jsonl"), []byte(tee), 0o644); err != nil {
			t.Fatal(err)
		}
		ss, err := ReadSessions(dir)
		if err != nil || len(ss) != 1 {
			t.Fatalf("%s: ReadSessions: %+v, %v", name, ss, err)
		}
		if ss[0].Total != 1 {
			t.Errorf("%s: the server sent %d messages, want 1", name, ss[0].Total)
		}
		if why := ss[0].Differs(live, nil, 10*time.Second); why != "" {
			t.Errorf("%s: differs: %s", name, why)
		}
		changed := live
		changed.Answers = map[string]string{"2": `{"jsonrpc":"2.0","id":2,"result":{"v":2}}`}
		if why := ss[0].Differs(changed, nil, 10*time.Second); why == "" {
			t.Errorf("%s: a changed answer behind the cut passed", name)
		}
	}
}

// TestCopyStaysInOutput: where a folder of the output on the way to a run's directory is a link
// (a run of the sweep can make one), Copy writes and removes nothing through it.
func TestCopyStaysInOutput(t *testing.T) {
	out, runs := storedCell(t)
	c := &Cache{Dir: t.TempDir()}
	if err := c.Put(context.Background(), Meta{Key: "k"}, out, runs, false); err != nil {
		t.Fatal(err)
	}
	e, err := c.Get("k")
	if err != nil {
		t.Fatal(err)
	}
	victim, to := t.TempDir(), t.TempDir()
	keep := filepath.Join(victim, "raw__clean", "run-1", "keep")
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(to, "runs")); err != nil {
		t.Fatal(err)
	}
	err = e.Copy(to, e.Runs[0])
	if want := filepath.Join(to, "runs") + " is not a folder of the output (a link or a file is there): nothing is written through it"; err == nil || err.Error() != want {
		t.Errorf("Copy through a link: %v, want %q", err, want)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the folder the link names: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(victim, "raw__clean", "run-1", "tee.jsonl")); err == nil {
		t.Error("Copy wrote through the link")
	}
}
