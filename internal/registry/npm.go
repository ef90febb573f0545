package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
)

// npmReleases asks npm for the versions, in the registry's order, and their publish times, in one
// call, so it reaches whichever registry npm is configured with.
func npmReleases(ctx context.Context, pkg string) ([]Release, error) {
	out, err := exec.CommandContext(ctx, "npm", "view", pkg, "versions", "time", "--json").Output()
	if err != nil {
		return nil, fmt.Errorf("npm view %s versions time: %w", pkg, commandErr(err))
	}
	var v struct {
		Versions json.RawMessage   `json:"versions"`
		Time     map[string]string `json:"time"` // also "created" and "modified", no versions
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("npm view %s versions time: not the JSON object npm prints: %w", pkg, err)
	}
	// npm prints a list of one version as the bare string.
	var versions []string
	if err := json.Unmarshal(v.Versions, &versions); err != nil {
		var one string
		if err := json.Unmarshal(v.Versions, &one); err != nil {
			return nil, fmt.Errorf("npm view %s versions: neither a list nor a version: %s", pkg, v.Versions)
		}
		versions = []string{one}
	}
	rs := make([]Release, 0, len(versions))
	for _, ver := range versions {
		rs = append(rs, Release{Version: ver, Published: parseTime(v.Time[ver]), Pre: semverPre(ver)})
	}
	return rs, nil
}
