package install

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toolscore/toolscore/internal/dirsum"
	"github.com/toolscore/toolscore/internal/filelock"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/runenv"
	"github.com/toolscore/toolscore/report"
)

// Runtimes a client may need on the machine.
const (
	Node   = "node"
	Python = "python"
	// Java is a JDK and Maven: the client's adapter is compiled when it is installed.
	Java = "java"
	// Rust is cargo (with rustc): the client's adapter is compiled when it is installed.
	Rust   = "rust"
	Binary = "binary" // nothing: the command is a program of its own
)

// Runtimes lists them, for messages and the manifest's schema.
var Runtimes = []string{Node, Python, Binary}

// Recipe is how a client is installed into a folder of its own: its files copied in, then its
// steps run there. The same recipe is installed on this machine (Ensure) and, for a manifest's
// own client, in its cell image (internal/cellimage.Recipe).
type Recipe struct {
	// Runtime is what the client needs on the machine: Node, Python, Java or Binary.
	Runtime string
	// Files are copied into the folder first: an adapter and its lockfiles, or a manifest's
	// folder. Nil copies nothing.
	Files fs.FS
	// Steps are shell commands run in the folder, in order, with the network. For Python a
	// virtual environment at venv/ is made first, and its bin leads PATH (so pip and python3
	// are the venv's).
	Steps []string
}

// VenvDir is the folder of a Python recipe's virtual environment, relative to its install.
const VenvDir = "venv"

// skip are the folders of a manifest's folder never copied: a repository's history and a
// checkout's own installs, which the steps make afresh.
var skip = []string{".git", "node_modules", VenvDir}

// Key is a hash of every input of the recipe: an entry is installed once per key. It hashes
// the recipe's steps and each file's digest (Digests), each file streamed, so a large one costs
// time, not memory.
func (r Recipe) Key() (string, error) {
	files, err := r.Digests()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "runtime %q\nsteps %q\n", r.Runtime, r.Steps)
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "file %q %s\n", rel, files[rel])
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Digests are the SHA-256 of each file the recipe copies, by its slash path, with " x" after
// an executable one: what Key hashes of them, kept apart so that a changed key can say which
// file changed.
func (r Recipe) Digests() (map[string]string, error) {
	out := map[string]string{}
	err := r.walk(func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		f, err := r.Files.Open(rel)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		if isExec(d) {
			out[rel] += " x"
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the client's files: %w", err)
	}
	return out, nil
}

// walk visits the recipe's folders and regular files, skipping what is never copied: the
// folders in skip, and links, named pipes, sockets and devices (a pipe would block the read for
// ever). A manifest's folder shows a link that stays inside it as the file it names
// (client.Defined), so the hash and the copy agree on it.
func (r Recipe) walk(f func(rel string, d fs.DirEntry) error) error {
	if r.Files == nil {
		return nil
	}
	return fs.WalkDir(r.Files, ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		if d.IsDir() && slices.Contains(skip, d.Name()) {
			return fs.SkipDir
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		return f(rel, d)
	})
}

func isExec(d fs.DirEntry) bool {
	info, err := d.Info()
	return err == nil && info.Mode()&0o111 != 0
}

// Root is where installs live: $TOOLSCORE_CACHE/clients, else the user's cache folder's
// toolscore/clients.
func Root() (string, error) {
	if c := os.Getenv("TOOLSCORE_CACHE"); c != "" {
		return filepath.Join(c, "clients"), nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache folder for client installs (set TOOLSCORE_CACHE): %w", err)
	}
	return filepath.Join(c, "toolscore", "clients"), nil
}

// Missing says what of the runtime this machine lacks on the PATH clients run with, "" when
// nothing.
func Missing(runtime string) string {
	switch runtime {
	case Node:
		return missingProgram("node")
	case Python:
		if m := missingProgram("python3"); m != "" {
			return m
		}
		return missingVenv()
	case Java:
		for _, p := range []string{"java", "javac", "mvn"} {
			if m := missingProgram(p); m != "" {
				return m + " (a JDK and Maven build the Java adapter)"
			}
		}
	case Rust:
		if m := missingProgram("cargo"); m != "" {
			return m + " (cargo builds the Rust adapter: install Rust, e.g. with rustup)"
		}
	}
	return ""
}

// missingVenv says why python3 -m venv would fail, "" when it would not: on Debian and Ubuntu
// python3 comes without ensurepip unless python3-venv is installed.
func missingVenv() string {
	venvOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "python3", "-c", "import venv, ensurepip").CombinedOutput()
		if err != nil {
			venvMissing = "python3 -m venv cannot work here (on Debian or Ubuntu, install python3-venv): " + lastLines(strings.TrimSpace(string(out)), 1)
		}
	})
	return venvMissing
}

