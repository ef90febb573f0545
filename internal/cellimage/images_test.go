package cellimage

import (
	"bytes"
	"path"
	"regexp"
	"testing"

	// The agents register themselves as clients, with their images.
	_ "github.com/toolscore/toolscore/internal/agent"
	"github.com/toolscore/toolscore/internal/client"
)

// TestClientImage: every registered client image builds from its own directory on the base
// its variable names, installs another version through an argument its Dockerfile declares,
// and carries the files it borrows, so a descriptor cannot name what its image does not take.
func TestClientImage(t *testing.T) {
	if len(client.Images()) == 0 {
		t.Fatal("no client images registered")
	}
	for _, im := range client.Images() {
		t.Run(im.Dir, func(t *testing.T) {
			if im.BaseEnv == "" || im.VersionArg == "" {
				t.Fatalf("image %s names no base variable or version argument: %+v", im.Dir, im)
			}
			t.Setenv(im.BaseEnv, "example.invalid/base:1")
			s, err := Client(im, []byte("binary"), "9.9.9")
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != im.Dir || s.Args["BASE_IMAGE"] != "example.invalid/base:1" || s.Args[im.VersionArg] != "9.9.9" || !s.Network {
				t.Errorf("spec %+v: want name %s, BASE_IMAGE from %s, %s=9.9.9, network", s, im.Dir, im.BaseEnv, im.VersionArg)
			}
			// The Dockerfile the image builds from: a client folder's rendered template or its
			// own, else its directory's here.
			built, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			dockerfile := built["Dockerfile"]
			for _, arg := range []string{"BASE_IMAGE", im.VersionArg} {
				if !regexp.MustCompile(`(?m)^ARG ` + arg + `=`).Match(dockerfile) {
					t.Errorf("images/%s/Dockerfile declares no ARG %s", im.Dir, arg)
				}
			}
			files, err := s.Context()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range im.Borrow {
				want, _ := imageFiles.ReadFile("images/" + f)
				if got, ok := files[path.Base(f)]; !ok || !bytes.Equal(got, want) {
					t.Errorf("the context of %s lacks %s", im.Dir, f)
				}
				if !regexp.MustCompile(`(?m)^COPY .*\b` + regexp.QuoteMeta(path.Base(f)) + `\b`).Match(dockerfile) {
					t.Errorf("images/%s/Dockerfile borrows %s but copies no %s", im.Dir, f, path.Base(f))
				}
			}
			if !bytes.Equal(files["toolscore"], []byte("binary")) {
				t.Errorf("the context of %s lacks the toolscore binary", im.Dir)
			}
			for arg, env := range im.ArgEnv {
				if !regexp.MustCompile(`(?m)^ARG ` + arg + `=`).Match(dockerfile) {
					t.Errorf("images/%s/Dockerfile declares no ARG %s (set by %s)", im.Dir, arg, env)
				}
				t.Setenv(env, "example.invalid/toolchain:1")
				if s, _ := Client(im, nil, ""); s.Args[arg] != "example.invalid/toolchain:1" {
					t.Errorf("with %s set, the build arguments are %v, want %s from it", env, s.Args, arg)
				}
				t.Setenv(env, "")
			}
			t.Setenv(im.BaseEnv, "")
			if s, _ := Client(im, nil, ""); s.Args["BASE_IMAGE"] != "" || len(s.Args) != 0 {
				t.Errorf("without %s or a version, the build arguments are %v, want none", im.BaseEnv, s.Args)
			}
		})
	}
	if _, err := Client(client.Image{Dir: "no-such-image"}, nil, ""); err == nil {
		t.Error("ClientImage of an image with no directory succeeded")
	}
}
