// Command bigserver is a tiny stdio MCP server for benchmarks: its one tool, "big", answers every
// tools/call with a single text content block of N MiB (from the call's "mib" argument, else from
// -mib). The text is deterministic and needs JSON escaping (quotes, backslashes, tabs, newlines)
// and holds non-ASCII UTF-8, so a relay that re-encodes or truncates it shows up in a hash. The
// answer is streamed, so the server's own memory stays small whatever N is.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
)

// lineLen is the length of one line of the text, newline included; it divides 1 MiB.
const lineLen = 64

// body follows each line's 10-digit number and space; it is padded with dots to fill the line.
const body = `é "quoted" back\slash	tab ünïcödé `

func main() {
	mib := flag.Int("mib", 1, "size of the text block, in MiB, when a call does not say")
	flag.Parse()
	if err := serve(os.Stdin, os.Stdout, *mib); err != nil {
		fmt.Fprintln(os.Stderr, "bigserver:", err)
		os.Exit(1)
	}
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string `json:"name"`
		Arguments struct {
			MiB *int `json:"mib"`
		} `json:"arguments"`
	} `json:"params"`
}

func serve(in io.Reader, out io.Writer, defMiB int) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 1<<20)
	line := escapedBody()
	for {
		frame, err := r.ReadBytes('\n')
		if len(frame) > 0 {
			var req request
			if json.Unmarshal(frame, &req) == nil && len(req.ID) > 0 && req.Method != "" {
				if err := answer(w, &req, defMiB, line); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func answer(w *bufio.Writer, req *request, defMiB int, line []byte) error {
	id := string(req.ID)
	switch req.Method {
	case "initialize":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bigserver","version":"1"}}}`+"\n", id)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"big","description":"Answers with one text block of N MiB.","inputSchema":{"type":"object","properties":{"mib":{"type":"integer"}}}}]}}`+"\n", id)
	case "ping":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
	case "tools/call":
		n := defMiB
		if m := req.Params.Arguments.MiB; m != nil {
			n = *m
		}
		if n < 0 {
			n = 0
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, id)
		var num [10]byte
		for i := 0; i < n*(1<<20)/lineLen; i++ {
			digits := strconv.AppendInt(num[:0], int64(i), 10)
			for j := len(digits); j < 10; j++ {
				w.WriteByte('0')
			}
			w.Write(digits)
			w.Write(line)
		}
		w.WriteString(`"}],"isError":false}}` + "\n")
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found: %s"}}`+"\n", id, req.Method)
	}
	return w.Flush()
}

// escapedBody returns, JSON-escaped, what follows a line's number: a space, the body padded with
// dots to lineLen bytes in all, and the newline.
func escapedBody() []byte {
	raw := " " + body
	for len(raw) < lineLen-11 {
		raw += "."
	}
	raw += "\n"
	if len(raw)+10 != lineLen {
		panic("bigserver: the line pattern is not " + strconv.Itoa(lineLen) + " bytes")
	}
	b, _ := json.Marshal(raw)
	return b[1 : len(b)-1]
}
