package action

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolscore/toolscore/internal/prcomment"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// comment keeps the one comment of this scenario on the pull request up to date. It never
// fails the step: a token that may not write (a pull request from a fork) is a notice.
func (st *step) comment(ctx context.Context, res *tally.Results, cmp *report.Comparison, summary string) {
	gha, ghctx := st.gha, st.ghctx
	number := pullNumber(ghctx.Event)
	if number == 0 {
		return // not a pull request: the job summary is the report
	}
	if st.in.Token == "" {
		gha.Noticef("%s", "toolscore: no github-token, so no pull-request comment; the job summary has the report")
		return
	}
	if ghctx.Repository == "" {
		gha.Noticef("%s", "toolscore: GITHUB_REPOSITORY is not set, so no pull-request comment")
		return
	}
	key := res.Scenario
	if res.Shard != "" {
		key += " shard " + res.Shard
	}
	marker := prcomment.Marker(key)
	// The run's page, where the job summary is; built from the runner's own variables.
	link := ""
	if ghctx.RunID > 0 && (strings.HasPrefix(ghctx.ServerURL, "https://") || strings.HasPrefix(ghctx.ServerURL, "http://")) &&
		!strings.ContainsAny(ghctx.ServerURL+ghctx.Repository, "()<>[] \t\r\n") {
		link = fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimSuffix(ghctx.ServerURL, "/"), ghctx.Repository, ghctx.RunID)
	}
	body := CommentBody(marker, report.Verdict(res, cmp), summary, link)
	c, err := prcomment.New(ghctx.APIURL, ghctx.Repository, st.in.Token, nil)
	if err != nil {
		gha.Warningf("%s", "toolscore: no pull-request comment: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	r, err := c.Upsert(ctx, number, marker, body)
	switch {
	case prcomment.Denied(err):
		gha.Noticef("%s", fmt.Sprintf("toolscore: the token may not comment on #%d (HTTP %d; a pull request from a fork gets a read-only token), so there is no pull-request comment; the job summary has the report",
			number, prcomment.Status(err)))
	case err != nil:
		gha.Warningf("%s", "toolscore: no pull-request comment: "+err.Error())
	case r.Created:
		gha.Infof("%s", "toolscore: commented on #"+strconv.Itoa(number)+": "+r.URL)
	default:
		gha.Infof("%s", "toolscore: updated the comment on #"+strconv.Itoa(number)+": "+r.URL)
	}
}

// pullNumber is the pull request's number in a pull_request or pull_request_target event,
// or 0 for any other event.
func pullNumber(event map[string]any) int {
	pr, ok := event["pull_request"].(map[string]any)
	if !ok {
		return 0
	}
	if n, ok := pr["number"].(float64); ok && n > 0 && n == float64(int(n)) {
		return int(n)
	}
	if n, ok := event["number"].(float64); ok && n > 0 && n == float64(int(n)) {
		return int(n)
	}
	return 0
}

// CommentBody is the sticky pull-request comment: marker (an HTML comment that finds this
// comment again on the next run) on the first line, a one-line verdict, and summary, cut to
// fit GitHub's comment limit; when it is cut, a note points at link, the job summary.
// summary must already be escaped Markdown (what report.Summary writes); link is a URL built from
// the runner's own environment, or "".
func CommentBody(marker, verdict, summary, link string) string {
	head := marker + "\n**toolscore:** " + report.EscapeMarkdown(verdict)
	if link != "" {
		head += " · [job summary](" + link + ")"
	}
	head += "\n\n"
	note := "\n**The report is cut here**: it is longer than a comment can hold."
	if link != "" {
		note += " The whole of it is in the [job summary](" + link + ")."
	}
	note += "\n"
	body, _ := Cut(summary, CommentLimit-len(head)-64, note)
	return head + body
}

// Cut returns md unchanged when it fits in limit bytes. Otherwise it cuts md at the last line
// break that leaves room for note, so no table row or list item is split, and appends note; a
// single line longer than that is cut at a character boundary. cut says whether it cut.
func Cut(md string, limit int, note string) (s string, cut bool) {
	if len(md) <= limit {
		return md, false
	}
	room := max(limit-len(note)-1, 0)
	head := md[:room]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		for len(head) > 0 && !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
		head += "\n"
	}
	return head + note, true
}
