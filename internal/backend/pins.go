package backend

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Pin is the version of a library or CLI that a cell image installs when the manifest names
// none.
type Pin struct {
	Image    string // the directory under images/
	Registry string // "npm" or "PyPI"
	Package  string
	Version  string
}

// versionArg is the build argument that installs another version, with its default.
var versionArg = regexp.MustCompile(`(?m)^ARG ([A-Z_]+_VERSION)=(\S*)`)

// ImagePin reads the default version of what the cell image installs from where the image
// pins it: the Dockerfile's version argument names the package (as "pkg@$ARG" for npm or
// "pkg==$ARG" for PyPI) and holds the version, or, left empty, the package-lock.json or
// requirements.txt beside it does.
func ImagePin(image string) (Pin, error) {
	p := Pin{Image: image}
	dockerfile, err := imageFiles.ReadFile("images/" + image + "/Dockerfile")
	if err != nil {
		return p, fmt.Errorf("no embedded image %q: %w", image, err)
	}
	arg := versionArg.FindSubmatch(dockerfile)
	if arg == nil {
		return p, fmt.Errorf("images/%s/Dockerfile has no ARG ..._VERSION", image)
	}
	spec := regexp.MustCompile(`"([^"\s$]+?)(@|==)\$\{?` + string(arg[1]) + `\}?"`).FindSubmatch(dockerfile)
	if spec == nil {
		return p, fmt.Errorf("images/%s/Dockerfile installs no package at $%s", image, arg[1])
	}
	p.Package, p.Version, p.Registry = string(spec[1]), string(arg[2]), "npm"
	if string(spec[2]) == "==" {
		p.Registry = "PyPI"
	}
	if p.Version != "" {
		return p, nil
	}
	if p.Registry == "npm" {
		lock, err := imageFiles.ReadFile("images/" + image + "/package-lock.json")
		if err != nil {
			return p, fmt.Errorf("images/%s pins %s nowhere: %w", image, p.Package, err)
		}
		var l struct {
			Packages map[string]struct{ Version string } `json:"packages"`
		}
		if err := json.Unmarshal(lock, &l); err != nil {
			return p, fmt.Errorf("images/%s/package-lock.json: %w", image, err)
		}
		p.Version = l.Packages["node_modules/"+p.Package].Version
	} else {
		reqs, err := imageFiles.ReadFile("images/" + image + "/requirements.txt")
		if err != nil {
			return p, fmt.Errorf("images/%s pins %s nowhere: %w", image, p.Package, err)
		}
		for sc := bufio.NewScanner(bytes.NewReader(reqs)); sc.Scan(); {
			if name, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=="); ok && strings.EqualFold(name, p.Package) {
				p.Version = v
			}
		}
	}
	if p.Version == "" {
		return p, fmt.Errorf("images/%s pins no version of %s", image, p.Package)
	}
	return p, nil
}
