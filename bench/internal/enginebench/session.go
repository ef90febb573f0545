// Package enginebench is what the benchmarks do alike: build or copy the static toolscore
// binary, name their command line and temporary directory, sum up the times; and for those that
// time container runs on a shared Docker engine (bench/dockerbench, bench/imagebench,
// bench/agentbench), connect to the engine, create, label and remove their own containers,
// count the containers of others running meanwhile and run a bare container to its exit. It is
// one copy so that their rule for the engine they share with sweeps and test suites stays one
// rule: a benchmark removes the containers it created, by id and by its own session's label,
// and nothing else; it never prunes.
package enginebench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/internal/backend/docker"
)

// Label is the label every container a benchmark creates carries, with its session's ID as
// the value. It is not io.toolscore, so that no sweep and no `toolscore clean` takes such a
// container for its own, and a benchmark finds its leftovers by it without touching anybody
// else's.
const Label = "io.toolscore.bench"

// Session is one benchmark invocation on the engine: the containers it created and has not
// removed yet, so that it can remove exactly those.
type Session struct {
	API *client.Client
	// ID is this invocation's value of Label, unique per process and start.
	ID string

	mu      sync.Mutex
	created map[string]bool // container ids created and not removed yet
}

// NewSession starts a session on api with a fresh ID.
func NewSession(api *client.Client) *Session {
	return &Session{API: api, created: map[string]bool{},
		ID: strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())}
}

// Create creates a container with cfg and host, adding this session's Label to its labels,
// and tracks it: every container a benchmark creates goes through here, so that RemoveLeft can
// find each, by id or, when the create's answer was lost, by the label.
func (s *Session) Create(ctx context.Context, cfg *container.Config, host *container.HostConfig) (string, error) {
	if cfg.Labels == nil {
		cfg.Labels = map[string]string{}
	}
	cfg.Labels[Label] = s.ID
	created, err := s.API.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return "", fmt.Errorf("create: %w", err)
	}
	s.mu.Lock()
	s.created[created.ID] = true
	s.mu.Unlock()
	return created.ID, nil
}

// StartToExit runs a created container to its exit as `docker run` does: wait (next-exit),
// start, the exit, giving up after 60 s. It calls lap (when not nil) after each of the steps
// "wait", "start" and "exit", so that a caller can time them, and returns the exit code; the
// container stays, for the caller to read and remove.
func (s *Session) StartToExit(ctx context.Context, id string, lap func(step string)) (int64, error) {
	if lap == nil {
		lap = func(string) {}
	}
	waitCh, waitErr := s.API.ContainerWait(ctx, id, container.WaitConditionNextExit)
	lap("wait")
	if err := s.API.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return 0, fmt.Errorf("start: %w", err)
	}
	lap("start")
	select {
	case w := <-waitCh:
		lap("exit")
		return w.StatusCode, nil
	case err := <-waitErr:
		return 0, fmt.Errorf("wait: %w", err)
	case <-time.After(60 * time.Second):
		return 0, errors.New("the container did not exit within 60s")
	}
}

// Remove removes one container this session created, by its id, with its anonymous volumes
// (as docker.Backend.Run removes a cell), and forgets it once it is gone. It goes on for up to
// 30 s after ctx is done, so that a benchmark that gave up still cleans up.
func (s *Session) Remove(ctx context.Context, id string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.API.ContainerRemove(rctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true}); err == nil || client.IsErrNotFound(err) {
		s.mu.Lock()
		delete(s.created, id)
		s.mu.Unlock()
	}
}

// RemoveLeft removes what this session created and did not remove yet: by id, and (for a
// create whose answer was lost) by this session's label, which only this session sets. It
// says how many it removed, if any.
func (s *Session) RemoveLeft() {
	ctx := context.Background()
	s.mu.Lock()
	ids := make([]string, 0, len(s.created))
	for id := range s.created {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	cs, _ := s.API.ContainerList(lctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", Label+"="+s.ID))})
	cancel()
	for _, c := range cs {
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
	}
	for _, id := range ids {
		s.Remove(ctx, id)
	}
	if len(ids) > 0 {
		fmt.Printf("removed %d container(s) of this benchmark left over\n", len(ids))
	}
}

// SampleForeign counts, once a second until stopped, the running containers that are neither
// this session's nor (per mine, when not nil) the runs it started, and keeps the largest count
// in *most: a test suite or another sweep sharing the engine, which slows what is timed, shows
// up here. *most is only to be read after stop returns.
func (s *Session) SampleForeign(ctx context.Context, most *int, mine func(labels map[string]string) bool) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			cs, err := s.API.ContainerList(lctx, container.ListOptions{})
			cancel()
			if err != nil {
				continue
			}
			n := 0
			for _, c := range cs {
				if c.Labels[Label] == s.ID || (mine != nil && mine(c.Labels)) {
					continue
				}
				n++
			}
			*most = max(*most, n)
		}
	}()
	return func() { close(done); wg.Wait() }
}

// OwnedByChild says whether a container's owner label (docker.LabelOwner, host:pid) names a
// process this one started on this host: a sweep the benchmark runs, whose cells are not
// foreign. It is a mine for SampleForeign.
func OwnedByChild(labels map[string]string) bool {
	host, pidText, ok := strings.Cut(labels[docker.LabelOwner], ":")
	me, _ := os.Hostname()
	if !ok || host != me {
		return false
	}
	st, err := os.ReadFile("/proc/" + pidText + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ppid ...
	s := string(st)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		return len(f) > 1 && f[1] == strconv.Itoa(os.Getpid())
	}
	return false
}
