package selfcmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"time"

	"github.com/toolscore/toolscore/exitcode"
)

// reachCmd is hidden: the url server's check runs it where the proxy will run (in a cell, on the
// server's network), so a sweep whose server cannot even be connected to is refused first.
// Any answer, or a connection the server then leaves silent, is reachable: what it says is for
// the runs to record. It exits 69 when no connection could be made.
func reachCmd(ctx context.Context, args []string) error {
	if len(args) != 1 {
		err := errors.New("usage: toolscore reach URL")
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	connected := false
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected = true }})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close() // the headers are enough: an MCP GET may be an endless event stream
		return nil
	}
	if connected {
		return nil
	}
	fmt.Fprintln(os.Stderr, err)
	return &exitcode.Error{Code: 69, Err: err}
}
