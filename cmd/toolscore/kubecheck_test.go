package main

import (
	"os"
	"os/exec"

	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestKubeJobRefuses: what toolscore kube job would write wrong is refused (exit 2, saying
// why) before anything is written: a run flag after -- that fights the Job's own (a --shard of
// its own made every pod run shard 1, and the merge count each run twice), one that reads a
// file of this machine, a scenario after --, a count below 1; --shards beyond what an Indexed
// Job takes (2^32+1 wrapped to 1); names Kubernetes refuses, checked as its API checks them.
func TestKubeJobRefuses(t *testing.T) {
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "sweep.yaml"), kubeManifest)
	job := []string{"kube", "job", "sweep.yaml", "--image", "registry.example/pod:1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "2", "--", "--shard", "1/2"}, "toolscore kube: after --: --shard is not for a shard: the Job gives pod i --shard i+1/N; split the sweep with --shards\n"},
		{[]string{"--shards", "2", "--", "--runs=2", "-out", "/tmp/x"}, "toolscore kube: after --: --out is not for a shard: the Job gives pod i --out /out/shard-i on the claim (--claim names another)\n"},
		{[]string{"--shards", "2", "--", "--backend", "docker"}, "after --: --backend is not for a shard: the pods run on the local backend"},
		{[]string{"--shards", "2", "--", "--shard-by", "old/results.json"}, "after --: --shard-by is not for a shard: it reads an earlier sweep's results on this machine, which the pods do not have\n"},
		{[]string{"--shards", "2", "--", "--runs", "2", "other.yaml"}, `toolscore kube: after --: "other.yaml" is not a flag: the scenario goes before --, and only toolscore run flags after it` + "\n"},
		{[]string{"--shards", "2", "--", "--runs", "0"}, "toolscore kube: after --: --runs 0: must be 1 or more (leave it out for the default)\n"},
		{[]string{"--shards", "2", "--", "--retries", "3"}, "toolscore kube: after --: flag provided but not defined: -retries (only these toolscore run flags: --clients, --faults, --schema, --protocols, --transports, --tools, --runs, --max-runs, --parallel)\n"},
		{[]string{"--shards", "4294967297"}, "toolscore kube: --shards 4294967297: want 1 to 100000 (the most indexes an Indexed Job takes)\n"},
		{[]string{"--shards", "100001"}, "toolscore kube: --shards 100001: want 1 to 100000"},
		{[]string{"--shards", "0"}, "toolscore kube: --shards 0: want 1 to 100000"},
		{[]string{"--shards", "2", "--name", "Sweep_1"}, `toolscore kube: --name: the Job's name "Sweep_1" is not a valid Kubernetes name: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'`},
		{[]string{"--shards", "2", "--name", strings.Repeat("a", 60)}, `toolscore kube: --name: the merge Job's name "` + strings.Repeat("a", 60) + `-merge" is not a valid Kubernetes name: must be no more than 63 characters` + "\n"},
		{[]string{"--shards", "2", "--namespace", "team.a"}, `toolscore kube: --namespace "team.a" is not a valid Kubernetes name: must not contain dots` + "\n"},
		{[]string{"--shards", "2", "--claim", "Out Claim"}, `toolscore kube: --claim "Out Claim" is not a valid Kubernetes name: a lowercase RFC 1123 subdomain`},
		{[]string{"--shards", "2", "--cpu", "2 cores"}, `toolscore kube: --cpu "2 cores": want a Kubernetes quantity above 0`},
		{[]string{"--shards", "2", "--memory", "-1Gi"}, `toolscore kube: --memory "-1Gi": want a Kubernetes quantity above 0`},
		{[]string{"--shards", "2", "--pull", "never"}, `toolscore kube: --pull "never": want IfNotPresent`},
		{[]string{"--shards", "2", "--storage-class", "NFS"}, `toolscore kube: --storage-class "NFS" is not a valid Kubernetes name`},
		{[]string{"--shards", "2", "--claim", "mine", "--storage-class", "nfs"}, "toolscore kube: --storage-class is the class of the claim toolscore writes; --claim names one you made, with its own class\n"},
	} {
		stdout, stderr, code := toolscore(t, tmp, append(job, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr:\n%s\nwant exit 2, nothing written, and %q", c.args, code, len(stdout), stderr, c.want)
		}
	}
	if _, stderr, code := toolscore(t, tmp, append(job, "--shards", "100000", "--name", strings.Repeat("a", 57), "--", "--runs", "2", "--clients=raw")...); code != 0 {
		t.Errorf("the largest Job Kubernetes takes is refused: exit %d\n%s", code, stderr)
	}
	// A manifest whose file name is no ConfigMap key.
	writeFile(t, filepath.Join(tmp, "my sweep.yaml"), kubeManifest)
	if _, stderr, code := toolscore(t, tmp, "kube", "job", "my sweep.yaml", "--image", "x", "--shards", "2"); code != 2 || !strings.Contains(stderr, `the manifest's file name "my sweep.yaml" cannot be a ConfigMap key: a valid config key must consist of alphanumeric characters, '-', '_' or '.'`) {
		t.Errorf("a manifest named with a space: exit %d\n%s", code, stderr)
	}
	// A defined client's folder larger than a ConfigMap takes.
	own := writeManifest(t, map[string]string{
		"own.yaml":   ownHead + "clients:\n  - name: acme\n    runtime: binary\n    command: [./adapter.sh]\nruns: 1\n",
		"adapter.sh": "#!/bin/sh\nexec toolscore client raw\n",
		"data.txt":   strings.Repeat("x", 1<<20),
	})
	if _, stderr, code := toolscore(t, own, "kube", "job", "own.yaml", "--image", "x", "--shards", "2"); code != 2 ||
		!strings.Contains(stderr, "toolscore kube: the manifest's folder, which its defined clients' files come from, holds 1048") ||
		!strings.Contains(stderr, " bytes, more than a ConfigMap takes (1048576): keep in the folder only what the client installs from\n") {
		t.Errorf("a folder over 1 MiB: exit %d\n%s", code, stderr)
	}
}

// TestKubeRunFlagsAllSorted: every toolscore run flag is either passed to the shards after --
// or refused there with a reason, so a new run flag is decided on, not passed by default.
func TestKubeRunFlagsAllSorted(t *testing.T) {
	stdout, stderr, _ := toolscore(t, "", "run", "-h")
	usage := stdout + stderr
	n := 0
	for _, line := range strings.Split(usage, "\n") {
		f, ok := strings.CutPrefix(line, "  -")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(f, " ")
		n++
		if _, refused := jobRunFlags[name]; !refused && !strings.Contains(","+strings.Join(passRunFlags, ",")+",", ","+name+",") {
			t.Errorf("toolscore run --%s is neither passed to a shard nor refused by toolscore kube job", name)
		}
	}
	if n < 10 {
		t.Fatalf("read %d flags from toolscore run -h:\n%s", n, usage)
	}
}

// TestKubeJobDefinedClient: a manifest that defines its own client (an adapter in a subfolder
// beside it, executable) sweeps in the pods: the Job's ConfigMap carries the manifest's folder
// and its volume's items put each file back at its path, executable where it was. The pods
// are simulated on this machine: the ConfigMap's volume laid out as the kubelet lays it out
// (the files in a hidden timestamped folder behind ..data, the top-level names links into it),
// the Job's script run for each index with the Job's environment, then the merge Job's.
func TestKubeJobDefinedClient(t *testing.T) {
	bin, err := buildStatic()
	if err != nil {
		t.Skipf("no static build: %v", err)
	}
	path := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(path, "toolscore")); err != nil {
		t.Fatal(err)
	}
	dir := writeManifest(t, map[string]string{
		"own.yaml": ownHead + "clients:\n  - raw\n  - name: acme\n    runtime: binary\n    command: [./harness/acme.sh]\nruns: 1\n",
	})
	writeFile(t, filepath.Join(dir, "harness", "acme.sh"), "#!/bin/sh\n# the raw client, run as a client of the manifest's own\nexec toolscore client raw\n")
	if err := os.Chmod(filepath.Join(dir, "harness", "acme.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := toolscore(t, dir, "kube", "job", "own.yaml", "--shards", "2", "--image", "x")
	if code != 0 {
		t.Fatalf("kube job: exit %d\n%s", code, stderr)
	}
	objs := kubeObjects(t, stdout)
	job, cm := objs["Job"].(*batchv1.Job), objs["ConfigMap"].(*corev1.ConfigMap)
	// The kubelet's layout of the ConfigMap volume.
	volume, out, work := t.TempDir(), t.TempDir(), t.TempDir()
	stamp := filepath.Join(volume, "..2026_01_01_00_00_00.000000001")
	var items []corev1.KeyToPath
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil {
			items = v.ConfigMap.Items
		}
	}
	if len(items) == 0 {
		t.Fatalf("the ConfigMap's volume maps no items; the ConfigMap holds %v", cm.Data)
	}
	for _, it := range items {
		mode := os.FileMode(0o644)
		if it.Mode != nil {
			mode = os.FileMode(*it.Mode)
		}
		data, ok := cm.Data[it.Key]
		if !ok {
			data = string(cm.BinaryData[it.Key])
		}
		p := filepath.Join(stamp, filepath.FromSlash(it.Path))
		writeFile(t, p, data)
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		top, _, _ := strings.Cut(it.Path, "/")
		_ = os.Symlink(filepath.Join("..data", top), filepath.Join(volume, top))
	}
	if err := os.Symlink(filepath.Base(stamp), filepath.Join(volume, "..data")); err != nil {
		t.Fatal(err)
	}
	mounts := strings.NewReplacer("/work/", work+"/", "/scenario", volume, "/out", out)
	pod := func(script string, env ...string) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", mounts.Replace(script))
		cmd.Dir = work
		cmd.Env = append(env, "HOME="+work, "TMPDIR="+work, "PATH="+path+":/usr/bin:/bin")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the pod failed: %v\n%s", err, b)
		}
	}
	script := job.Spec.Template.Spec.Containers[0].Command[2]
	for i := range 2 {
		pod(script, "JOB_COMPLETION_INDEX="+string(rune('0'+i)))
	}
	stdout, stderr, code = toolscore(t, dir, "kube", "merge", "own.yaml", "--shards", "2", "--image", "x")
	if code != 0 {
		t.Fatalf("kube merge: exit %d\n%s", code, stderr)
	}
	pod(kubeObjects(t, stdout)["Job"].(*batchv1.Job).Spec.Template.Spec.Containers[0].Command[2])
	res := readResultsDir(t, filepath.Join(out, "merged"))
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells merged, want 2", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Runs != 1 || c.Outcome["passed"] != 1 {
			t.Errorf("%s: %d runs, %s; want passed 1/1 (evidence %v)", c.Client, c.Runs, c.Counts(), c.Examples)
		}
	}

}
