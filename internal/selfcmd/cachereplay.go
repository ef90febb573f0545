package selfcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cache"
)

// cacheReplayCmd is what a sweep with a cell cache runs where its runs execute, to check the
// server before it reuses a cell: it plays each session of the file --in to a fresh server started by argv (toolscore's
// clean proxy around the scenario's server), and prints the live answers, one session a line.
func cacheReplayCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cache-replay", flag.ContinueOnError)
	in := fs.String("in", "", "the sessions to play, one JSON a line")
	wait := fs.Duration("wait", 10*time.Second, "the cell's timeout: how long to wait for each message of the server, and for each answer after its request")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	argv := fs.Args()
	if *in == "" || len(argv) == 0 || *wait <= 0 {
		return exitcode.UsageError(errors.New("toolscore cache-replay --in FILE [--wait TIMEOUT] -- SERVER [ARGS]"))
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	d := json.NewDecoder(bufio.NewReader(f))
	for i := 0; ; i++ {
		var s cache.Session
		if err := d.Decode(&s); err != nil {
			break
		}
		session, folder := ownTee(argv, i)
		if folder != "" {
			if err := os.MkdirAll(folder, 0o755); err != nil {
				return err
			}
		}
		// This command runs as a run does (the backend starts it with the environment the run
		// defines, runner.cellcache's Spec), so its environment is already the server's.
		live := cache.Replay(ctx, s, session, os.Environ(), *wait)
		if folder != "" {
			os.RemoveAll(folder)
		}
		if err := enc.Encode(live); err != nil {
			return err
		}
	}
	return nil
}

// ownTee is argv with the proxy's --tee moved into a folder of session i's own, and that
// folder ("" when argv has no --tee): a proxy refuses a tee beside which 32 servers' transcripts
// exist already, so every session after the 32nd would otherwise get no answer at all.
func ownTee(argv []string, i int) ([]string, string) {
	for j := 0; j+1 < len(argv) && argv[j] != "--"; j++ {
		if argv[j] == "--tee" {
			folder := filepath.Join(filepath.Dir(argv[j+1]), fmt.Sprintf("replay-%d", i))
			out := slices.Clone(argv)
			out[j+1] = filepath.Join(folder, filepath.Base(argv[j+1]))
			return out, folder
		}
	}
	return argv, ""
}
