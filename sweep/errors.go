package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// ConfigError is a Config field whose value cannot be swept, refused before anything runs. A
// command line that reads the field from a flag names the flag instead (toolscore run names
// Shard --shard).
type ConfigError struct {
	Field string // the Config field, e.g. "Shard" or "Replay"
	Err   error  // what is wrong with its value
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// TooBigError is a sweep of more runs than Config.MaxRuns allows (DefaultMaxRuns when it is 0),
// refused before anything is made for it.
type TooBigError struct {
	What  string          // what the sweep would make, e.g. "1200 runs (12 cells × 100 runs)"
	Limit int             // the limit it is over
	Need  int             // the smallest MaxRuns that lets it run
	Tools []scenario.Tool // the tools the scenario calls, when more than one: each multiplies the matrix
}

func (e *TooBigError) Error() string {
	narrow := "Clients, Faults, Schemas, Protocols, Runs or Shard"
	if len(e.Tools) > 1 {
		narrow = fmt.Sprintf("Tools (the scenario calls %d tools: %s), ", len(e.Tools), report.Plain(ToolList(e.Tools))) + narrow
	}
	return fmt.Sprintf("the sweep would make %s, over the limit of %d runs; narrow it by %s, or raise MaxRuns to %d", e.What, e.Limit, narrow, e.Need)
}

// MissingRecordingsError is a replay (Config.Replay) with runs its recording does not hold.
type MissingRecordingsError struct {
	Dir   string // the recorded sweep's output directory
	N, Of int    // the runs missing, of the runs to replay
	First string // the first run missing
}

func (e *MissingRecordingsError) Error() string {
	return fmt.Sprintf("%s holds no recording of %d of the %d runs to replay (the first: %s): a replay plays recorded runs only; leave Clients, Faults, Schemas, Protocols, Transports, Tools, Runs and Shard unset to replay the sweep as it was recorded, or narrow them to its runs",
		e.Dir, e.N, e.Of, e.First)
}

// ToolList names the first few tools, and how many more there are.
func ToolList(tools []scenario.Tool) string {
	var names []string
	for i, t := range tools {
		if i == 5 {
			return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(tools)-5)
		}
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// ParseShard reads a shard as a command line gives it, "i/n" (the first of three is 1/3), into
// Config.Shard and Config.Shards; "" is the whole matrix, 0 and 0. Its error quotes s and says
// what is wanted, for the caller to put after the flag's name.
func ParseShard(s string) (shard, shards int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || ierr != nil || nerr != nil {
		return 0, 0, fmt.Errorf("%q: want i/n, e.g. 1/3 for the first of three shards", s)
	}
	if n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("%q: want 1 ≤ i ≤ n, e.g. 1/%d to %d/%d", s, max(n, 1), max(n, 1), max(n, 1))
	}
	return i, n, nil
}

// shardString is shard of shards as ParseShard reads it, "" for the whole matrix.
func shardString(shard, shards int) string {
	if shards == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", shard, shards)
}
