package install

import (
	"os"
	"testing"
)

// TestMain keeps the install key these tests make (installKey) in a folder of their own, not in
// the user's configuration folder.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolscore-install-key-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
