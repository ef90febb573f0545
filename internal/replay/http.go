package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// HTTPPath is the path of the MCP endpoint the replayer serves over streamable HTTP.
const HTTPPath = "/mcp"

// Listen plays the script over streamable HTTP at http://addr/mcp until ctx ends or the point
// where the recorded server exited by itself; it writes the endpoint's URL on stdout, and
// nothing else, once it listens. Messages are matched and answered as Play does them; each
// answer goes out as the recording says the server sent it, a JSON body or an event of the
// POST's SSE stream, and a message the server sent first goes out on the stream of the newest
// POST still open when it was recorded on a POST, else on the client's GET stream.
func (s *Script) Listen(ctx context.Context, addr string, stdout, stderr io.Writer) (int, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return 1, fmt.Errorf("--listen %s: %w", addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &httpPlay{ctx: ctx, in: make(chan input), getStatus: s.getRefused, session: s.session, resumes: s.resumed, log: stderr}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	// Open streams end with the replay: Close, not Shutdown, which would wait on a GET stream.
	defer srv.Close()
	if _, err := fmt.Fprintf(stdout, "http://%s%s\n", l.Addr(), HTTPPath); err != nil {
		return 1, err
	}
	readErr := make(chan error, 1)
	go func() {
		if err := <-served; err != http.ErrServerClosed {
			readErr <- err
			cancel()
		}
	}()
	code, err := s.run(ctx, h.in, readErr, stderr, h.send)
	select {
	case err := <-readErr:
		return 1, fmt.Errorf("serving HTTP: %w", err)
	default:
	}
	return code, err
}

// httpPlay is one replay served over streamable HTTP.
type httpPlay struct {
	ctx       context.Context
	in        chan input
	getStatus int
	session   string
	log       io.Writer // stderr, where a divergence is said

	// resumes is how many more streams the client may resume: as many as the recorded one did.
	resumes int

	mu   sync.Mutex
	open []*exchange // the POSTs waiting on their answer, oldest first
	gets []*exchange // the client's GET streams, oldest first
	held []outgoing  // what the server sent first, for a GET stream not open yet
}

// exchange is one HTTP request waiting on what the replay sends it.
type exchange struct {
	out  chan outgoing
	done chan struct{}
	// resumes says a GET stream resumes another from an event id.
	resumes bool
}

func newExchange() *exchange {
	return &exchange{out: make(chan outgoing, 16), done: make(chan struct{})}
}

// send hands one outgoing message to the request it belongs to; called by the player alone.
func (h *httpPlay) send(o outgoing) error {
	ex, _ := o.to.(*exchange)
	if ex == nil {
		h.mu.Lock()
		if o.st != nil && o.st.http != nil && o.st.http.Method == http.MethodPost && len(h.open) > 0 {
			ex = h.open[len(h.open)-1]
		} else if len(h.gets) > 0 {
			ex = h.newestGet()
		} else {
			h.held = append(h.held, o)
		}
		h.mu.Unlock()
		if ex == nil {
			return nil
		}
	}
	select {
	case ex.out <- o:
	case <-ex.done: // the client left: what it would have got is dropped, as a server drops it
	case <-h.ctx.Done():
	}
	return nil
}

func (h *httpPlay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != HTTPPath {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.stream(w, r)
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// post hands the message a POST carries to the player: a request waits on its answer, anything
// else is accepted at once.
func (h *httpPlay) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	m, ok := jsonrpc.ParseMessage(body)
	if !ok || m.Method == "" || jsonrpc.IDKey(m.ID) == "" {
		select {
		case h.in <- input{line: body}:
			h.setSession(w)
			w.WriteHeader(http.StatusAccepted)
		case <-h.ctx.Done():
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-r.Context().Done():
		}
		return
	}
	ex := newExchange()
	h.mu.Lock()
	h.open = append(h.open, ex)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.open = remove(h.open, ex)
		h.mu.Unlock()
		close(ex.done)
	}()
	select {
	case h.in <- input{line: body, from: ex}:
	case <-h.ctx.Done():
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case <-r.Context().Done():
		return
	}
	streaming := false
	for {
		select {
		case o := <-ex.out:
			final := o.to == ex
			switch {
			case final && o.st != nil && o.st.kind == httpStatus:
				if !streaming {
					h.writeStatus(w, o.st.http)
				}
				return
			case final && !streaming && !recordedAsEvent(o.st):
				h.setSession(w)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(o.frame)
				return
			}
			if !streaming {
				streaming = true
				h.setSession(w)
				startStream(w)
			}
			if o.st != nil && o.st.kind == streamCut {
				return
			}
			writeEvent(w, o)
			if final {
				return
			}
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}

// stream is the client's GET stream, which carries what the server sent outside any POST.
func (h *httpPlay) stream(w http.ResponseWriter, r *http.Request) {
	if h.getStatus != 0 {
		w.WriteHeader(h.getStatus)
		return
	}
	ex := newExchange()
	ex.resumes = r.Header.Get("Last-Event-ID") != ""
	if ex.resumes && !h.resume() {
		// The recorded client never resumed, so the recording holds nothing for this stream:
		// said as a divergence, and refused rather than left open with nothing to come.
		got := "a GET resuming a stream from event id " + strconv.Quote(oneLine(r.Header.Get("Last-Event-ID")))
		fmt.Fprintf(h.log, "%sexpected no resumed stream (the recorded client resumed none after this point); got %s\n", Diverged, got)
		http.Error(w, "toolscore replay: the recording holds no resumed stream; got "+got, http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.gets = append(h.gets, ex)
	h.setSession(w)
	held := h.held
	h.held = nil
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.gets = remove(h.gets, ex)
		h.mu.Unlock()
		close(ex.done)
	}()
	startStream(w)
	for _, o := range held {
		writeEvent(w, o)
	}
	for {
		select {
		case o := <-ex.out:
			if o.st != nil && o.st.kind == streamCut {
				return
			}
			writeEvent(w, o)
		case <-r.Context().Done():
			return
		case <-h.ctx.Done():
			return
		}
	}
}

// resume takes one of the recorded resumptions, and says whether there was one left.
func (h *httpPlay) resume() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.resumes == 0 {
		return false
	}
	h.resumes--
	return true
}

// newestGet is the GET stream a message recorded on one goes to: the newest that resumes a
// stream (a resumed stream carries the answer its cut stream lost), else the newest.
func (h *httpPlay) newestGet() *exchange {
	for i := len(h.gets) - 1; i >= 0; i-- {
		if h.gets[i].resumes {
			return h.gets[i]
		}
	}
	return h.gets[len(h.gets)-1]
}

func remove(list []*exchange, ex *exchange) []*exchange {
	for i, e := range list {
		if e == ex {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// recordedAsEvent says the recorded answer came as an event of an SSE stream: its record says
// so by its content type, or by having none (the headers were on an event before it).
func recordedAsEvent(st *step) bool {
	if st == nil || st.http == nil {
		return false
	}
	if st.http.EventID != "" {
		return true
	}
	ct := http.Header(st.http.Header).Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "text/event-stream"
}

// setSession gives the session id the recorded server gave, if it gave one.
func (h *httpPlay) setSession(w http.ResponseWriter) {
	if h.session != "" {
		w.Header().Set("Mcp-Session-Id", h.session)
	}
}

// writeStatus answers with the recorded status of a fault of the HTTP exchange and its headers.
func (h *httpPlay) writeStatus(w http.ResponseWriter, facts *transcript.HTTPFacts) {
	h.setSession(w)
	for name, vs := range facts.Header {
		if name != "Content-Length" && name != "Content-Type" {
			w.Header()[name] = vs
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(facts.Status)
	_, _ = io.WriteString(w, http.StatusText(facts.Status)+"\n")
}

func startStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_ = http.NewResponseController(w).Flush()
}

// writeEvent sends one message as an SSE event, a data line for each of its lines, with the
// recorded event's id; an id alone when the recorded event had no message.
func writeEvent(w http.ResponseWriter, o outgoing) {
	var b bytes.Buffer
	if o.st != nil && o.st.http != nil && o.st.http.EventID != "" {
		b.WriteString("id: " + oneLine(o.st.http.EventID) + "\n")
	}
	if o.st != nil && o.st.kind == sseID {
		b.WriteString("data:\n\n")
		_, _ = w.Write(b.Bytes())
		_ = http.NewResponseController(w).Flush()
		return
	}
	b.WriteString("event: message\n")
	for _, line := range bytes.Split(bytes.TrimRight(o.frame, "\r\n"), []byte("\n")) {
		b.WriteString("data: ")
		b.Write(bytes.TrimSuffix(line, []byte("\r")))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, _ = w.Write(b.Bytes())
	_ = http.NewResponseController(w).Flush()
}

// oneLine keeps a recorded event id from ending its field: it is text from the recorded server.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, s)
}
