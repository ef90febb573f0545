package cellimage

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/toolscore/toolscore/internal/install"
)

// TestRecipeImage: a defined client's image holds its folder under client/ (less what an install
// never copies), its executables as such, a Python venv first on PATH and one RUN per step in
// the Dockerfile, on its runtime's base; its tag moves with every input.
func TestRecipeImage(t *testing.T) {
	files := fstest.MapFS{
		"harness/acme.py":       {Data: []byte("print()\n")},
		"run":                   {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		"node_modules/x/i.js":   {Data: []byte("skipped")},
		".git/HEAD":             {Data: []byte("skipped")},
		"requirements.txt":      {Data: []byte("mcp==2.3.0\n")},
		"harness/nested/a.json": {Data: []byte("{}")},
	}
	r := install.Recipe{Runtime: install.Python, Files: files, Steps: []string{"pip install -r requirements.txt", `echo "a b" > x`}}
	t.Setenv("TOOLSCORE_PYTHON_IMAGE", "example.invalid/python:1")
	s, err := Recipe(r, "", []byte("binary"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := s.Context()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"client/harness/acme.py", "client/run", "client/requirements.txt", "client/harness/nested/a.json", "toolscore", "workdir/.cell"} {
		if _, ok := ctx[want]; !ok {
			t.Errorf("the context lacks %s", want)
		}
	}
	for name := range ctx {
		if strings.Contains(name, "node_modules") || strings.Contains(name, ".git") {
			t.Errorf("the context holds %s", name)
		}
	}
	if !s.Exec["client/run"] || s.Exec["client/harness/acme.py"] || !s.Network || s.Args["BASE_IMAGE"] != "example.invalid/python:1" {
		t.Errorf("spec exec %v, network %v, args %v", s.Exec, s.Network, s.Args)
	}
	dockerfile := string(ctx["Dockerfile"])
	for _, want := range []string{
		"USER 0\nCOPY client/ /opt/client/\nWORKDIR /opt/client\n" +
			`RUN ["python3", "-m", "venv", "/opt/client/venv"]` + "\nENV PATH=/opt/client/venv/bin:$PATH\n" +
			`RUN ["/bin/sh","-c","pip install -r requirements.txt"]` + "\n" +
			`RUN ["/bin/sh","-c","echo \"a b\" \u003e x"]` + "\nCOPY toolscore /opt/toolscore/toolscore\n",
		"COPY --chown=1000:1000 workdir/ /run/toolscore/\nLABEL io.toolscore.workdir=1000:1000\n",
	} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile lacks\n%s\nit is:\n%s", want, dockerfile)
		}
	}
	tag, _ := s.Tag()
	for name, change := range map[string]func(r install.Recipe) (install.Recipe, string){
		"a file": func(r install.Recipe) (install.Recipe, string) {
			f := fstest.MapFS{}
			for k, v := range files {
				f[k] = v
			}
			f["harness/acme.py"] = &fstest.MapFile{Data: []byte("print(1)\n")}
			r.Files = f
			return r, ""
		},
		"a step": func(r install.Recipe) (install.Recipe, string) { r.Steps = r.Steps[:1]; return r, "" },
		"a base": func(r install.Recipe) (install.Recipe, string) { return r, "example.invalid/python:2" },
		"runtime": func(r install.Recipe) (install.Recipe, string) {
			r.Runtime = install.Node
			return r, "example.invalid/python:1"
		},
	} {
		r2, base := change(r)
		s2, err := Recipe(r2, base, []byte("binary"))
		if err != nil {
			t.Fatal(err)
		}
		if tag2, _ := s2.Tag(); tag2 == tag {
			t.Errorf("changing %s leaves the tag %s", name, tag)
		}
	}
	t.Setenv("TOOLSCORE_NODE_IMAGE", "")
	if s, _ := Recipe(install.Recipe{Runtime: install.Node}, "", nil); s.Args["BASE_IMAGE"] != DefaultNodeImage || strings.Contains(string(s.Extra["Dockerfile"]), "venv") {
		t.Errorf("a node recipe's spec %v", s.Args)
	}
}

// TestRecipeStepError reads the failed step and its output from a classic build's log.
func TestRecipeStepError(t *testing.T) {
	r := install.Recipe{Runtime: install.Node, Steps: []string{"echo ok > installed.txt", "npm install nothing-here"}}
	log := "Step 1/9 : ARG BASE_IMAGE\n ---> Running in 1\nStep 6/9 : RUN " + runJSON(r.Steps[0]) + "\n ---> Running in 2\nRemoving intermediate container 2\n ---> 3\n" +
		"Step 7/9 : RUN " + runJSON(r.Steps[1]) + "\n ---> Running in 4\n\x1b[91mnpm error 404 Not Found\n\x1b[0mnpm error nothing-here is not in this registry\n"
	build := errors.New("The command '/bin/sh -c npm install nothing-here' returned a non-zero code: 1")
	var se *install.StepError
	if err := RecipeStepError(r, log, build); !errors.As(err, &se) || se.Step != r.Steps[1] || se.Output != "npm error 404 Not Found\nnpm error nothing-here is not in this registry" || !errors.Is(err, build) {
		t.Errorf("RecipeStepError = %v (%+v)", err, se)
	}
	if err := RecipeStepError(r, "Step 2/9 : FROM x\n", build); err != build {
		t.Errorf("a build that failed before any step: %v", err)
	}
}
