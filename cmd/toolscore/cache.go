package main

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

// cacheDirEnv names the cell cache's folder, in place of the default (defaultCacheDir), or is
// off for none; the tests give each sweep its own this way.
const cacheDirEnv = "TOOLSCORE_CACHE_DIR"

// defaultCacheDir is the cell cache a sweep uses unless --cache or --no-cache says otherwise:
// $TOOLSCORE_CACHE_DIR, else $TOOLSCORE_CACHE/cells (beside the client installs), else the
// user's cache folder's toolscore/cells. "" when there is none ($TOOLSCORE_CACHE_DIR off).
func defaultCacheDir() string {
	if d := os.Getenv(cacheDirEnv); d == "off" {
		return ""
	} else if d != "" {
		return d
	}
	if c := os.Getenv("TOOLSCORE_CACHE"); c != "" {
		return filepath.Join(c, "cells")
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(c, "toolscore", "cells")
}

// cacheCmd is toolscore cache ls|prune, and the replay a sweep runs where its runs execute.
func cacheCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore cache ls|prune [--cache DIR] [--older-than DURATION]\n\nThe cell cache: the finished cells that later sweeps reuse when the server still answers\nthe same. ls lists its entries; prune removes those stored longer ago than --older-than\n(default: all of them).\n\nflags:")
		fs.PrintDefaults()
	}
	dir := fs.String("cache", "", "the cell cache's `folder` (default $"+cacheDirEnv+", else the user cache folder's toolscore/cells)")
	older := fs.Duration("older-than", 0, "with prune, remove only the entries stored longer ago than this")
	in := fs.String("in", "", "") // replay's: the sessions to play, one JSON a line
	if len(args) == 0 {
		fs.Usage()
		return exitcode.UsageError(errors.New("toolscore cache: ls or prune"))
	}
	sub := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	c := cache.Cache{Dir: *dir}
	if c.Dir == "" {
		c.Dir = defaultCacheDir()
	}
	switch sub {
	case "ls":
		metas, err := c.List()
		if err != nil {
			return fmt.Errorf("toolscore cache ls: %w", err)
		}
		for _, m := range metas {
			fmt.Printf("%s  %s  %d runs  ran %s  %s\n", m.Key[:min(16, len(m.Key))], m.Stored.Local().Format(time.DateTime), m.Runs, m.Sweep.Format(time.RFC3339), m.Cell)
		}
		fmt.Fprintf(os.Stderr, "%d cells in %s\n", len(metas), c.Dir)
		return nil
	case "prune":
		n, err := c.Prune(ctx, time.Now().Add(-*older))
		if err != nil {
			return fmt.Errorf("toolscore cache prune: %w", err)
		}
		fmt.Fprintf(os.Stderr, "removed %d cells from %s\n", n, c.Dir)
		return nil
	case "replay": // hidden: a sweep runs it where its runs execute, to check the server
		return cacheReplay(ctx, *in, fs.Args())
	}
	err := fmt.Errorf("toolscore cache: unknown subcommand %q (ls, prune)", sub)
	fmt.Fprintln(os.Stderr, err)
	return exitcode.UsageError(err)
}

// cacheReplay plays each session of the file in to a fresh server started by argv (toolscore's
// clean proxy around the scenario's server), and prints the live answers, one session a line.
func cacheReplay(ctx context.Context, in string, argv []string) error {
	if in == "" || len(argv) == 0 {
		return exitcode.UsageError(errors.New("toolscore cache replay --in FILE -- SERVER [ARGS]"))
	}
	f, err := os.Open(in)
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
		live := cache.Replay(ctx, s, session, os.Environ(), 10*time.Second)
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
