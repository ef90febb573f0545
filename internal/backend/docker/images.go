package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"

	"github.com/toolscore/toolscore/internal/cellimage"
)

// EnsureImage returns the image's tag, building it through the API unless an image with that
// tag (that is, those inputs) already exists. Build output goes to log.
func (d *Backend) EnsureImage(ctx context.Context, s cellimage.Spec, log io.Writer) (string, bool, error) {
	tag, err := s.Tag()
	if err != nil {
		return "", false, err
	}
	have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", tag))})
	if err != nil {
		return "", false, fmt.Errorf("listing images: %w", err)
	}
	if len(have) > 0 {
		d.noteWorkdir(tag, have[0].Labels)
		return tag, false, nil
	}
	files, _ := s.Context()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o644)
		if name == "toolscore" || name == "goadapter" || s.Exec[name] {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			return "", false, err
		}
		tw.Write(files[name])
	}
	if err := tw.Close(); err != nil {
		return "", false, err
	}
	args := map[string]*string{}
	for k, v := range s.Args {
		args[k] = &v
	}
	opts := build.ImageBuildOptions{
		Tags: []string{tag}, BuildArgs: args, Remove: true, ForceRemove: true,
		Labels: map[string]string{LabelMarker: "1", LabelInputs: tag},
	}
	if s.Network {
		opts.NetworkMode = "host"
	}
	resp, err := d.api.ImageBuild(ctx, &buf, opts)
	if err != nil {
		return "", false, fmt.Errorf("building %s: %w", tag, err)
	}
	defer resp.Body.Close()
	// The build reports progress and failure as a stream of JSON messages.
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return "", false, fmt.Errorf("reading the build of %s: %w", tag, err)
		}
		if m.Error != "" {
			return "", false, fmt.Errorf("building %s: %s", tag, strings.TrimSpace(m.Error))
		}
		if log != nil && m.Stream != "" {
			io.WriteString(log, m.Stream)
		}
	}
	if have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", tag))}); err == nil && len(have) > 0 {
		d.noteWorkdir(tag, have[0].Labels)
	}
	return tag, true, nil
}

// LabelWorkdir marks an image whose run work directory already belongs to the cell user.
const LabelWorkdir = "io.toolscore.workdir"

// noteWorkdir remembers whether the image tag has the run's work directory made for the cell
// user, so its runs without input files skip the copy-in.
func (d *Backend) noteWorkdir(tag string, labels map[string]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.workdir == nil {
		d.workdir = map[string]string{}
	}
	d.workdir[tag] = labels[LabelWorkdir]
}

// ImageID is the id of the image ref names on this engine, or "" when it is not here (a build
// from it pulls it).
func (d *Backend) ImageID(ctx context.Context, ref string) (string, error) {
	have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", ref))})
	if err != nil {
		return "", fmt.Errorf("looking for image %s: %w", ref, err)
	}
	if len(have) == 0 {
		return "", nil
	}
	return have[0].ID, nil
}

// ImageInfo is one of our images.
type ImageInfo struct {
	Tag     string
	ID      string
	Size    int64
	Created time.Time
}

// ListImages lists the images toolscore built.
func (d *Backend) ListImages(ctx context.Context) ([]ImageInfo, error) {
	ims, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return nil, fmt.Errorf("listing images: %w", err)
	}
	var out []ImageInfo
	for _, im := range ims {
		tag := "<none>"
		if len(im.RepoTags) > 0 {
			tag = im.RepoTags[0]
		}
		out = append(out, ImageInfo{Tag: tag, ID: im.ID, Size: im.Size, Created: time.Unix(im.Created, 0)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out, nil
}

// PruneImages removes our images except those tagged keep.
func (d *Backend) PruneImages(ctx context.Context, keep ...string) (int, error) {
	ims, err := d.ListImages(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, im := range ims {
		if contains(keep, im.Tag) {
			continue
		}
		if _, err := d.api.ImageRemove(ctx, im.ID, image.RemoveOptions{Force: true, PruneChildren: true}); err == nil {
			n++
		}
	}
	return n, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
