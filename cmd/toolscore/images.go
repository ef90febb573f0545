package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
)

// imagesCmd lists, builds and prunes the cell images toolscore makes.
func imagesCmd(ctx context.Context, args []string) int {
	sub := "list"
	if len(args) > 0 {
		sub = args[0]
	}
	if len(args) > 1 || (sub != "list" && sub != "build" && sub != "prune") {
		fmt.Fprintln(os.Stderr, "usage: toolscore images [list|build|prune]")
		return 2
	}
	d, err := backend.NewDocker(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore images:", err)
		return 1
	}
	// current lists the image of every client as this binary would build it, by image name.
	current := func() (map[string]backend.ImageSpec, error) {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		bin, err := backend.StaticBinary(self)
		if err != nil {
			return nil, err
		}
		specs := map[string]backend.ImageSpec{"builtin": backend.BuiltinImage(bin, os.Getenv("TOOLSCORE_BASE_IMAGE"))}
		for _, im := range client.Images() {
			if specs[im.Dir], err = backend.ClientImage(im, bin, ""); err != nil {
				return nil, err
			}
		}
		return specs, nil
	}
	switch sub {
	case "list":
		ims, err := d.ListImages(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
		}
		for _, im := range ims {
			fmt.Printf("%-44s %s %6.1f MB  %s\n", im.Tag, im.ID[:min(len(im.ID), 19)], float64(im.Size)/1e6, im.Created.Format("2006-01-02 15:04"))
		}
	case "build":
		specs, err := current()
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
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
			return 1
		}
	case "prune":
		var keep []string
		if specs, err := current(); err == nil {
			for _, spec := range specs {
				if tag, err := spec.Tag(); err == nil {
					keep = append(keep, tag)
				}
			}
		}
		n, err := d.PruneImages(ctx, keep...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
		}
		fmt.Printf("removed %d image(s); kept the %d current ones\n", n, len(keep))
	}
	return 0
}

// cleanCmd removes every container, volume and image with toolscore's labels.
func cleanCmd(ctx context.Context, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "usage: toolscore clean")
		return 2
	}
	d, err := backend.NewDocker(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return 1
	}
	n, err := d.Sweep(ctx, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return 1
	}
	m, err := d.PruneImages(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clean:", err)
		return 1
	}
	fmt.Printf("removed %d container(s) and volume(s), %d image(s)\n", n, m)
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
