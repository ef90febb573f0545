package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayArgs: a replay with no flags takes the recorded sweep's cells (on the axes the
// recording narrowed only), runs and shard; a flag given wins over the recording.
func TestReplayArgs(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for _, c := range []string{"raw", "mcp-go/call"} {
		for _, f := range []string{"clean", "corrupt"} {
			for _, s := range []string{"hidden", "published"} {
				for _, p := range []string{"2025-11-25"} {
					for run := 1; run <= 2; run++ {
						lines = append(lines, fmt.Sprintf(`{"client":%q,"fault":%q,"schema":%q,"protocol":%q,"transport":"stdio","run":%d,"tee":"runs/x/tee.jsonl"}`, c, f, s, p, run))
					}
				}
			}
		}
	}
	os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "results.json"), []byte(`{"scenario":"ledger balance","shard":"2/3","cells":[]}`), 0o644)
	sc, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	r, shard, _, err := loadRecordings(dir, sc)
	if err != nil {
		t.Fatal(err)
	}
	a := replayArgs(Config{}, sc, r, shard)
	if join(a.Clients) != "raw,mcp-go/call" || join(a.Faults) != "clean,corrupt" || join(a.Schemas) != "" || join(a.Protocols) != "2025-11-25" || a.Runs != 2 || shardString(a.Shard, a.Shards) != "2/3" {
		t.Errorf("replay of the recording: %+v\nwant its two clients, two faults and one protocol, every schema mode (it has them all), 2 runs, shard 2/3", a)
	}
	a = replayArgs(Config{Clients: []string{"raw"}, Runs: 1, Shard: 1, Shards: 1}, sc, r, shard)
	if join(a.Clients) != "raw" || join(a.Faults) != "clean,corrupt" || a.Runs != 1 || shardString(a.Shard, a.Shards) != "1/1" {
		t.Errorf("flags given: %+v, want them kept", a)
	}
}