var (
	venvOnce    sync.Once
	venvMissing string
)

func missingProgram(name string) string {
	if _, err := lookPath(name); err != nil {
		return name + " not found on PATH"
	}
	return ""
}

// lookPath finds a program on the PATH of the clients' environment (the allowlisted one).
func lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// BinDirs are the folders of programs an install of runtime in dir makes, which a run looks
// in before the machine's PATH: a Python virtual environment's bin (pip's console scripts and
// its python), a Node install's node_modules/.bin (npm's).
func BinDirs(dir, runtime string) []string {
	switch runtime {
	case Python:
		return []string{filepath.Join(dir, VenvDir, "bin")}
	case Node:
		return []string{filepath.Join(dir, "node_modules", ".bin")}
	}
	return nil
}

// Env is what an installed client runs with beside the run's environment: PATH with its
// BinDirs first.
func Env(dir, runtime string) []string {
	bins := BinDirs(dir, runtime)
	if bins == nil {
		return nil
	}
	return []string{"PATH=" + strings.Join(append(bins, os.Getenv("PATH")), string(os.PathListSeparator))}
}

// LookBin finds a program named without a / in the install's BinDirs, "" when none holds it:
// the run starts that one, not a program of the same name on the machine's PATH (a pyenv or
// asdf shim would run another python).
func LookBin(dir, runtime, name string) string {
	if strings.ContainsRune(name, '/') {
		return ""
	}
	for _, b := range BinDirs(dir, runtime) {
		p := filepath.Join(b, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// StepError is a step that failed: the step, the last lines of its output and how many bytes it
// wrote in all.
type StepError struct {
	Step   string
	Output string
	Total  int64
	Err    error
}

func (e *StepError) Error() string {
	msg := fmt.Sprintf("install step %q failed: %v", e.Step, e.Err)
	switch {
	case e.Output == "":
	case int64(len(e.Output)) < e.Total-1: // a final newline is not shown
		msg += fmt.Sprintf("; the end of its output (%d bytes in all):\n", e.Total) + e.Output
	default:
		msg += "; its last output:\n" + e.Output
	}
	return msg
}

func (e *StepError) Unwrap() error { return e.Err }

// doneFile marks a complete entry: a record listing each of its files (regular files with their
// size and sha256, links with their targets), signed with the machine's install key (keyFile),
// so an entry cut short, edited, added to or relinked afterwards is seen and installed afresh,
// record rewritten or not.
const doneFile = DoneFile

// DoneFile is the name of an install's record in its folder: a folder holding one is an install
// of toolscore's.
const DoneFile = ".toolscore-installed.json"

// record is doneFile's content. MAC is the HMAC-SHA256, under the install key, of the entry's
// folder name and Files: a record a run rewrote without the key, or copied from another entry,
// does not match.
type record struct {
	Files dirsum.Sums `json:"files"`
	MAC   string      `json:"mac"`
}

// keyFile is where the install key is kept: in the user's configuration folder, outside the
// install cache and outside every folder a run is given or named (a run's HOME and TMPDIR are
// its own directory, and TOOLSCORE_CACHE never reaches it). A process of the same user can
// still read it: see docs/safety.md for what the key does and does not buy.
func keyFile() (string, error) {
	c, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the configuration folder for the install key (set XDG_CONFIG_HOME): %w", err)
	}
	return filepath.Join(c, "toolscore", "install.key"), nil
}

// installKey reads the install key, making it on first use: 32 random bytes, readable by the
// user alone. Two sweeps making it at once agree on one (the first link wins).
func installKey() ([]byte, error) {
	p, err := keyFile()
	if err != nil {
		return nil, err
	}
	if b, err := readKey(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("making the install key %s: %w", p, err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", p, os.Getpid())
	if err := os.WriteFile(tmp, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("making the install key %s: %w", p, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("making the install key %s: %w", p, err)
	}
	return readKey(p)
}

func readKey(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading the install key %s: %w", p, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < 32 {
		return nil, fmt.Errorf("the install key %s is not 64 hex digits: delete it, and every install is made afresh", p)
	}
	return key, nil
}

// mac signs the files of the entry in the folder named name.
func mac(key []byte, name string, files dirsum.Sums) string {
	b, _ := json.Marshal(files) // a map's keys are sorted: the same files give the same bytes
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "toolscore install %q\n", name)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// writeRecord lists the finished entry in dir and signs the list, written last.
func writeRecord(dir string) error {
	key, err := installKey()
	if err != nil {
		return err
	}
	files, err := dirsum.List(dir, doneFile)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(record{files, mac(key, filepath.Base(dir), files)})
	return os.WriteFile(filepath.Join(dir, doneFile), b, 0o644)
}

// Ensure returns the folder recipe r is installed in under root, installing it first unless a
// complete, intact entry is there (fresh says whether this call installed it); every file of it
// is checked against its signed record, and its state kept for Unchanged before each run. Concurrent
// callers (in this process or others) share one install: they wait on the entry's lock. name
// is the client, for the progress lines on log.
func Ensure(ctx context.Context, root, name string, r Recipe, log io.Writer) (dir string, fresh bool, err error) {
	if m := Missing(r.Runtime); m != "" {
		return "", false, errors.New(m)
	}
	key, err := r.Key()
	if err != nil {
		return "", false, err
	}
	dir = filepath.Join(root, key)
	if ok, _ := intact(dir); ok {
		return dir, false, remember(dir)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", false, fmt.Errorf("making the install cache %s: %w", root, err)
	}
	unlock, err := lock(ctx, dir+".lock")
	if err != nil {
		return "", false, err
	}
	defer unlock()
	ok, why := intact(dir)
	if ok { // another sweep installed it while this one waited
		fmt.Fprintf(log, "%s: installed by another sweep in %s\n", name, dir)
		return dir, false, remember(dir)
	}
	if _, err := os.Stat(dir); err == nil {
		// why names files a run may have made: plain text for the terminal and the CI log.
		fmt.Fprintf(log, "%s: the install in %s is incomplete or damaged (%s); installing it afresh\n", name, dir, report.Plain(why))
	}
	fmt.Fprintf(log, "installing %s into %s ...\n", name, dir)
	start := time.Now()
	if err := install(ctx, dir, r); err != nil {
		return "", false, err
	}
	fmt.Fprintf(log, "installed %s in %s\n", name, time.Since(start).Round(time.Second))
	return dir, true, remember(dir)
}

// Installed says where r is installed under root, and whether it is there, intact; it installs
// nothing.
func Installed(root string, r Recipe) (string, bool) {
	key, err := r.Key()
	if err != nil {
		return "", false
	}
	dir := filepath.Join(root, key)
	ok, _ := intact(dir)
	return dir, ok
}

// install makes the entry afresh: the files are copied beside it and renamed into place, and
// the steps run there (what they write, a venv's scripts or npm's links, names its final path);
// the entry counts only once its list of files is written last.
func install(ctx context.Context, dir string, r Recipe) error {
	_ = os.RemoveAll(dir)
	tmp := fmt.Sprintf("%s.tmp-%d", dir, os.Getpid())
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := r.copy(tmp); err != nil {
		return fmt.Errorf("copying the client's files: %w", err)
	}
	steps := r.Steps
	if r.Runtime == Python {
		steps = append([]string{"python3 -m venv " + VenvDir}, steps...)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	for _, step := range steps {
		if err := runStep(ctx, dir, r.Runtime, step); err != nil {
			_ = os.RemoveAll(dir)
			return err
		}
	}
	if err := writeRecord(dir); err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	ok = true
	return nil
}

func (r Recipe) copy(to string) error {
	return r.walk(func(rel string, d fs.DirEntry) error {
		dst := filepath.Join(to, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		mode := os.FileMode(0o644)
		if isExec(d) {
			mode = 0o755
		}
		src, err := r.Files.Open(rel)
		if err != nil {
			return err
		}
		defer src.Close()
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, src); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}

// StepTimeout is how long one install step may run before it is stopped: a step that waits on
// a prompt or a dead mirror fails instead of holding the sweep.
var StepTimeout = 10 * time.Minute

// keptOutput is how much of a step's output is kept, its end: what explains a failure is there.
const keptOutput = 64 << 10

// runStep runs one step with sh in dir, from the allowlisted environment (HOME and TMPDIR the
// machine's, so a package client finds its settings and its cache), in a process group of its
// own: once sh exits, or when the step is cancelled or runs out of time, the group is killed with
// what it left running (a background process, even one in a session of its own).
func runStep(ctx context.Context, dir, runtime, step string) error {
	ctx, cancel := context.WithTimeout(ctx, StepTimeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", step)
	cmd.Dir = dir
	cmd.Env = append(runenv.Allowed(os.Environ()), Env(dir, runtime)...)
	cmd.Env = append(cmd.Env, passThrough()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Its own pipe, not os/exec's: Wait returns when sh exits, not when the last process that
	// holds the pipe does.
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	_ = proc.Subreaper() // what the step leaves behind is given to this process, to end
	err = proc.Start(cmd)
	pw.Close()
	if err != nil {
		pr.Close()
		return &StepError{Step: step, Err: err}
	}
	out := &tail{max: keptOutput}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(out, pr); close(copied) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pgid := cmd.Process.Pid
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-done
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	proc.EndStrays(pgid)
	select {
	case <-copied:
	case <-time.After(time.Second): // a process that escaped both still holds the pipe
	}
	pr.Close()
	<-copied
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		err = fmt.Errorf("it ran for longer than %s and was stopped", StepTimeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case err == nil:
		return nil
	}
	return &StepError{Step: step, Output: out.last(15, 4096), Total: out.total, Err: err}
}

// tail keeps the last max bytes written to it, and counts them all.
type tail struct {
	max   int
	buf   []byte
	total int64
}

func (t *tail) Write(p []byte) (int, error) {
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// last is the last n lines kept, at most max bytes of them, cut at a character.
func (t *tail) last(n, max int) string {
	s := lastLines(string(t.buf), n)
	if len(s) > max {
		s = s[len(s)-max:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	return s
}

// passThrough are the package clients' own settings of this machine (a registry mirror, a CA
// bundle, a proxy): an install reaches the registries as the machine's own clients do. They go
// to install steps only, never to a run.
func passThrough() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "npm_config_") || strings.HasPrefix(lk, "pip_") || lk == "ssl_cert_file" ||
			lk == "node_extra_ca_certs" || lk == "requests_ca_bundle" || lk == "http_proxy" || lk == "https_proxy" || lk == "no_proxy" ||
			lk == "java_home" || lk == "maven_opts" || lk == "maven_args" ||
			strings.HasPrefix(lk, "cargo_") || strings.HasPrefix(lk, "rustup_") {
			env = append(env, kv)
		}
	}
	return env
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// intact says whether dir is a complete entry whose files are all and only what was installed,
// as its record signed with the install key lists them; when not, why says what differs, for
// the line that installs it afresh.
func intact(dir string) (ok bool, why string) {
	p := filepath.Join(dir, doneFile)
	if info, err := os.Lstat(p); err != nil || !info.Mode().IsRegular() {
		return false, "it has no record of a finished install"
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false, "it has no record of a finished install"
	}
	var rec record
	if json.Unmarshal(b, &rec) != nil || rec.Files == nil {
		return false, "its record of the install is unreadable or from an older toolscore"
	}
	key, err := installKey()
	if err != nil {
		return false, err.Error()
	}
	if !hmac.Equal([]byte(rec.MAC), []byte(mac(key, filepath.Base(dir), rec.Files))) {
		return false, "its record of the install is not signed with this machine's install key: something other than toolscore wrote it"
	}
	if why := rec.Files.Changed(dir, doneFile, "installed"); why != "" {
		return false, why
	}
	return true, ""
}

// lock takes an exclusive lock on the install at path (filelock.Lock, which the cell cache
// shares).
func lock(ctx context.Context, path string) (func(), error) {
	return filelock.Lock(ctx, path, "the install")
}
