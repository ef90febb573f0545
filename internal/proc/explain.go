package proc

import (
	"regexp"
	"strings"
)

// failing matches a line that reads as the reason a process failed.
var failing = regexp.MustCompile(`(?i)(error|\berr!|\bfatal\b|exception|traceback|\bpanic\b|not found|no such|not set|\bunset\b|undefined|cannot|can't|could ?n[o']t|\bfail|denied|missing|\brequired\b|\bmust\b|\bunable\b|\binvalid\b|refused|\bENOENT\b)`)

// notice matches what is printed around the failure that explains nothing: npm's update nag
// and warnings, its timing and log-file lines, and a stack's frames.
var notice = regexp.MustCompile(`(?i)^(npm (notice|warn|http|timing|verb)\b|npm err! (a complete log|log files? (was|were) written)|at |node:internal|node\.js v|\s*$)`)

// Explaining picks, of what a process wrote on stderr, the line that most likely says why it
// failed, at most max bytes: the last that reads as an error, since the last line is often a
// package manager's notice (npx ends with "npm notice New major version"); else the last line
// that is not such a notice; else the last line.
func Explaining(stderr string, max int) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	pick := ""
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if l := strings.TrimSpace(lines[i]); !notice.MatchString(l) && failing.MatchString(l) {
			pick = l
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if l := strings.TrimSpace(lines[i]); !notice.MatchString(l) {
			pick = l
		}
	}
	if pick == "" {
		pick = strings.TrimSpace(lines[len(lines)-1])
	}
	if max > 0 && len(pick) > max {
		pick = pick[:max] + "…"
	}
	return pick
}
