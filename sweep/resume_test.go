package sweep

import (
	"testing"

	"github.com/toolscore/toolscore/report"
)

// TestSweepRecordCompatible: sweep.json's args keep the fields, order and values that toolscore
// wrote before the sweep was a package (when they were the action's SweepInputs with FailOn and
// Replay), so a sweep started by an older toolscore still resumes; what was recorded decodes
// into the same Config.
func TestSweepRecordCompatible(t *testing.T) {
	sc, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	sc.Runs = 2
	c := Config{Clients: []string{"raw"}, Faults: []string{"clean", "corrupt"}, Schemas: []string{"hidden"}, Protocols: []string{"2025-11-25"}, Transports: []string{"stdio"}, Tools: nil,
		Runs: 2, MaxRuns: 500, Parallel: 3, Shard: 1, Shards: 2, Backend: "", Out: "somewhere", FailOn: report.FailOnUnchecked,
		Version: "test", Self: "/bin/toolscore"}
	s := sweepRecord(c, sc, "local")
	want := `{"Scenario":"","Clients":"raw","Faults":"clean,corrupt","Schemas":"hidden","Protocols":"2025-11-25","Transports":"stdio","Tools":"",` +
		`"Runs":2,"MaxRuns":500,"Parallel":3,"Shard":"1/2","Backend":"local","Out":"","FailOn":"unchecked","Replay":""}`
	if string(s.Args) != want {
		t.Errorf("sweep.json args:\n%s\nwant\n%s", s.Args, want)
	}
	if s.Manifest != "" || len(s.SHA256) != 64 {
		t.Errorf("the embedded manifest recorded as %q, sha256 %q; want no path and its digest", s.Manifest, s.SHA256)
	}
}
