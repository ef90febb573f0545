// Command proxyprof runs toolscore's proxy (internal/proxy.Run, as `toolscore proxy` does) in this
// process, drives it over OS pipes the way a stdio client would, and writes CPU and heap
// profiles, to find where the proxy's time and memory go.
//
//	go run ./bench/proxyprof -server "toolscore ledger" -calls 5000 -cpuprofile cpu.out
//	go run ./bench/proxyprof -server "bigserver" -mib 64 -cpuprofile cpu.out -memprofile mem.out
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/internal/transcript"
)

func main() {
	server := flag.String("server", "", "the server command, split on spaces (required)")
	faultName := flag.String("fault", "clean", "the fault")
	tool := flag.String("tool", "", "the target tool (default: every tool)")
	teePath := flag.String("tee", os.DevNull, "the transcript file (empty: no tee)")
	calls := flag.Int("calls", 2000, "small get_account_balance calls to make (when -mib is 0)")
	mib := flag.Int("mib", 0, "make one call for a result of this many MiB instead (bigserver)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile here")
	memprofile := flag.String("memprofile", "", "write an allocation profile here (every allocation sampled)")
	flag.Parse()
	if *server == "" {
		fmt.Fprintln(os.Stderr, "proxyprof: -server is required")
		os.Exit(2)
	}
	if err := run(*server, *faultName, *tool, *teePath, *calls, *mib, *cpuprofile, *memprofile); err != nil {
		fmt.Fprintln(os.Stderr, "proxyprof:", err)
		os.Exit(1)
	}
}

func run(server, faultName, tool, teePath string, calls, mib int, cpuprofile, memprofile string) error {
	if memprofile != "" {
		runtime.MemProfileRate = 1
	}
	f, err := fault.New(faultName, []byte("{}"))
	if err != nil {
		return err
	}
	cfg := proxy.Config{Fault: f, FaultName: faultName, Tool: tool, Probability: 1, Seed: 1, Schema: proxy.Hidden}
	var tee *transcript.Tee
	if teePath != "" {
		tf, err := os.Create(teePath)
		if err != nil {
			return err
		}
		defer tf.Close()
		tee = transcript.NewTee(tf)
	}
	proxyIn, clientOut, err := os.Pipe()
	if err != nil {
		return err
	}
	clientIn, proxyOut, err := os.Pipe()
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := proxy.Run(context.Background(), proxy.Server{Command: strings.Fields(server)}, cfg, tee, proxyIn, proxyOut, os.Stderr)
		proxyOut.Close()
		done <- err
	}()
	out := bufio.NewReaderSize(clientIn, 64<<10)
	id := 0
	roundTrip := func(req string) (int, error) {
		if _, err := io.WriteString(clientOut, req); err != nil {
			return 0, err
		}
		n := 0
		for {
			chunk, err := out.ReadSlice('\n')
			n += len(chunk)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return n, err
		}
	}
	id++
	if _, err := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"proxyprof","version":"1"}}}`+"\n", id)); err != nil {
		return err
	}
	io.WriteString(clientOut, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if cpuprofile != "" {
		pf, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		pprof.StartCPUProfile(pf)
	}
	t0 := time.Now()
	if mib > 0 {
		id++
		n, err := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"mib":%d}}}`+"\n", id, mib))
		if err != nil {
			return err
		}
		fmt.Printf("one %d MiB call: %d bytes in %s\n", mib, n, time.Since(t0).Round(time.Millisecond))
	} else {
		for i := 0; i < calls; i++ {
			id++
			if _, err := roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_account_balance","arguments":{"account_id":"ACC-4471"}}}`+"\n", id)); err != nil {
				return err
			}
		}
		el := time.Since(t0)
		fmt.Printf("%d calls in %s, %.1f µs per call\n", calls, el.Round(time.Millisecond), float64(el.Microseconds())/float64(calls))
	}
	if cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if memprofile != "" {
		mf, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer mf.Close()
		runtime.GC() // the allocs profile counts up to the last completed collection
		if err := pprof.Lookup("allocs").WriteTo(mf, 0); err != nil {
			return err
		}
	}
	clientOut.Close()
	return <-done
}
