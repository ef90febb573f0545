package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

// annotateUsage turns why a sweep could not start into error annotations: each manifest error
// on its line (at most one fewer than GitHub's 10), or one error saying why.
func (st *step) annotateUsage(err error) {
	n := 0
	for _, e := range scenario.Errors(err) {
		if n == DefaultBudget.Errors-1 {
			break
		}
		fields := map[string]string{"title": "toolscore: manifest error", "line": strconv.Itoa(e.Line), "col": strconv.Itoa(e.Col)}
		if f := manifestFile(e.File, st.workspace); f != "" {
			fields["file"] = f
		}
		st.gha.WithFieldsMap(fields).Errorf("%s", e.Message())
		n++
	}
	if n == 0 {
		msg := "toolscore: nothing ran: a usage or manifest error, printed in the group above"
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n")
			msg += ": " + first
		}
		st.gha.Errorf("%s", msg)
	}
}

// manifestFile is the manifest's path relative to the workspace, as annotations name files,
// or "" when it is not a file there: the embedded ledger counts as scenarios/ledger.yaml only
// where that file is the same (in toolscore's own repository).
func manifestFile(path, workspace string) string {
	if path == "" {
		data, err := os.ReadFile(filepath.Join(workspace, scenarios.LedgerPath))
		if err != nil || !bytes.Equal(data, scenarios.Ledger) {
			return ""
		}
		return scenarios.LedgerPath
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}
