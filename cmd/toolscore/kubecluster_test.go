package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/outdir"
)

// TestKubeJobOnCluster applies what toolscore kube writes to a real cluster: a single node of
// scripts/kube-up.sh (kube-apiserver, controller manager, scheduler, kubelet and etcd built from
// the Go module proxy, its own containerd), the pod image built on the Docker engine and loaded
// into the node (no registry), a hostPath volume of no class for the claim. The Job of two
// shards completes, the merge Job merges them, and the merged cells are those of the same sweep
// run here on the local backend, cell for cell. A second sweep (other --runs) applied on the same
// claim is refused by its pods, exit 2, not retried, and its Job fails. Nightly only: the first
// build of the cluster takes 15 to 25 minutes on 2 cores (then it is cached), and it needs root.
func TestKubeJobOnCluster(t *testing.T) {
	if !fullProduct() {
		t.Skip("a real cluster: scripts/nightly (TOOLSCORE_FULL=1)")
	}
	if os.Geteuid() != 0 {
		t.Skip("a real cluster needs root: its containerd, runc and the kubelet's cgroups")
	}
	api := serialEngine(t)
	ctx := context.Background()
	tag := buildPodImage(t, api)

	dir, err := os.MkdirTemp("", "tskube") // short: containerd's socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../scripts/kube-up.sh")
	kubeUp := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(script, args...)
		cmd.Env = append(os.Environ(), "TOOLSCORE_KUBE_DIR="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kube-up.sh %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	began := time.Now()
	kubeUp("build")
	t.Logf("the cluster's binaries: %s", time.Since(began).Round(time.Second))
	began = time.Now()
	t.Cleanup(func() {
		began := time.Now()
		kubeUp("down")
		t.Logf("the cluster stopped in %s", time.Since(began).Round(time.Second))
	})
	kubeconfig := kubeUp("up")
	t.Logf("the cluster up in %s; the control plane's memory: %s", time.Since(began).Round(time.Second), controlPlaneRSS(t, dir))

	// The image goes into the node as docker save writes it.
	rc, err := api.ImageSave(ctx, []string{tag})
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "pod.tar")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(f, rc)
	rc.Close()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	kubeUp("import", archive)
	os.Remove(archive)

	kubectl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// A claim's volume: a directory of the node that the pods' user, uid 1000, can write
	// (fsGroup does not apply to a hostPath), offered as ReadWriteMany, with no class.
	tmp := t.TempDir()
	volumeFor := func(claim string) string {
		t.Helper()
		volume := filepath.Join(dir, claim)
		os.MkdirAll(volume, 0o777)
		os.Chmod(volume, 0o777)
		writeFile(t, filepath.Join(tmp, "pv.yaml"), fmt.Sprintf(`apiVersion: v1
kind: PersistentVolume
metadata: {name: %[1]s}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteMany]
  storageClassName: ""
  claimRef: {namespace: default, name: %[1]s}
  hostPath: {path: %[2]s, type: Directory}
`, claim, volume))
		kubectl("apply", "-f", filepath.Join(tmp, "pv.yaml"))
		return volume
	}
	volume := volumeFor("toolscore-out")

	writeFile(t, filepath.Join(tmp, "sweep.yaml"), kubeManifest)
	const shards = 2
	apply := func(what string, args ...string) {
		t.Helper()
		stdout, stderr, code := toolscore(t, tmp, append([]string{"kube", what, "sweep.yaml", "--shards", strconv.Itoa(shards), "--image", tag}, args...)...)
		if code != 0 {
			t.Fatalf("kube %s: exit %d\n%s", what, code, stderr)
		}
		writeFile(t, filepath.Join(tmp, what+".yaml"), stdout)
		kubectl("apply", "-f", filepath.Join(tmp, what+".yaml"))
	}
	began = time.Now()
	apply("job", "--storage-class", "")
	kubectl("wait", "--for=condition=complete", "--timeout=30m", "job/toolscore")
	t.Logf("the Job of %d shards: %s", shards, time.Since(began).Round(time.Second))
	apply("merge")
	kubectl("wait", "--for=condition=complete", "--timeout=10m", "job/toolscore-merge")

	if _, stderr, code := toolscore(t, tmp, "run", "sweep.yaml", "--backend", "local", "--fail-on", "never", "--out", "local"); code != 0 {
		t.Fatalf("the local sweep: exit %d\n%s", code, stderr)
	}
	sameCells(t, filepath.Join(volume, "merged"), filepath.Join(tmp, "local"))
	local, err := outdir.ReadResults(filepath.Join(tmp, "local", "results.json"))
	if err != nil {
		t.Fatal(err)
	}

	// A pod killed midway: its index is retried, and the new pod resumes the shard from the
	// runs the first wrote, to the counts of a whole sweep.
	killed := volumeFor("killed-out")
	stdout, stderr, code := toolscore(t, tmp, "kube", "job", "sweep.yaml", "--name", "killed", "--shards", "1", "--image", tag, "--storage-class", "", "--", "--runs", "5")
	if code != 0 {
		t.Fatalf("kube job: exit %d\n%s", code, stderr)
	}
	writeFile(t, filepath.Join(tmp, "killed.yaml"), stdout)
	kubectl("apply", "-f", filepath.Join(tmp, "killed.yaml"))
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		b, _ := os.ReadFile(filepath.Join(killed, "shard-0", "runs.jsonl"))
		if n := strings.Count(string(b), "\n"); n >= 10 && n < 50 {
			break
		} else if n >= 50 || time.Now().After(deadline) {
			t.Fatalf("the shard wrote %d of its 60 runs before it could be killed midway", n)
		}
	}
	kubectl("delete", "pod", "-l", "job-name=killed", "--wait=false")
	kubectl("wait", "--for=condition=complete", "--timeout=10m", "job/killed")
	if failed := kubectl("get", "job", "killed", "-o", "jsonpath={.status.failed}"); failed != "1" {
		t.Errorf("the killed Job's failed pods: %q, want 1", failed)
	}
	resumed, err := outdir.ReadResults(filepath.Join(killed, "shard-0", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(resumed.Cells) != len(local.Cells) {
		t.Fatalf("the resumed shard has %d cells, the local sweep %d", len(resumed.Cells), len(local.Cells))
	}
	for i, c := range local.Cells {
		r := resumed.Cells[i]
		for outcome := range c.Outcome {
			if r.Key() != c.Key() || r.Runs != 5 || r.Outcome[outcome] != 5 {
				t.Errorf("the resumed shard's %s: %d runs, %v; want 5 runs, each %s", r.Key(), r.Runs, r.Outcome, outcome)
			}
		}
	}

	// Another sweep on the same claim: its pods refuse it, each index fails at once.
	kubectl("delete", "job", "toolscore", "toolscore-merge")
	apply("job", "--storage-class", "", "--", "--runs", "2")
	kubectl("wait", "--for=condition=failed", "--timeout=5m", "job/toolscore")
	pods := strings.Fields(kubectl("get", "pods", "-l", "job-name=toolscore", "-o", "name"))
	if len(pods) != shards {
		t.Errorf("the refused sweep ran %d pods, want %d (exit 2 is not retried): %v", len(pods), shards, pods)
	}
	for _, p := range pods {
		if log := kubectl("logs", p); !strings.Contains(log, "toolscore: the claim toolscore-out holds another sweep (") {
			t.Errorf("%s said:\n%s", p, log)
		}
	}
}

// controlPlaneRSS is what the processes of kube-up.sh hold in memory, each and in all.
func controlPlaneRSS(t *testing.T, dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "pids"))
	if err != nil {
		return err.Error()
	}
	var parts []string
	total := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, pid, _ := strings.Cut(line, " ")
		status, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			if kb, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				n, _ := strconv.Atoi(strings.Fields(kb)[0])
				total += n
				parts = append(parts, fmt.Sprintf("%s %d MiB", name, n/1024))
			}
		}
	}
	return fmt.Sprintf("%d MiB (%s)", total/1024, strings.Join(parts, ", "))
}
