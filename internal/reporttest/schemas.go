package reporttest

import (
	"bytes"
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// junitXSD describes junit.xml: the Jenkins/Ant JUnit format (see its comment).
//
//go:embed junit.xsd
var junitXSD []byte

// CTRFPackage is the npm package whose JSON Schema ctrf.json is validated against.
const CTRFPackage = "ctrf@0.3.0"

// missing says a validation could not run for want of a tool: a log line, so the test's other
// checks still run, or a failure when env is 1 (scripts/test sets it, having installed the tool).
func missing(t *testing.T, env, why string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatalf("%s (%s=1)", why, env)
	}
	t.Logf("not validated: %s; set %s=1 to fail instead", why, env)
}

// ValidJUnit validates page against junit.xsd with xmllint (Debian's libxml2-utils): only
// logged when xmllint is not installed, unless TOOLSCORE_REQUIRE_XMLLINT=1.
func ValidJUnit(t *testing.T, what string, page []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		missing(t, "TOOLSCORE_REQUIRE_XMLLINT", "xmllint is not installed (apt-get install libxml2-utils)")
		return
	}
	dir := t.TempDir()
	xsd, doc := filepath.Join(dir, "junit.xsd"), filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(xsd, junitXSD, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, page, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, doc).CombinedOutput()
	if err != nil {
		t.Errorf("%s does not validate against the JUnit schema: %v\n%.3000s", what, err, out)
	}
}

var ctrf struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    string
}

// ValidCTRF validates doc against the CTRF JSON Schema that the npm package ctrf carries,
// fetched with npm pack into a temporary directory once per test binary: only logged when npm
// cannot fetch it, unless TOOLSCORE_REQUIRE_NPM=1.
func ValidCTRF(t *testing.T, what string, doc []byte) {
	t.Helper()
	ctrf.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctrf-schema-")
		if err != nil {
			ctrf.err = err.Error()
			return
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", "--silent", CTRFPackage)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			ctrf.err = "npm pack " + CTRFPackage + ": " + err.Error() + ": " + strings.TrimSpace(string(out))
			return
		}
		tgz, _ := filepath.Glob(filepath.Join(dir, "ctrf-*.tgz"))
		if len(tgz) != 1 {
			ctrf.err = "npm pack " + CTRFPackage + " left no one tarball"
			return
		}
		if out, err := exec.Command("tar", "-xzf", tgz[0], "-C", dir, "package/dist/ctrf-schema-0.0.json").CombinedOutput(); err != nil {
			ctrf.err = "unpacking the CTRF schema: " + err.Error() + ": " + string(out)
			return
		}
		f, err := os.Open(filepath.Join(dir, "package", "dist", "ctrf-schema-0.0.json"))
		if err != nil {
			ctrf.err = err.Error()
			return
		}
		defer f.Close()
		s, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			ctrf.err = "the CTRF schema: " + err.Error()
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("ctrf.schema.json", s); err != nil {
			ctrf.err = err.Error()
			return
		}
		ctrf.schema, err = c.Compile("ctrf.schema.json")
		if err != nil {
			ctrf.err = "compiling the CTRF schema: " + err.Error()
		}
	})
	if ctrf.schema == nil {
		missing(t, "TOOLSCORE_REQUIRE_NPM", "no CTRF schema: "+ctrf.err)
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", what, err)
	}
	if err := ctrf.schema.Validate(v); err != nil {
		t.Errorf("%s does not validate against the CTRF schema (%s): %v", what, CTRFPackage, err)
	}
}
