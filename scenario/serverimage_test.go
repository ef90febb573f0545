package scenario

import (
	"reflect"
	"testing"
)

// TestLoadImageServer: an image server is its image and the command run in it, with its env.
func TestLoadImageServer(t *testing.T) {
	text := `name: t
server:
  image: registry.example/team/time-server:1.2
  command: [mcp-server-time, --local-timezone, UTC]
  env: {LOG_LEVEL: debug}
tool: get_current_time
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`
	s, err := Load("image.yaml", []byte(text), known)
	if err != nil {
		t.Fatal(err)
	}
	want := Server{Image: "registry.example/team/time-server:1.2", Command: []string{"mcp-server-time", "--local-timezone", "UTC"},
		Env: map[string]EnvValue{"LOG_LEVEL": {Value: "debug"}}}
	if !reflect.DeepEqual(s.Server, want) {
		t.Errorf("Server = %+v, want %+v", s.Server, want)
	}
}
