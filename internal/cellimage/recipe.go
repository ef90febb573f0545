package cellimage

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/toolscore/toolscore/internal/install"
)

// RecipeDir is where a defined client's files are installed in its cell image.
const RecipeDir = "/opt/client"

// The base images of a defined client's runtime, when its variable is not set.
const (
	DefaultNodeImage   = "node:20-bookworm-slim"
	DefaultPythonImage = "python:3.12-slim-bookworm"
)

// RecipeBase is the base image of a runtime's defined clients: TOOLSCORE_NODE_IMAGE or
// TOOLSCORE_PYTHON_IMAGE when set, else the public image; a binary runs on the built-in
// clients' base (TOOLSCORE_BASE_IMAGE, else scratch: no shell, so no install steps).
func RecipeBase(runtime string) string {
	env, def := "TOOLSCORE_BASE_IMAGE", "scratch"
	switch runtime {
	case install.Node:
		env, def = "TOOLSCORE_NODE_IMAGE", DefaultNodeImage
	case install.Python:
		env, def = "TOOLSCORE_PYTHON_IMAGE", DefaultPythonImage
	}
	if b := os.Getenv(env); b != "" {
		return b
	}
	return def
}

// stepsLine is where Recipe writes a recipe's steps into the Dockerfile.
const stepsLine = "# STEPS\n"

// Recipe is the cell image of a client a manifest defines: on base ("": RecipeBase of its
// runtime), the recipe's files at /opt/client, for Python a virtual environment at
// /opt/client/venv with its bin first on PATH, each step RUN there as root with the build's
// network, and the static toolscore binary. Its tag hashes every file, step and the base, so
// the image is rebuilt exactly when one changes, as the local install is.
func Recipe(r install.Recipe, base string, binary []byte) (Spec, error) {
	if base == "" {
		base = RecipeBase(r.Runtime)
	}
	s := Spec{Name: "defined", Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{"BASE_IMAGE": base},
		Exec: map[string]bool{}, Network: true}
	files, err := install.Files(r)
	if err != nil {
		return s, fmt.Errorf("reading the client's files: %w", err)
	}
	for rel, f := range files {
		s.Extra["client/"+rel] = f.Data
		if f.Exec {
			s.Exec["client/"+rel] = true
		}
	}
	dockerfile, err := imageFiles.ReadFile("images/defined/Dockerfile")
	if err != nil {
		return s, err
	}
	var run strings.Builder
	if r.Runtime == install.Python {
		fmt.Fprintf(&run, "RUN [\"python3\", \"-m\", \"venv\", %q]\nENV PATH=%s/%s/bin:$PATH\n", RecipeDir+"/"+install.VenvDir, RecipeDir, install.VenvDir)
	}
	if r.Runtime == install.Node { // npm's bins first, as on the local backend (install.BinDirs)
		fmt.Fprintf(&run, "ENV PATH=%s/node_modules/.bin:$PATH\n", RecipeDir)
	}
	for _, step := range r.Steps {
		fmt.Fprintf(&run, "RUN %s\n", runJSON(step))
	}
	s.Extra["Dockerfile"] = []byte(strings.Replace(string(dockerfile), stepsLine, run.String(), 1))
	return s, nil
}

// ansi matches a terminal colour sequence.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// runJSON is a step as a RUN instruction's exec form, so a Dockerfile reads no part of it.
func runJSON(step string) string {
	b, _ := json.Marshal([]string{"/bin/sh", "-c", step})
	return string(b)
}

// RecipeStepError is a failed build of a Recipe image as the install step that failed and its
// last lines of output, read from the build's log (the classic builder names each instruction
// on a "Step N/M : " line before its output); err as it is when no step is found.
func RecipeStepError(r install.Recipe, buildLog string, err error) error {
	// The builder colours a step's stderr; the message is plain text.
	lines := strings.Split(strings.TrimRight(ansi.ReplaceAllString(buildLog, ""), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		_, instr, ok := strings.Cut(lines[i], " : RUN ")
		if !ok || !strings.HasPrefix(lines[i], "Step ") {
			continue
		}
		for _, step := range r.Steps {
			if instr == runJSON(step) || strings.Contains(instr, step) {
				out := lines[i+1:]
				var kept []string
				for _, l := range out {
					if !strings.HasPrefix(l, " ---> ") && !strings.HasPrefix(l, "Removing intermediate container") {
						kept = append(kept, l)
					}
				}
				if len(kept) > 15 {
					kept = kept[len(kept)-15:]
				}
				return &install.StepError{Step: step, Output: strings.Join(kept, "\n"), Err: err}
			}
		}
		break
	}
	return err
}
