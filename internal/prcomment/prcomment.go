package prcomment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v76/github"
)

// perPage is how many comments one page of the listing asks for, GitHub's maximum.
const perPage = 100

// Marker is the hidden line that identifies the comment of one scenario:
// <!-- toolscore:NAME -->, with the name query-escaped so that no scenario name can end the
// HTML comment early or tell two scenarios apart only by spaces.
func Marker(scenario string) string {
	return "<!-- toolscore:" + url.QueryEscape(scenario) + " -->"
}

// Client edits comments of one repository.
type Client struct {
	gh          *github.Client
	owner, repo string
}

// New returns a client of the REST API at apiURL (GITHUB_API_URL: https://api.github.com,
// or https://HOST/api/v3 on GitHub Enterprise Server) for the repository "owner/name",
// authenticated with token. httpClient may be nil.
func New(apiURL, repository, token string, httpClient *http.Client) (*Client, error) {
	owner, repo, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return nil, fmt.Errorf("repository %q: want owner/name", repository)
	}
	if apiURL == "" {
		apiURL = "https://api.github.com"
	}
	base, err := url.Parse(apiURL)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("API URL %q: want an http(s) URL", apiURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	gh := github.NewClient(httpClient)
	if token != "" {
		gh = gh.WithAuthToken(token)
	}
	// BaseURL is set as it is: WithEnterpriseURLs would add /api/v3/ to a host not named api.*.
	gh.BaseURL = base
	return &Client{gh: gh, owner: owner, repo: repo}, nil
}

// Result says what Upsert did.
type Result struct {
	ID      int64
	URL     string
	Created bool // a new comment; false: an existing one was edited
}

// Upsert makes body the comment of marker on pull request (or issue) number: it edits the
// comment whose body starts with marker, looking through every page of the comments, or
// creates one. body should start with marker, so the next run finds it. When several
// comments start with the marker, one written by a bot (the Actions token's user) is
// preferred, then the oldest.
func (c *Client) Upsert(ctx context.Context, number int, marker, body string) (Result, error) {
	existing, err := c.find(ctx, number, marker)
	if err != nil {
		return Result{}, err
	}
	comment := &github.IssueComment{Body: github.Ptr(body)}
	if existing != nil {
		got, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, existing.GetID(), comment)
		if err != nil {
			return Result{}, fmt.Errorf("editing comment %d: %w", existing.GetID(), err)
		}
		return Result{ID: got.GetID(), URL: got.GetHTMLURL()}, nil
	}
	got, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, comment)
	if err != nil {
		return Result{}, fmt.Errorf("creating a comment on #%d: %w", number, err)
	}
	return Result{ID: got.GetID(), URL: got.GetHTMLURL(), Created: true}, nil
}

// find returns the comment that starts with marker, or nil.
func (c *Client) find(ctx context.Context, number int, marker string) (*github.IssueComment, error) {
	var first *github.IssueComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage}}
	for page := 1; ; page++ {
		comments, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the comments of #%d (page %d): %w", number, page, err)
		}
		for _, cm := range comments {
			if !strings.HasPrefix(cm.GetBody(), marker) {
				continue
			}
			if cm.GetUser().GetType() == "Bot" {
				return cm, nil
			}
			if first == nil {
				first = cm
			}
		}
		if resp.NextPage == 0 || resp.NextPage == opts.Page || page >= 1000 {
			return first, nil
		}
		opts.Page = resp.NextPage
	}
}

// Denied says whether err means the token may not read or write the comments: 401, 403 (a
// pull request from a fork gets a read-only token) or 404 (GitHub answers 404 for what a
// token may not see). A rate limit is not a denial.
func Denied(err error) bool {
	var rate *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rate) || errors.As(err, &abuse) {
		return false
	}
	var resp *github.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil {
		switch resp.Response.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return true
		}
	}
	return false
}

// Status is the HTTP status of err, or 0 when it carries none.
func Status(err error) int {
	var resp *github.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil {
		return resp.Response.StatusCode
	}
	var rate *github.RateLimitError
	if errors.As(err, &rate) && rate.Response != nil {
		return rate.Response.StatusCode
	}
	return 0
}
