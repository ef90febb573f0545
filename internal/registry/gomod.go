package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// goReleases asks the go command for a module's versions, then for all their times in one more
// call, so the module proxy is the one GOPROXY names.
func goReleases(ctx context.Context, mod string) ([]Release, error) {
	out, err := goList(ctx, "-versions", mod)
	if err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", mod, err)
	}
	var m struct{ Versions []string }
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", mod, err)
	}
	if len(m.Versions) == 0 {
		return nil, nil
	}
	args := []string{"-e"}
	for _, v := range m.Versions {
		args = append(args, mod+"@"+v)
	}
	out, err = goList(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("go list -m %s@...: %w", mod, err)
	}
	times := map[string]*time.Time{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var info struct {
			Version string
			Time    *time.Time
		}
		if err := dec.Decode(&info); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -m %s@...: %w", mod, err)
		}
		times[info.Version] = info.Time
	}
	rs := make([]Release, 0, len(m.Versions))
	for _, v := range m.Versions {
		rs = append(rs, Release{Version: v, Published: times[v], Pre: semverPre(v)})
	}
	return rs, nil
}

// goList runs go list -m -json outside any module, so what it lists is the module proxy's, as go
// get would see it.
func goList(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-m", "-json"}, args...)...)
	cmd.Dir, cmd.Env = os.TempDir(), append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return nil, commandErr(err)
	}
	return out, nil
}
