package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
)

// Owner names a live toolscore process so that another one can tell whether it is still there:
// a pid means something only on one machine, in one boot and in one PID namespace (a sweep in
// a container that shares the host's name, say under `docker run --network host` or act, has
// pids of its own), and only until the number is reused.
type Owner struct {
	Host string `json:"host"`
	// Boot is the kernel's boot id, PIDNS the PID namespace as /proc/self/ns/pid names it.
	Boot  string `json:"boot"`
	PIDNS string `json:"pidns"`
	PID   int    `json:"pid"`
	// Start is the process's start time, in clock ticks after boot, so a process that got the
	// number later is not taken for it.
	Start uint64 `json:"start"`
}

// Self is this process as an Owner.
func Self() Owner {
	host, _ := os.Hostname()
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	ns, _ := os.Readlink("/proc/self/ns/pid")
	o := Owner{Host: host, Boot: strings.TrimSpace(string(boot)), PIDNS: ns, PID: os.Getpid()}
	if st, err := ReadStat("self"); err == nil {
		o.Start = st.Start
	}
	return o
}

// ParseOwner reads an Owner from a label; an older label ("host:pid") or anything else that does
// not say which boot and PID namespace its pid is in is an error.
func ParseOwner(s string) (Owner, error) {
	var o Owner
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		return o, err
	}
	if o.Boot == "" || o.PIDNS == "" || o.PID <= 0 {
		return o, errors.New("the owner does not say which boot and PID namespace it is in")
	}
	return o, nil
}

func (o Owner) String() string {
	b, _ := json.Marshal(o)
	return string(b)
}

// Gone says whether the owner has ended. known is false when this process cannot tell, because
// the owner's pid is of another machine, boot or PID namespace (or /proc here is not of this
// process's namespace): what such an owner made must be left alone until its deadline.
func (o Owner) Gone() (gone, known bool) {
	me := Self()
	if o.Boot == "" || o.PIDNS == "" || o.Host != me.Host || o.Boot != me.Boot || o.PIDNS != me.PIDNS || !procIsMine() {
		return false, false
	}
	st, err := ReadStat(strconv.Itoa(o.PID))
	if err != nil {
		return errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrNotExist)
	}
	return st.State == 'Z' || (o.Start != 0 && st.Start != o.Start), true
}

// procIsMine says whether /proc shows this process's PID namespace: it does not in a process
// that entered a new namespace without mounting a /proc of its own.
func procIsMine() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// ProcStat is what /proc/PID/stat says of a process.
type ProcStat struct {
	State byte
	PGID  int
	Start uint64
}

// ReadStat reads /proc/PID/stat; pid is a number or "self".
func ReadStat(pid string) (ProcStat, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ProcStat{}, err
	}
	// The command name, in parentheses, may hold spaces and parentheses itself: the fields
	// start after the last one.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ProcStat{}, errors.New("unreadable /proc/" + pid + "/stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ProcStat{}, errors.New("unreadable /proc/" + pid + "/stat")
	}
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return ProcStat{State: f[0][0], PGID: pgid, Start: start}, nil
}
