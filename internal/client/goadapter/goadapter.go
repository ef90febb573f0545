package goadapter

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"runtime/debug"
)

// The modules of the libraries.
const (
	GoSDKModule = "github.com/modelcontextprotocol/go-sdk"
	MCPGoModule = "github.com/mark3labs/mcp-go"
)

// Result is what the library gave back to its caller for the tools/call: the result,
// re-encoded as JSON, or the error it raised.
type Result struct {
	Returned json.RawMessage
	Raised   *Raised
}

// Raised is an error a library raised, verbatim, as the adapter contract reports it.
type Raised struct {
	Class   string `json:"class"`
	Code    *int64 `json:"code,omitempty"`
	Message string `json:"message"`
}

func raisedFrom(err error) *Raised {
	return &Raised{Class: fmt.Sprintf("%T", err), Message: err.Error()}
}

func returned(res any) (Result, error) {
	b, err := json.Marshal(res)
	return Result{Returned: b}, err
}

// ModuleVersion is the version of a module linked into this binary.
func ModuleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "unknown"
}

//go:embed *.go
var source embed.FS

// Source is this package's own Go source (tests left out), for a build against another
// version of a library.
func Source() fs.FS { return sourceOnly{source} }

type sourceOnly struct{ embed.FS }

func (s sourceOnly) ReadDir(name string) ([]fs.DirEntry, error) {
	all, err := s.FS.ReadDir(name)
	var out []fs.DirEntry
	for _, e := range all {
		if n := e.Name(); len(n) < 8 || n[len(n)-8:] != "_test.go" {
			out = append(out, e)
		}
	}
	return out, err
}
