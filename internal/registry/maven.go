package registry

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// mavenReleases reads the artifact's maven-metadata.xml from the repository Maven would fetch
// central's artifacts from (a mirror of central in settings.xml, else the super POM's central),
// in the metadata's order (the order deployed, which for a release line is its version order;
// Maven's own ComparableVersion is not reimplemented here). Each version is dated by the
// Last-Modified header of its .pom, where the repository sends one; else Published is nil.
func mavenReleases(ctx context.Context, pkg string) ([]Release, error) {
	group, artifact, ok := strings.Cut(pkg, ":")
	if !ok || group == "" || artifact == "" {
		return nil, fmt.Errorf("Maven package %q: want group:artifact", pkg)
	}
	repo, err := mavenCentral(ctx)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(repo, "/") + "/" + strings.ReplaceAll(group, ".", "/") + "/" + artifact + "/"
	body, err := getBody(ctx, base+"maven-metadata.xml", "")
	if err != nil {
		return nil, fmt.Errorf("Maven %s: %w", pkg, err)
	}
	var meta struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.Unmarshal(body, &meta); err != nil {
		return nil, fmt.Errorf("Maven %s: its maven-metadata.xml: %w", pkg, err)
	}
	rs := make([]Release, len(meta.Versions))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // a few HEAD requests at once, not one per version
	for i, v := range meta.Versions {
		rs[i] = Release{Version: v, Pre: mavenPre(v)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rs[i].Published = lastModified(ctx, base+v+"/"+artifact+"-"+v+".pom")
		}()
	}
	wg.Wait()
	return rs, ctx.Err()
}

// lastModified is a HEAD request's Last-Modified date, nil where there is none.
func lastModified(ctx context.Context, u string) *time.Time {
	resp, err := get(ctx, http.MethodHead, u, "")
	if err != nil {
		return nil
	}
	resp.Body.Close()
	t, err := http.ParseTime(resp.Header.Get("Last-Modified"))
	if err != nil {
		return nil
	}
	return &t
}

// mavenQualifier is a qualifier that makes a Maven version a pre-release (2.0.0-M2, 1.0-RC1,
// 3.0-beta-1, 1.0-SNAPSHOT), after the version's leading numbers.
var (
	mavenNumbers   = regexp.MustCompile(`^[0-9]+(\.[0-9]+)*`)
	mavenQualifier = regexp.MustCompile(`(?i)(alpha|beta|milestone|preview|snapshot|\brc|\bcr|\b[abm][0-9]|\b[abm]$)`)
)

func mavenPre(v string) bool {
	return mavenQualifier.MatchString(v[len(mavenNumbers.FindString(v)):])
}

// mavenCentral is the repository Maven fetches central's artifacts from: the first mirror of
// central in the user's then the installation's settings.xml, else central's URL in the super
// POM of the Maven that `mvn --version` reports.
func mavenCentral(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "mvn", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("mvn --version: %w", commandErr(err))
	}
	var home string
	for _, line := range strings.Split(string(out), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "Maven home:"); ok {
			home = strings.TrimSpace(h)
		}
	}
	if home == "" {
		return "", fmt.Errorf("mvn --version printed no \"Maven home:\": %s", out)
	}
	var settings []string
	if dir, err := os.UserHomeDir(); err == nil {
		settings = append(settings, filepath.Join(dir, ".m2", "settings.xml"))
	}
	settings = append(settings, filepath.Join(home, "conf", "settings.xml"))
	for _, path := range settings {
		m, err := centralMirror(path)
		if err != nil {
			return "", err
		}
		if m != "" {
			return m, nil
		}
	}
	return superPOMCentral(home)
}

// centralMirror is the URL of the first mirror in a settings.xml whose mirrorOf takes in
// central, "" for none (or no file).
func centralMirror(path string) (string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("Maven settings: %w", err)
	}
	var s struct {
		Mirrors []struct {
			MirrorOf string `xml:"mirrorOf"`
			URL      string `xml:"url"`
			Blocked  bool   `xml:"blocked"`
		} `xml:"mirrors>mirror"`
	}
	if err := xml.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("Maven settings %s: %w", path, err)
	}
	for _, m := range s.Mirrors {
		if mirrorsCentral(m.MirrorOf) {
			if m.Blocked {
				return "", fmt.Errorf("Maven settings %s: the mirror of central at %s is blocked", path, m.URL)
			}
			return m.URL, nil
		}
	}
	return "", nil
}

// mirrorsCentral reads a mirrorOf as Maven does for the repository "central" (an external
// https repository): "*", "central" and "external:*" take it in, "!central" leaves it out,
// "external:http:*" does not take in an https one.
func mirrorsCentral(of string) bool {
	in := false
	for _, p := range strings.Split(of, ",") {
		switch strings.TrimSpace(p) {
		case "!central":
			return false
		case "*", "central", "external:*":
			in = true
		}
	}
	return in
}

// superPOMCentral is central's URL in the super POM inside the Maven installation's
// maven-model-builder jar, the default every Maven build starts from.
func superPOMCentral(home string) (string, error) {
	jars, _ := filepath.Glob(filepath.Join(home, "lib", "maven-model-builder-*.jar"))
	if len(jars) == 0 {
		return "", fmt.Errorf("no maven-model-builder jar in %s/lib to read central's URL from", home)
	}
	z, err := zip.OpenReader(jars[0])
	if err != nil {
		return "", fmt.Errorf("Maven's super POM: %w", err)
	}
	defer z.Close()
	f, err := z.Open("org/apache/maven/model/pom-4.0.0.xml")
	if err != nil {
		return "", fmt.Errorf("Maven's super POM in %s: %w", jars[0], err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("Maven's super POM: %w", err)
	}
	var pom struct {
		Repositories []struct {
			ID  string `xml:"id"`
			URL string `xml:"url"`
		} `xml:"repositories>repository"`
	}
	if err := xml.Unmarshal(b, &pom); err != nil {
		return "", fmt.Errorf("Maven's super POM: %w", err)
	}
	for _, r := range pom.Repositories {
		if _, err := url.Parse(r.URL); r.ID == "central" && err == nil {
			return r.URL, nil
		}
	}
	return "", fmt.Errorf("Maven's super POM in %s names no central repository", jars[0])
}
