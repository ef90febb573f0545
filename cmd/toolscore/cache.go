package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cache"
	"github.com/toolscore/toolscore/report"
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

// cacheCmd is toolscore cache ls|prune.
func cacheCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore cache ls|prune [--cache DIR] [--older-than DURATION]\n\nThe cell cache: the finished cells that later sweeps reuse when the server still answers\nthe same. ls lists its entries; prune removes those stored longer ago than --older-than\n(default: all of them).\n\nflags:")
		fs.PrintDefaults()
	}
	dir := fs.String("cache", "", "the cell cache's `folder` (default $"+cacheDirEnv+", else the user cache folder's toolscore/cells)")
	older := fs.Duration("older-than", 0, "with prune, remove only the entries stored longer ago than this")
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
			fmt.Printf("%s  %s  %d runs  ran %s  %s\n", m.Key[:min(16, len(m.Key))], m.Stored.Local().Format(time.DateTime), m.Runs, m.Sweep.Format(time.RFC3339), report.Plain(m.Cell))
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
	}
	err := fmt.Errorf("toolscore cache: unknown subcommand %q (ls, prune)", sub)
	fmt.Fprintln(os.Stderr, err)
	return exitcode.UsageError(err)
}
