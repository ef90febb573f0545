package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// badServer is a misbehaving MCP server for the bad-input tests, run as
// `badserver MODE [ARGS]`; the ledger itself is always clean.
func badServer(mode string, args []string) int {
	out := bufio.NewWriter(os.Stdout)
	send := func(s string) {
		out.WriteString(s)
		out.WriteString("\n")
		out.Flush()
	}
	answerInit := func(id json.RawMessage) {
		send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bad","version":"1"}}}`)
	}
	if mode == "toolbox" || mode == "toolbox-env" {
		return toolbox(mode == "toolbox-env")
	}
	if mode == "forge-entries" {
		return forgeEntries(args[0], args[1], args[2])
	}
	if mode == "twotools" {
		return twoTools(args[0])
	}
	if mode == "ledger-upto" {
		return oldLedger(args[0])
	}
	if mode == "elicit-http" {
		return elicitServer()
	}
	if mode == "spin" {
		for { // a busy core for TestNoLostCallUnderLoad, until it is killed
		}
	}
	if mode == "handshake" {
		return handshakeServer(args[0])
	}
	if mode == "echo" {
		// Speaks first, as a server may (requests of its own, notifications), then records what
		// it reads byte for byte until the client closes its end.
		script, _ := os.ReadFile(args[0])
		os.Stdout.Write(script)
		rec, _ := os.Create(args[1])
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			rec.Write(line)
			if err != nil {
				rec.Close()
				return 0
			}
		}
	}
	if mode == "hang" {
		signal.Ignore(syscall.SIGTERM) // the worst case: only SIGKILL ends it
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			if mode == "hang" {
				time.Sleep(time.Hour)
			}
			return 0
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(line, &msg)
		switch msg.Method {
		case "initialize":
			if mode == "garbage" {
				send("this is not JSON <<<")
				send("\xff\xfe not UTF-8 either")
			}
			answerInit(msg.ID)
		case "tools/call":
			switch mode {
			case "garbage":
				send("{half a message")
				send(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":"ok"}]}}`)
			case "exit-mid-call":
				fmt.Fprintln(os.Stderr, "bad server: giving up mid-call")
				return 3
			case "huge":
				mib, _ := strconv.Atoi(args[0])
				text := strings.Repeat("x", mib<<20)
				send(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)
			case "hang":
			}
		}
	}
}
