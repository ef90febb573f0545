package scenario

import (
	"errors"
	"reflect"
	"testing"
)

// TestServerEnv: server.env takes plain values (numbers and booleans as written) and from_env
// ones, read from the environment given; those are the secrets. A from_env variable that is not
// set is an *Error on the line of its from_env.
func TestServerEnv(t *testing.T) {
	data := []byte(`name: t
server:
  command: [./server]
  env:
    PORT: 8080
    DEBUG: true
    LEVEL: info
    API_KEY: {from_env: MY_API_KEY}
    EMPTY:
      from_env: MY_EMPTY
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`)
	s, err := Load("m.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	runner := map[string]string{"MY_API_KEY": "k-123", "MY_EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := runner[k]; return v, ok }
	env, secrets, err := s.ServerEnv(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"API_KEY=k-123", "DEBUG=true", "EMPTY=", "LEVEL=info", "PORT=8080"}; !reflect.DeepEqual(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}
	if want := []string{"k-123"}; !reflect.DeepEqual(secrets, want) {
		t.Errorf("secrets %q, want %q (an empty value masks nothing)", secrets, want)
	}

	delete(runner, "MY_API_KEY")
	delete(runner, "MY_EMPTY")
	_, _, err = s.ServerEnv(lookup)
	want := "m.yaml:8:25: server.env.API_KEY.from_env: MY_API_KEY is not set in toolscore's environment, where from_env reads it\n" +
		"m.yaml:10:17: server.env.EMPTY.from_env: MY_EMPTY is not set in toolscore's environment, where from_env reads it"
	var e *Error
	if err == nil || err.Error() != want || !errors.As(err, &e) || len(Errors(err)) != 2 {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
