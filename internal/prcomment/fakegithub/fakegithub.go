package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Comment is a stored comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	User    User   `json:"user"`
	HTMLURL string `json:"html_url"`
	Issue   int    `json:"-"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"` // "User" or "Bot"
}

// Request is one request the server answered, for tests to check.
type Request struct {
	Method, Path, Query string
	Auth                string
}

// Server is the fake API. Set its fields before the first request.
type Server struct {
	*httptest.Server
	// Token is the bearer token every request must carry; "" accepts any.
	Token string
	// Deny, when not 0, answers every write (POST, PATCH) with this status, the way GitHub
	// answers a read-only token (403) on a pull request from a fork.
	Deny int
	// DenyAll, when not 0, answers every request with this status.
	DenyAll int
	// PerPage caps the page size, whatever the client asks, to make listings span pages.
	PerPage int

	mu       sync.Mutex
	owner    string
	repo     string
	comments []*Comment
	nextID   int64
	requests []Request
}

// Bot is the author of comments made through the server, the way the Actions token's
// comments are github-actions[bot]'s.
var Bot = User{Login: "github-actions[bot]", Type: "Bot"}

// New starts a fake API for the repository owner/repo on loopback; Close it when done.
func New(owner, repo string) *Server {
	s := &Server{owner: owner, repo: repo, nextID: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Add stores a comment as if someone had written it, and returns it.
func (s *Server) Add(issue int, user User, body string) *Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(issue, user, body)
}

func (s *Server) add(issue int, user User, body string) *Comment {
	s.nextID++
	c := &Comment{ID: s.nextID, Body: body, User: user, Issue: issue,
		HTMLURL: fmt.Sprintf("https://github.example/%s/%s/pull/%d#issuecomment-%d", s.owner, s.repo, issue, s.nextID)}
	s.comments = append(s.comments, c)
	return c
}

// Comments returns a copy of the comments of an issue, oldest first.
func (s *Server) Comments(issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.Issue == issue {
			out = append(out, *c)
		}
	}
	return out
}

// Requests returns the requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

var (
	listPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/([0-9]+)/comments$`)
	editPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/([0-9]+)$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization")})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	fail := func(status int, msg string) {
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"message": msg, "documentation_url": "https://docs.github.com/rest"})
	}
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		fail(http.StatusUnauthorized, "Bad credentials")
		return
	}
	if s.DenyAll != 0 {
		fail(s.DenyAll, "Resource not accessible by integration")
		return
	}
	if s.Deny != 0 && (r.Method == http.MethodPost || r.Method == http.MethodPatch) {
		fail(s.Deny, "Resource not accessible by integration")
		return
	}
	if m := listPath.FindStringSubmatch(r.URL.Path); m != nil {
		if m[1] != s.owner || m[2] != s.repo {
			fail(http.StatusNotFound, "Not Found")
			return
		}
		issue, _ := strconv.Atoi(m[3])
		switch r.Method {
		case http.MethodGet:
			s.list(w, r, issue)
		case http.MethodPost:
			var in struct {
				Body *string `json:"body"`
			}
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
				fail(http.StatusUnprocessableEntity, "Invalid request: body is required")
				return
			}
			if n := len([]rune(*in.Body)); n > 65536 {
				fail(http.StatusUnprocessableEntity, fmt.Sprintf("Validation Failed: body is too long (maximum is 65536 characters), got %d", n))
				return
			}
			c := s.add(issue, Bot, *in.Body)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(c)
		default:
			fail(http.StatusMethodNotAllowed, "method not allowed")
		}
		return
	}
	if m := editPath.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodPatch {
		id, _ := strconv.ParseInt(m[3], 10, 64)
		var in struct {
			Body *string `json:"body"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == nil {
			fail(http.StatusUnprocessableEntity, "Invalid request: body is required")
			return
		}
		if n := len([]rune(*in.Body)); n > 65536 {
			fail(http.StatusUnprocessableEntity, "Validation Failed: body is too long (maximum is 65536 characters)")
			return
		}
		for _, c := range s.comments {
			if c.ID == id && m[1] == s.owner && m[2] == s.repo {
				c.Body = *in.Body
				json.NewEncoder(w).Encode(c)
				return
			}
		}
		fail(http.StatusNotFound, "Not Found")
		return
	}
	fail(http.StatusNotFound, "Not Found")
}

// list answers one page of an issue's comments with GitHub's Link header.
func (s *Server) list(w http.ResponseWriter, r *http.Request, issue int) {
	var all []*Comment
	for _, c := range s.comments {
		if c.Issue == issue {
			all = append(all, c)
		}
	}
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 || per > 100 {
		per = 30
	}
	if s.PerPage > 0 {
		per = min(per, s.PerPage)
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	last := max((len(all)+per-1)/per, 1)
	from, to := min((page-1)*per, len(all)), min(page*per, len(all))
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s%s?page=%d&per_page=%d>; rel="%s"`, s.URL, r.URL.Path, p, per, rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
	page0 := all[from:to]
	if page0 == nil {
		page0 = []*Comment{}
	}
	json.NewEncoder(w).Encode(page0)
}
