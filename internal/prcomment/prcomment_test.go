package prcomment_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/prcomment"
	"github.com/toolscore/toolscore/internal/prcomment/fakegithub"
)

const token = "ghs_testtoken"

func newClient(t *testing.T, s *fakegithub.Server) *prcomment.Client {
	t.Helper()
	c, err := prcomment.New(s.URL, "octo-org/octo-repo", token, s.Client())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUpsertCreatesThenEdits(t *testing.T) {
	s := fakegithub.New("octo-org", "octo-repo")
	defer s.Close()
	s.Token = token
	s.Add(7, fakegithub.User{Login: "someone", Type: "User"}, "looks good to me")
	c := newClient(t, s)
	marker := prcomment.Marker("ledger balance")
	ctx := context.Background()

	first, err := c.Upsert(ctx, 7, marker, marker+"\nfirst run")
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created {
		t.Errorf("first run: %+v, want a new comment", first)
	}
	second, err := c.Upsert(ctx, 7, marker, marker+"\nsecond run")
	if err != nil {
		t.Fatal(err)
	}
	if second.Created || second.ID != first.ID {
		t.Errorf("second run: %+v, want comment %d edited", second, first.ID)
	}
	got := s.Comments(7)
	if len(got) != 2 || got[1].Body != marker+"\nsecond run" || got[0].Body != "looks good to me" {
		t.Errorf("comments = %+v, want the other comment untouched and ours edited", got)
	}
	// Another scenario has a comment of its own.
	other := prcomment.Marker("weather")
	if r, err := c.Upsert(ctx, 7, other, other+"\nweather"); err != nil || !r.Created {
		t.Errorf("another scenario: %+v, %v; want a comment of its own", r, err)
	}
	for _, r := range s.Requests() {
		if r.Auth != "Bearer "+token {
			t.Errorf("%s %s carried Authorization %q", r.Method, r.Path, r.Auth)
		}
	}
}

// TestUpsertFindsOnLaterPage spreads the comments over several pages: the marker is on the
// last one, found by following the Link headers.
func TestUpsertFindsOnLaterPage(t *testing.T) {
	s := fakegithub.New("octo-org", "octo-repo")
	defer s.Close()
	s.PerPage = 10
	marker := prcomment.Marker("ledger balance")
	for i := range 34 {
		s.Add(12, fakegithub.User{Login: fmt.Sprint("user", i), Type: "User"}, fmt.Sprintf("comment %d", i))
	}
	// Someone quoting the marker does not make the comment ours.
	s.Add(12, fakegithub.User{Login: "quoter", Type: "User"}, "> "+marker+"\n> old report")
	ours := s.Add(12, fakegithub.Bot, marker+"\nold report")
	for i := range 5 {
		s.Add(12, fakegithub.User{Login: "later", Type: "User"}, fmt.Sprintf("later %d", i))
	}
	c := newClient(t, s)
	r, err := c.Upsert(context.Background(), 12, marker, marker+"\nnew report")
	if err != nil {
		t.Fatal(err)
	}
	if r.Created || r.ID != ours.ID {
		t.Fatalf("%+v, want comment %d (on page 4 of 5) edited", r, ours.ID)
	}
	var pages []string
	for _, q := range s.Requests() {
		if q.Method == http.MethodGet {
			pages = append(pages, q.Query)
		}
	}
	if len(pages) != 4 {
		t.Errorf("listed %d pages (%q), want 4: the bot's comment is on page 4", len(pages), pages)
	}
	if n := len(s.Comments(12)); n != 41 {
		t.Errorf("%d comments, want 41 (none added)", n)
	}

	// Made with a personal token, ours is a person's: every page is read, in case a bot's
	// comes later, and the last page's is found.
	s2 := fakegithub.New("octo-org", "octo-repo")
	defer s2.Close()
	s2.PerPage = 7
	for i := range 30 {
		s2.Add(5, fakegithub.User{Login: "user", Type: "User"}, fmt.Sprintf("comment %d", i))
	}
	mine := s2.Add(5, fakegithub.User{Login: "maintainer", Type: "User"}, marker+"\nold")
	r, err = newClient(t, s2).Upsert(context.Background(), 5, marker, marker+"\nnew")
	if err != nil || r.ID != mine.ID || r.Created {
		t.Errorf("%+v, %v; want comment %d, on the last of 5 pages, edited", r, err, mine.ID)
	}
	if n := len(s2.Requests()); n != 6 {
		t.Errorf("%d requests, want 5 pages listed and 1 edit", n)
	}
}

// TestUpsertPrefersBot: when a person's comment starts with the marker too, the bot's is ours.
func TestUpsertPrefersBot(t *testing.T) {
	s := fakegithub.New("o", "r")
	defer s.Close()
	marker := prcomment.Marker("x")
	s.Add(1, fakegithub.User{Login: "mallory", Type: "User"}, marker+" mine now")
	bot := s.Add(1, fakegithub.Bot, marker+"\nreport")
	c, err := prcomment.New(s.URL, "o/r", "", s.Client())
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Upsert(context.Background(), 1, marker, marker+"\nnew"); err != nil || r.ID != bot.ID {
		t.Errorf("%+v, %v; want the bot's comment %d", r, err, bot.ID)
	}
}

func TestDenied(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnauthorized} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			s := fakegithub.New("o", "r")
			defer s.Close()
			s.Deny = status
			c, err := prcomment.New(s.URL, "o/r", token, s.Client())
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Upsert(context.Background(), 3, prcomment.Marker("x"), "body")
			if err == nil {
				t.Fatal("no error")
			}
			if !prcomment.Denied(err) || prcomment.Status(err) != status {
				t.Errorf("Denied(%v) = false or Status = %d, want a denial with %d", err, prcomment.Status(err), status)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error shows the token: %v", err)
			}
		})
	}
	s := fakegithub.New("o", "r")
	defer s.Close()
	s.DenyAll = http.StatusInternalServerError
	c, _ := prcomment.New(s.URL, "o/r", token, s.Client())
	if _, err := c.Upsert(context.Background(), 3, "m", "body"); err == nil || prcomment.Denied(err) {
		t.Errorf("a 500 is %v, want an error that is not a denial", err)
	}
}

func TestMarker(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ledger balance", "<!-- toolscore:ledger+balance -->"},
		{"evil --> <script>", "<!-- toolscore:evil+--%3E+%3Cscript%3E -->"},
		{"a\nb", "<!-- toolscore:a%0Ab -->"},
	} {
		if got := prcomment.Marker(tc.in); got != tc.want {
			t.Errorf("Marker(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct{ api, repo string }{
		{"https://api.github.com", "noslash"},
		{"https://api.github.com", "a/b/c"},
		{"ftp://x", "a/b"},
		{"::", "a/b"},
	} {
		if _, err := prcomment.New(tc.api, tc.repo, "", nil); err == nil {
			t.Errorf("New(%q, %q): no error", tc.api, tc.repo)
		}
	}
}
