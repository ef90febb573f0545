package cellimage

import (
	"context"
	"errors"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
)

// TestImageFor: each kind of client gets the image a sweep builds for it, the same spec as the
// constructor of that kind gives, and a ready image's ID comes from the engine (here the lookup
// given), whose error is the client's.
func TestImageFor(t *testing.T) {
	bin := []byte("binary")
	t.Setenv("TOOLSCORE_BASE_IMAGE", "example.invalid/base:1")
	ctx := context.Background()
	d, _, ok := client.Lookup("go-sdk/call")
	if !ok {
		t.Fatal("go-sdk/call is not registered")
	}
	noEngine := func(context.Context, string) (string, error) { return "", errors.New("no engine") }
	tagOf := func(s Spec) string {
		tag, err := s.Tag()
		if err != nil {
			t.Fatal(err)
		}
		return tag
	}

	s, recipe, err := ImageFor(ctx, d, "", "", bin, noEngine)
	if err != nil || recipe || tagOf(s) != tagOf(Builtin(bin, "example.invalid/base:1")) {
		t.Errorf("built-in client: %s, recipe %v, %v; want the built-in image", tagOf(s), recipe, err)
	}

	if _, _, err := ImageFor(ctx, d, "example.invalid/ready:1", "", bin, noEngine); err == nil || err.Error() != "no engine" {
		t.Errorf("a ready image the engine cannot read: %v, want the engine's error", err)
	}
	s, _, err = ImageFor(ctx, d, "example.invalid/ready:1", "", bin, func(context.Context, string) (string, error) { return "sha256:abc", nil })
	if err != nil || tagOf(s) != tagOf(Ready("example.invalid/ready:1", "sha256:abc", bin)) {
		t.Errorf("a ready image: %v, want toolscore layered on it", err)
	}
}
