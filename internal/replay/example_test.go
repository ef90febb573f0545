package replay_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/replay"
)

// A recorded stdio run, as the proxy's tee writes it (tee.jsonl): one JSON record a line, each
// message's exact bytes in "wire". The server answered the tool call with an isError result.
const transcript = `{"time":"2026-03-31T09:00:00Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"recorded\",\"version\":\"1\"}}}\n"}
{"time":"2026-03-31T09:00:00.001Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"ledger\",\"version\":\"1\"}}}\n"}
{"time":"2026-03-31T09:00:00.002Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"}
{"time":"2026-03-31T09:00:00.003Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get_account_balance\",\"arguments\":{\"account_id\":\"ACC-4471\"}}}\n"}
{"time":"2026-03-31T09:00:00.004Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ledger unavailable\"}],\"isError\":true}}\n"}
`

// Example replays a recorded run to a client over pipes, the replayer's stdin and stdout, as
// a replayed cell's proxy drives it: each recorded answer goes out byte for byte under the
// live request's id, and a request the recording does not hold gets a JSON-RPC error.
func Example() {
	dir, err := os.MkdirTemp("", "replay-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tee.jsonl")
	if err := os.WriteFile(path, []byte(transcript), 0o644); err != nil {
		log.Fatal(err)
	}

	script, warn, err := replay.Load(path)
	if err != nil || warn != nil {
		log.Fatal(err, warn)
	}

	// The client's side of two pipes: it writes requests to the replayer's stdin and reads
	// answers from its stdout.
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	var stderr strings.Builder
	exit := make(chan int)
	go func() {
		code, err := script.Play(context.Background(), stdin, stdout, &stderr)
		if err != nil {
			log.Fatal(err)
		}
		stdout.Close()
		exit <- code
	}()
	answers := bufio.NewReader(fromServer)
	ask := func(request string) {
		if _, err := io.WriteString(toServer, request+"\n"); err != nil {
			log.Fatal(err)
		}
		if !strings.Contains(request, `"id"`) {
			return // a notification has no answer
		}
		answer, err := answers.ReadString('\n')
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(answer)
	}

	// Another client, other ids, the same parameters in another order: the recording answers.
	ask(`{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"clientInfo":{"version":"2","name":"live"},"capabilities":{},"protocolVersion":"2025-06-18"}}`)
	ask(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ask(`{"jsonrpc":"2.0","id":"a-2","method":"tools/call","params":{"arguments":{"account_id":"ACC-4471"},"name":"get_account_balance"}}`)
	// A call the recording does not hold.
	ask(`{"jsonrpc":"2.0","id":"a-3","method":"tools/call","params":{"name":"get_account_balance","arguments":{"account_id":"ACC-0001"}}}`)

	toServer.Close()
	fmt.Println("exit status:", <-exit)
	// The replayer's stderr says where the client left the recording; a replayed run's grader
	// looks for this line.
	fmt.Print(stderr.String())
	// Output:
	// {"jsonrpc":"2.0","id":"a-1","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"ledger","version":"1"}}}
	// {"jsonrpc":"2.0","id":"a-2","result":{"content":[{"type":"text","text":"ledger unavailable"}],"isError":true}}
	// {"jsonrpc":"2.0","id":"a-3","error":{"code":-32000,"message":"toolscore replay: the recording holds no tools/call request with these parameters","data":{"expected":"no further request (the recorded client made no more)","got":"tools/call {\"arguments\":{\"account_id\":\"ACC-0001\"},\"name\":\"get_account_balance\"}"}}}
	// exit status: 0
	// toolscore replay: diverged: expected no further request (the recorded client made no more); got tools/call {"arguments":{"account_id":"ACC-0001"},"name":"get_account_balance"}
}

// A recorded run on the streamable HTTP transport: each message with how it travelled, the
// answer to initialize in a JSON body with the session's id, the tool's answer as an SSE event.
const httpTranscript = `{"time":"2026-03-31T09:00:00Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}","http":{"method":"POST","path":"/mcp"}}
{"time":"2026-03-31T09:00:00.001Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}","http":{"method":"POST","path":"/mcp","status":200,"header":{"Content-Type":["application/json"],"Mcp-Session-Id":["S1"]}}}
{"time":"2026-03-31T09:00:00.002Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"get_account_balance\"}}","http":{"method":"POST","path":"/mcp"}}
{"time":"2026-03-31T09:00:00.003Z","dir":"to-client","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}","http":{"method":"POST","path":"/mcp","status":200,"header":{"Content-Type":["text/event-stream"]},"event_id":"e1"}}
`

// ExampleScript_Listen replays a recorded HTTP run to a client over real HTTP on loopback:
// each answer goes out as the recording says the server sent it, a JSON body or an SSE event.
func ExampleScript_Listen() {
	dir, err := os.MkdirTemp("", "replay-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tee.jsonl")
	if err := os.WriteFile(path, []byte(httpTranscript), 0o644); err != nil {
		log.Fatal(err)
	}
	script, warn, err := replay.Load(path)
	if err != nil || warn != nil {
		log.Fatal(err, warn)
	}

	// Listen writes the endpoint's URL on stdout once it listens; port 0 picks a free one.
	ctx, cancel := context.WithCancel(context.Background())
	urls, stdout := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := script.Listen(ctx, "127.0.0.1:0", stdout, io.Discard); err != nil {
			log.Fatal(err)
		}
	}()
	url, err := bufio.NewReader(urls).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	url = strings.TrimSpace(url)

	for _, request := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"get_account_balance"}}`,
	} {
		resp, err := http.Post(url, "application/json", strings.NewReader(request))
		if err != nil {
			log.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Mcp-Session-Id"))
		fmt.Printf("%s\n", strings.TrimSpace(string(body)))
	}
	cancel()
	<-done
	// Output:
	// 200 OK application/json S1
	// {"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"2025-11-25"}}
	// 200 OK text/event-stream S1
	// id: e1
	// event: message
	// data: {"jsonrpc":"2.0","id":"b","result":{"content":[]}}
}
