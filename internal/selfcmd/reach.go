package selfcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/runner"
)

// Exit statuses of reach: no connection could be made (EX_UNAVAILABLE), or the server answered
// something that is not MCP (EX_PROTOCOL). the url server source's check reads them (internal/runner/source_url.go).
const (
	reachUnreachable = 69
	reachNotMCP      = 76
)

// reachID is the id of the check's initialize, which the answer must carry.
const reachID = "toolscore-url-check"

// reachCmd is hidden: the url server's check runs it where the proxy will run (in a cell, on the
// server's network), so a sweep whose server is not an MCP server is refused first, not swept
// into a `hung` or `threw` of every client. It sends one MCP initialize (with the url server's
// Authorization, from the variable the proxy reads it from, when the manifest names one) and
// takes as MCP only a JSON-RPC answer to it, in a JSON body or an SSE event, or a 401 that asks
// for a Bearer token (MCP's authorization, which a client under test may go through) when no
// credential was sent. It follows a redirect only within the url's origin. It exits 69 when no
// connection could be made and 76 when what came back is not MCP, with what came on stderr.
func reachCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("reach", flag.ContinueOnError)
	within := fs.Duration("within", 30*time.Second, "how long the server may take to answer the initialize")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		err := errors.New("usage: toolscore reach [--within DURATION] URL")
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	target, err := url.Parse(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	ctx, cancel := context.WithTimeout(ctx, *within)
	defer cancel()
	connected := false
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected = true }})
	body := `{"jsonrpc":"2.0","id":"` + reachID + `","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"toolscore-url-check","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), strings.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	auth := os.Getenv(runner.AuthEnv)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	client := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		// The credential, and the check, stay with the origin the manifest names.
		if !strings.EqualFold(next.URL.Scheme, target.Scheme) || !strings.EqualFold(next.URL.Host, target.Host) {
			return fmt.Errorf("it redirected the MCP initialize to another origin, %s, which toolscore does not follow", next.URL.Redacted())
		}
		if len(via) >= 10 {
			return errors.New("it redirected the MCP initialize 10 times")
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		switch {
		case !connected:
			return reachFailed(reachUnreachable, err.Error())
		case errors.Is(err, context.DeadlineExceeded):
			return reachFailed(reachNotMCP, fmt.Sprintf("it accepted the connection but sent no answer to an MCP initialize within %v", *within))
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return reachFailed(reachNotMCP, "it is not an MCP server: "+err.Error())
	}
	defer resp.Body.Close()
	if why := notMCPAnswer(resp, auth != ""); why != "" {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("it answered an MCP initialize with HTTP %d but sent no JSON-RPC answer within %v", resp.StatusCode, *within)
		}
		return reachFailed(reachNotMCP, "it is not an MCP server: "+why)
	}
	// Tidy: the session the check opened is not one a run uses.
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, resp.Request.URL.String(), nil); err == nil {
			del.Header.Set("Mcp-Session-Id", sid)
			if auth != "" {
				del.Header.Set("Authorization", auth)
			}
			if r, err := client.Do(del); err == nil {
				r.Body.Close()
			}
		}
	}
	return nil
}

func reachFailed(code int, msg string) error {
	fmt.Fprintln(os.Stderr, msg)
	return &exitcode.Error{Code: code, Err: errors.New(msg)}
}

// reachBodyLimit bounds what the check reads of an answer: an initialize result is small.
const reachBodyLimit = 1 << 20

// notMCPAnswer says why resp is not an MCP server's answer to the check's initialize, quoting
// what came back; "" when it is one. A 401 asking for a Bearer token is one when the check sent
// no credential (withCredential): the runs' clients may authorize.
func notMCPAnswer(resp *http.Response, withCredential bool) string {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode == http.StatusUnauthorized && !withCredential && strings.HasPrefix(strings.ToLower(resp.Header.Get("Www-Authenticate")), "bearer") {
		return ""
	}
	got := fmt.Sprintf("it answered an MCP initialize with HTTP %d", resp.StatusCode)
	if ct != "" {
		got += " and " + ct
	}
	if ct == "application/json" {
		// The first JSON value: a streamed JSON body may stay open after it. A JSON-RPC error
		// under any status is MCP's (a server refusing the check's protocol version, say).
		var msg json.RawMessage
		if err := json.NewDecoder(io.LimitReader(resp.Body, reachBodyLimit)).Decode(&msg); err != nil {
			return got + " whose body is not JSON (" + err.Error() + ")"
		}
		if !answersCheck(msg, resp.StatusCode == http.StatusOK) {
			return got + " that is not a JSON-RPC answer to it: " + excerpt(msg)
		}
		return ""
	}
	if resp.StatusCode == http.StatusOK {
		switch ct {
		case "text/event-stream":
			sc := bufio.NewScanner(io.LimitReader(resp.Body, reachBodyLimit))
			sc.Buffer(nil, reachBodyLimit)
			var data []byte
			for sc.Scan() {
				line := sc.Bytes()
				switch {
				case len(line) == 0:
					if answersCheck(data, true) {
						return ""
					}
					data = nil
				case bytes.HasPrefix(line, []byte("data:")):
					if data != nil {
						data = append(data, '\n')
					}
					data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
				}
			}
			return got + " whose stream ended without a JSON-RPC answer to it"
		}
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if len(head) > 0 {
		got += ": " + excerpt(head)
	}
	if withCredential && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		got += " (with the Authorization from auth_env)"
	}
	return got
}

// answersCheck says msg is a JSON-RPC answer (a result or an error) to the check's request, or,
// where ok is false (the status was not 200), a JSON-RPC error, for the request or for none.
func answersCheck(msg []byte, ok bool) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil || m.JSONRPC != "2.0" {
		return false
	}
	if !ok {
		return m.Error != nil && (m.ID == reachID || m.ID == nil)
	}
	return m.ID == reachID && (m.Result != nil || m.Error != nil)
}

// excerpt quotes the first bytes of what a server sent (the sweep escapes it where it prints).
func excerpt(b []byte) string {
	const n = 160
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		s = s[:n] + "..."
	}
	return fmt.Sprintf("%q", s)
}
