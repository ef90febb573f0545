package runner

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	_ "github.com/toolscore/toolscore/internal/agent" // the agents, linked as in the toolscore binary
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/scenario"
)

// TestChooseBackend: with no Docker backend (no engine, and a test binary that is not static),
// local is where runs go when asked for or when nothing is named, and nothing when docker or
// auto is asked for; on local, the clients whose runtime is not on PATH cannot run, and say
// why; an unknown name is a usage error.
func TestChooseBackend(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-docker.sock"))
	// No node here: the TypeScript client and the agents cannot be installed.
	t.Setenv("PATH", t.TempDir())
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("TOOLSCORE_TEST_KEY", "set")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario.Scenario{Clients: []scenario.Client{
		{Name: "raw"},
		{Name: "ts-sdk/call"},
		{Name: "claude-code", Model: &scenario.Model{Name: "m", URL: "http://127.0.0.1:9"}},
		{Name: "codex", Model: &scenario.Model{Name: "m", URL: "http://127.0.0.1:9", KeyEnv: "TOOLSCORE_TEST_KEY"}},
	}}
	// The agents need node too, whatever their key.
	localOnly := map[string]string{
		"ts-sdk/call":   "node not found on PATH",
		"claude-code:m": "node not found on PATH",
		"codex:m":       "node not found on PATH",
	}
	for _, tc := range []struct {
		name, why string // why "" wants an error
	}{
		{"local", "asked for with --backend local"},
		{"", "no Docker backend: "},
		{"docker", ""},
		{"auto", ""},
	} {
		t.Run(cmp.Or(tc.name, "default"), func(t *testing.T) {
			var log bytes.Buffer
			c, err := ChooseBackend(context.Background(), tc.name, self, sc, &log)
			if tc.why == "" {
				if err == nil || errors.Is(err, ErrUnknownBackend) {
					t.Errorf("backend %q with no Docker engine: %+v, %v; want the engine's error", tc.name, c, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Done()
			if c.Backend.Name() != "local" || c.Backend.Self() != self || !strings.HasPrefix(c.Why, tc.why) || !reflect.DeepEqual(c.Unavailable, localOnly) {
				t.Errorf("backend %q: %s (%s), unavailable %v; want local (%s…), %v", tc.name, c.Backend.Name(), c.Why, c.Unavailable, tc.why, localOnly)
			}
		})
	}
	_, err = ChooseBackend(context.Background(), "k8s", self, sc, &bytes.Buffer{})
	if !errors.Is(err, ErrUnknownBackend) || err.Error() != `unknown backend "k8s" (known: docker, local)` {
		t.Errorf("an unknown backend: %v", err)
	}
}

// TestMissingKeys: a client with a real model whose key variable is empty cannot run, and
// names the variable: the manifest's key_env, else the vendor's usual one.
func TestMissingKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "set")
	t.Setenv("TOOLSCORE_TEST_KEY", "")
	sc := &scenario.Scenario{Clients: []scenario.Client{
		{Name: "raw"},
		{Name: "claude-code"}, // the scripted model needs no key
		{Name: "claude-code", Model: &scenario.Model{Name: "m", URL: "http://127.0.0.1:9"}},
		{Name: "codex", Model: &scenario.Model{Name: "m", URL: "http://127.0.0.1:9"}},
		{Name: "gemini-cli", Model: &scenario.Model{Name: "m", URL: "http://127.0.0.1:9", KeyEnv: "TOOLSCORE_TEST_KEY"}},
	}}
	want := map[string]string{
		"claude-code:m": "its model needs an API key in ANTHROPIC_API_KEY, which is not set",
		"gemini-cli:m":  "its model needs an API key in TOOLSCORE_TEST_KEY, which is not set",
	}
	if got := MissingKeys(sc); !reflect.DeepEqual(got, want) {
		t.Errorf("MissingKeys = %v, want %v", got, want)
	}
}

// TestFingerprintBeforeInstall (issue 55): a client's fingerprint, and so its cells' keys and
// a resume's check, is the same before its install is made as after. A sweep makes the keys
// before installing anything (it installs only the clients with a cell to run): a python3 the
// venv holds once installed must not take the place of PATH's in the fingerprint then.
func TestFingerprintBeforeInstall(t *testing.T) {
	bin := t.TempDir()
	writeExec := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeExec(filepath.Join(bin, "python3"), "#!/bin/sh\necho one\n")
	t.Setenv("PATH", bin)
	c := Client{Client: scenario.Client{Name: "mine"}}
	c.Descriptor.Name, c.Descriptor.Manifest = "mine", true
	c.Descriptor.Local = &client.Local{Recipe: install.Recipe{Runtime: install.Python}, Command: []string{"python3", "./client.py"}}
	dir := filepath.Join(t.TempDir(), "0123456789abcdef")
	print := func() string {
		return fingerprints([]Client{c}, nil, nil, map[string]string{c.ID(): dir}, nil)[c.ID()]
	}
	before := print()
	writeExec(filepath.Join(dir, install.VenvDir, "bin", "python3"), "#!/bin/sh\necho venv\n")
	writeExec(filepath.Join(dir, "client.py"), "print('hello')\n")
	if after := print(); after != before || !strings.Contains(before, filepath.Join(bin, "python3")+" sha256:") {
		t.Errorf("fingerprint before the install %q, after %q; want the same, naming PATH's python3", before, after)
	}
	// PATH's python3 is still part of it: an edit to it is seen.
	writeExec(filepath.Join(bin, "python3"), "#!/bin/sh\necho two\n")
	if edited := print(); edited == before {
		t.Errorf("PATH's python3 edited, the fingerprint is still %q", edited)
	}
}
