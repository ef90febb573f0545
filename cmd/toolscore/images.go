package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/runner/backend"
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
	current := func() (backend.ImageSpec, error) {
		self, err := os.Executable()
		if err != nil {
			return backend.ImageSpec{}, err
		}
		bin, err := backend.StaticBinary(self)
		if err != nil {
			return backend.ImageSpec{}, err
		}
		return backend.BuiltinImage(bin, os.Getenv("TOOLSCORE_BASE_IMAGE")), nil
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
		spec, err := current()
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
		}
		tag, built, err := d.EnsureImage(ctx, spec, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
		}
		state := "up to date"
		if built {
			state = "built"
		}
		fmt.Println(tag, state)
	case "prune":
		var keep []string
		if spec, err := current(); err == nil {
			if tag, err := spec.Tag(); err == nil {
				keep = append(keep, tag)
			}
		}
		n, err := d.PruneImages(ctx, keep...)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore images:", err)
			return 1
		}
		fmt.Printf("removed %d image(s); kept %v\n", n, keep)
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
