package docker

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestLeftover: what a sweep takes for a dead sweep's container. Only an owner it can see is
// gone, in this machine's boot and PID namespace, or a deadline passed; an owner of another
// namespace, or an older label that does not say its namespace, is left to its deadline.
func TestLeftover(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	me := backend.Self()
	gone, reused, elsewhere := me, me, me
	gone.PID = dead.Process.Pid
	reused.Start++ // this process's pid, taken by a process that started later
	elsewhere.PIDNS = "pid:[1]"
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
	d := &Backend{session: "this-sweep"}
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   bool
	}{
		{"this sweep's", map[string]string{LabelSession: "this-sweep", LabelOwner: gone.String(), LabelDeadline: past}, false},
		{"a live owner's", map[string]string{LabelOwner: me.String(), LabelDeadline: later}, false},
		{"a gone owner's", map[string]string{LabelOwner: gone.String(), LabelDeadline: later}, true},
		{"an owner whose pid was reused", map[string]string{LabelOwner: reused.String(), LabelDeadline: later}, true},
		{"another PID namespace's", map[string]string{LabelOwner: elsewhere.String(), LabelDeadline: later}, false},
		{"an older label's, host:pid of a gone pid", map[string]string{LabelOwner: host + ":" + strconv.Itoa(dead.Process.Pid), LabelDeadline: later}, false},
		{"past its deadline", map[string]string{LabelOwner: elsewhere.String(), LabelDeadline: past}, true},
	} {
		if got := d.leftover(tc.labels); got != tc.want {
			t.Errorf("%s: leftover %v, want %v", tc.name, got, tc.want)
		}
	}
}
