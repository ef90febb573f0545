package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/client"
)

// imagesCmd lists, builds and prunes the cell images toolscore makes.
func imagesCmd(ctx context.Context, args []string) error {
	sub := "list"
	if len(args) > 0 {
		sub = args[0]
	}
	if len(args) > 1 || (sub != "list" && sub != "build" && sub != "prune") {
		err := errors.New("usage: toolscore images [list|build|prune]")
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	d, err := docker.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore images:", err)
		return exitcode.Failed(err)
	}
	switch sub {
	case "list":
		ims, err := d.ListImages(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return exitcode.Failed(err)
		}
		for _, im := range ims {
			fmt.Printf("%-44s %s %6.1f MB  %s\n", im.Tag, im.ID[:min(len(im.ID), 19)], float64(im.Size)/1e6, im.Created.Format("2006-01-02 15:04"))
		}
	case "build":
		specs, err := currentImages()
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return exitcode.Failed(err)
		}
		failed := 0
		for _, name := range sortedKeys(specs) {
			start := time.Now()
			tag, built, err := d.EnsureImage(ctx, specs[name], nil)
			if err != nil {
				fmt.Fprintf(os.Stderr, "toolscore images: %v\n", err)
				failed++
				continue
			}
			state := "up to date"
			if built {
				state = "built in " + time.Since(start).Round(100*time.Millisecond).String()
			}
			fmt.Println(tag, state)
		}
		if failed > 0 {
			return exitcode.Failed(fmt.Errorf("%d image(s) did not build", failed))
		}
	case "prune":
		var keep []string
		if specs, err := currentImages(); err == nil {
			for _, spec := range specs {
				if tag, err := spec.Tag(); err == nil {
					keep = append(keep, tag)
				}
			}
		}
		n, err := d.PruneImages(ctx, keep...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return exitcode.Failed(err)
		}
		fmt.Printf("removed %d image(s); kept the %d current ones\n", n, len(keep))
	}
	return nil
}

// cleanCmd removes every container, volume and image with toolscore's labels.
func cleanCmd(ctx context.Context, args []string) error {
	if len(args) > 0 {
		err := errors.New("usage: toolscore clean")
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	d, err := docker.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return exitcode.Failed(err)
	}
	n, err := d.Sweep(ctx, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return exitcode.Failed(err)
	}
	m, err := d.PruneImages(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return exitcode.Failed(err)
	}
	fmt.Printf("removed %d container(s) and volume(s), %d image(s)\n", n, m)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// currentImages are the images of every client as this binary would build them, by image name.
func currentImages() (map[string]cellimage.Spec, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	bin, err := cellimage.StaticBinary(self)
	if err != nil {
		return nil, err
	}
	specs := map[string]cellimage.Spec{"builtin": cellimage.Builtin(bin, os.Getenv("TOOLSCORE_BASE_IMAGE"))}
	for _, im := range client.Images() {
		if specs[im.Dir], err = cellimage.Client(im, bin, ""); err != nil {
			return nil, err
		}
	}
	return specs, nil
}
