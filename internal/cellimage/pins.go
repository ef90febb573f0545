package cellimage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
)

// Pin is the version of a library or CLI that a cell image installs when the manifest names
// none.
type Pin struct {
	Image    string // the directory under images/
	Registry string // "npm", "PyPI", "Maven" or "crates.io"
	Package  string
	Version  string
}

// versionArg is the build argument that installs another version, with its default.
var versionArg = regexp.MustCompile(`(?m)^ARG ([A-Z_]+_VERSION)=(\S*)`)

// PinOf reads the default version of what the cell image installs from where the image
// pins it. A client folder names its package in client.yaml and pins it by the lockfile of its
// runtime, or, an agent's, by the default of its version_arg in its Dockerfile. An image directory of this package pins it in its Dockerfile: the version argument names the package (as "pkg@$ARG" for npm,
// "pkg==$ARG" for PyPI, "group:artifact:$ARG" for Maven, cargo update -p NAME --precise "$ARG"
// for a crate) and holds the version, or, left empty, the package-lock.json, requirements.txt,
// pom.xml or Cargo.lock beside it does.
func PinOf(im client.Image) (Pin, error) {
	image := im.Dir
	p := Pin{Image: image}
	if f := im.Folder; f != nil {
		p.Package, p.Registry = f.Package, f.Registry()
		if p.Version = DefaultVersion(im); p.Version != "" { // an agent's Dockerfile pins its CLI
			return p, nil
		}
		return lockfilePin(p, f.Files, "internal/client/clients/"+image)
	}
	dockerfile, err := imageFiles.ReadFile("images/" + image + "/Dockerfile")
	if err != nil {
		return p, fmt.Errorf("no embedded image %q: %w", image, err)
	}
	arg := versionArg.FindSubmatch(dockerfile)
	if arg == nil {
		return p, fmt.Errorf("images/%s/Dockerfile has no ARG ..._VERSION", image)
	}
	spec := regexp.MustCompile(`"([^"\s$]+?)(@|==|:)\$\{?` + string(arg[1]) + `\}?"`).FindSubmatch(dockerfile)
	if spec == nil {
		// A crate: cargo update -p NAME --precise "$ARG" rewrites the Cargo.lock beside it.
		spec = regexp.MustCompile(`cargo update (?:-q )?-p (\S+) --precise "\$\{?` + string(arg[1]) + `\}?"`).FindSubmatch(dockerfile)
		if spec != nil {
			spec = append(spec, []byte("cargo"))
		}
	}
	if spec == nil {
		return p, fmt.Errorf("images/%s/Dockerfile installs no package at $%s", image, arg[1])
	}
	p.Package, p.Version, p.Registry = string(spec[1]), string(arg[2]), "npm"
	switch string(spec[2]) {
	case "==":
		p.Registry = "PyPI"
	case ":":
		p.Registry = "Maven"
	case "cargo":
		p.Registry = "crates.io"
	}
	if p.Version != "" {
		return p, nil
	}
	dir, _ := fs.Sub(imageFiles, "images/"+image)
	return lockfilePin(p, dir, "images/"+image)
}

// lockfilePin reads the version of p.Package that the lockfile of its registry in dir pins
// (package-lock.json, requirements.txt, pom.xml or Cargo.lock); where names dir in errors.
func lockfilePin(p Pin, dir fs.FS, where string) (Pin, error) {
	lockfile := map[string]string{"Maven": "pom.xml", "crates.io": "Cargo.lock", "npm": "package-lock.json", "PyPI": "requirements.txt"}[p.Registry]
	lock, err := fs.ReadFile(dir, lockfile)
	if err != nil {
		return p, fmt.Errorf("%s pins %s nowhere: %w", where, p.Package, err)
	}
	switch p.Registry {
	case "Maven":
		if p.Version, err = pomVersion(lock, p.Package); err != nil {
			return p, fmt.Errorf("%s/pom.xml: %w", where, err)
		}
	case "crates.io":
		p.Version = cargoLockVersion(lock, p.Package)
	case "npm":
		var l struct {
			Packages map[string]struct{ Version string } `json:"packages"`
		}
		if err := json.Unmarshal(lock, &l); err != nil {
			return p, fmt.Errorf("%s/package-lock.json: %w", where, err)
		}
		p.Version = l.Packages["node_modules/"+p.Package].Version
	default:
		for sc := bufio.NewScanner(bytes.NewReader(lock)); sc.Scan(); {
			if name, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=="); ok && strings.EqualFold(name, p.Package) {
				p.Version = v
			}
		}
	}
	if p.Version == "" {
		return p, fmt.Errorf("%s pins no version of %s", where, p.Package)
	}
	return p, nil
}

// cargoLockVersion is the version Cargo.lock resolves the crate named to ("" when none).
func cargoLockVersion(lock []byte, name string) string {
	var in bool
	for sc := bufio.NewScanner(bytes.NewReader(lock)); sc.Scan(); {
		switch line := strings.TrimSpace(sc.Text()); {
		case line == "[[package]]":
			in = false
		case line == `name = "`+name+`"`:
			in = true
		case in && strings.HasPrefix(line, `version = "`):
			return strings.Trim(strings.TrimPrefix(line, "version = "), `"`)
		}
	}
	return ""
}

// pomVersion is the version pom.xml gives the dependency named group:artifact, a ${property}
// resolved from the pom's properties.
func pomVersion(pom []byte, pkg string) (string, error) {
	var m struct {
		Properties struct {
			Any []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		} `xml:"properties"`
		Dependencies []struct {
			GroupID    string `xml:"groupId"`
			ArtifactID string `xml:"artifactId"`
			Version    string `xml:"version"`
		} `xml:"dependencies>dependency"`
	}
	if err := xml.Unmarshal(pom, &m); err != nil {
		return "", err
	}
	for _, d := range m.Dependencies {
		if d.GroupID+":"+d.ArtifactID != pkg {
			continue
		}
		v := strings.TrimSpace(d.Version)
		if name, ok := strings.CutPrefix(v, "${"); ok {
			name = strings.TrimSuffix(name, "}")
			v = ""
			for _, p := range m.Properties.Any {
				if p.XMLName.Local == name {
					v = strings.TrimSpace(p.Value)
				}
			}
		}
		return v, nil
	}
	return "", fmt.Errorf("no dependency %s", pkg)
}
