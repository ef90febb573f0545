package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/toolscore/toolscore/scenario"
)

// ServerCache is the folder that the package managers of a command server share across its
// runs and sweeps on this machine: npx and uvx fetch the server into it once, not into every
// run's fresh HOME (4.5 s and 54 MB a run for an npm server). It is the server's own: keyed by
// its command and install, so a server under test never reads or fills another's. "" when the
// scenario's server is not a command, or there is no user cache directory.
func ServerCache(sc *scenario.Scenario) string {
	fp := sources[Source(sc.Server.Kind())].fingerprint(sc.Server)
	if fp == nil {
		return ""
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	b, _ := json.Marshal(fp)
	sum := sha256.Sum256(b)
	return filepath.Join(base, "toolscore", "server", hex.EncodeToString(sum[:8]))
}

// ServerCacheEnv points npm (and npx), uv (and uvx) and pip at dir, and keeps npm from asking
// the registry for its own new version at every start.
func ServerCacheEnv(dir string) []string {
	return []string{
		"npm_config_cache=" + filepath.Join(dir, "npm"),
		"npm_config_update_notifier=false",
		"UV_CACHE_DIR=" + filepath.Join(dir, "uv"),
		"PIP_CACHE_DIR=" + filepath.Join(dir, "pip"),
	}
}
