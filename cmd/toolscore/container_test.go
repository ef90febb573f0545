package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/tally"
)

// TestRunnerInContainer builds the project's own Dockerfile and runs a small sweep from inside
// that container with only the Docker socket mounted: the GitHub docker-action case. The cells
// are then siblings of the runner, and everything crosses as tar streams.
func TestRunnerInContainer(t *testing.T) {
	api := serialEngine(t)
	ctx := context.Background()
	goImage, err := exec.Command("../../scripts/go-image.sh", "toolscore/go:local").Output()
	if err != nil {
		t.Fatalf("making the Go toolchain image: %v", err)
	}
	proxyURL, _ := exec.Command("go", "env", "GOPROXY").Output()
	tag := "toolscore/runner:test"
	buildImage(t, api, "../..", tag, map[string]string{
		"GO_IMAGE": strings.TrimSpace(string(goImage)),
		"GOPROXY":  strings.TrimSpace(string(proxyURL)),
		"VERSION":  "v9.8.7-container", // the Dockerfile stamps it into the binary
	})

	sock := strings.TrimPrefix(api.DaemonHost(), "unix://")
	created, err := api.ContainerCreate(ctx, &container.Config{
		Image:  tag,
		Cmd:    []string{"run", "--runs", "1", "--clients", "raw,go-sdk/call,mcp-go/call", "--faults", "clean,corrupt,rpc-error,wrong-container", "--protocols", "2026-07-28", "--out", "/out"},
		Labels: map[string]string{docker.LabelMarker: "1"},
	}, &container.HostConfig{NetworkMode: "none", Binds: []string{sock + ":/var/run/docker.sock"}}, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer api.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
	waitCh, errCh := api.ContainerWait(ctx, created.ID, container.WaitConditionNextExit)
	if err := api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-waitCh:
		if w.StatusCode != 0 {
			logs, _ := exec.Command("docker", "logs", created.ID).CombinedOutput()
			t.Fatalf("the sweep in the runner container exited %d:\n%s", w.StatusCode, logs)
		}
	case err := <-errCh:
		t.Fatal(err)
	case <-time.After(5 * time.Minute):
		t.Fatal("the sweep in the runner container did not finish in 5 minutes")
	}
	rc, _, err := api.CopyFromContainer(ctx, created.ID, "/out/results.json")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	var res tally.Results
	if err := json.NewDecoder(tr).Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.Backend != "docker" || len(res.Cells) != 3*4*2 || res.Toolscore != "v9.8.7-container" {
		t.Fatalf("backend %q (%s), %d cells, toolscore %q; want docker, 24 and the version built in", res.Backend, res.BackendWhy, len(res.Cells), res.Toolscore)
	}
	for _, c := range res.Cells {
		want := "passed"
		if c.Fault == "rpc-error" {
			want = "rpc-error"
		}
		if c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1", c.Key(), c.Counts(), want)
		}
	}
	// Only the runner container itself may remain (removed by the deferred call).
	for _, c := range ours(t, api) {
		if c.ID != created.ID {
			t.Errorf("a cell container outlived the sweep: %s %s", c.ID[:12], c.Labels[docker.LabelCell])
		}
	}
}

// buildImage builds the Dockerfile in dir through the Engine API, with build network host so
// the build reaches the module proxy, and fails the test with the build's own error.
func buildImage(t *testing.T, api *client.Client, dir, tag string, args map[string]string) {
	t.Helper()
	buildImageFile(t, api, dir, "Dockerfile", tag, args)
}

// buildImageFile is buildImage with the Dockerfile at dockerfile, relative to dir.
func buildImageFile(t *testing.T, api *client.Client, dir, dockerfile, tag string, args map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	root, _ := filepath.Abs(dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" || rel == "toolscore-out" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".test") {
			return nil
		}
		info, _ := d.Info()
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), Size: int64(len(b)), Typeflag: tar.TypeReg})
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tw.Close()
	bargs := map[string]*string{}
	for k, v := range args {
		bargs[k] = &v
	}
	resp, err := api.ImageBuild(context.Background(), &buf, build.ImageBuildOptions{
		Tags: []string{tag}, Dockerfile: dockerfile, BuildArgs: bargs, NetworkMode: "host", Remove: true, ForceRemove: true,
		Labels: map[string]string{docker.LabelMarker: "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var log strings.Builder
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Stream, Error string
		}
		if err := dec.Decode(&m); err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
		log.WriteString(m.Stream)
		if m.Error != "" {
			t.Fatalf("building %s: %s\n%s", tag, m.Error, log.String())
		}
	}
}
