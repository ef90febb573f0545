package main

import (
	"bytes"
	"reflect"
	"testing"
)

// TestResultTypeOnTheWire: result-type through the real proxy under 2026-07-28, each value: the
// server's resultType removed (the proxy, which gives a fault's result the server's envelope
// back, leaves it out as the fault says), unknown, and input_required, the tool's payload as it
// was and the transcript's introduced saying what stood there.
func TestResultTypeOnTheWire(t *testing.T) {
	for value, want := range map[string]string{"absent": "", "unknown": `"resultType":"partial"`, "input_required": `"resultType":"input_required"`} {
		t.Run(value, func(t *testing.T) {
			t.Parallel()
			cmd, tee := proxyCommand(t, "result-type", "hidden", "--protocol", modernRevision, "--options", `{"value":"`+value+`"}`)
			_, call, _ := modernExchange(t, cmd)
			w := decode(t, call)
			if has := bytes.Contains(call, []byte(`"resultType"`)); has != (want != "") || !bytes.Contains(call, []byte(want)) {
				t.Errorf("want %s on the wire, got %s", map[bool]string{true: want, false: "no resultType"}[want != ""], call)
			}
			if w.text() == "" || !reflect.DeepEqual(w.object(), truthObject) {
				t.Errorf("the tool's payload changed: %s", call)
			}
			checkTee(t, tee, "result-type", call)
			for _, r := range readTee(t, tee) {
				if r["fault"] == "result-type" {
					in, _ := r["introduced"].([]any)
					if len(in) != 1 || in[0].(map[string]any)["was"] != "complete" {
						t.Errorf("introduced %v, want one value that was complete", r["introduced"])
					}
				}
			}
		})
	}
}
