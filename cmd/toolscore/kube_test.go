package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/tally"
)

// kubeManifest is the sweep the Kubernetes tests write as a Job: outcomes that differ by client
// and fault, every one of them certain, so the shards' merged counts can be compared exactly.
const kubeManifest = `name: kube sweep
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap, rpc-error]
schema_modes: [published]
protocols: [2026-07-28]
clients: [raw, go-sdk/call, python-sdk/call, ts-sdk/call]
runs: 1
`

// kubeObjects is toolscore kube's YAML stream split into its documents, each decoded strictly
// (an unknown field fails) into the official type its kind names.
func kubeObjects(t *testing.T, stream string) map[string]any {
	t.Helper()
	objs := map[string]any{}
	for _, doc := range strings.Split(stream, "\n---\n") {
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("a document that is no YAML: %v\n%s", err, doc)
		}
		var into any
		switch head.Kind {
		case "Job":
			into = &batchv1.Job{}
		case "ConfigMap":
			into = &corev1.ConfigMap{}
		case "PersistentVolumeClaim":
			into = &corev1.PersistentVolumeClaim{}
		case "NetworkPolicy":
			into = &networkingv1.NetworkPolicy{}
		default:
			t.Fatalf("a document of kind %q:\n%s", head.Kind, doc)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("the %s does not decode strictly into its k8s.io/api type: %v\n%s", head.Kind, err, doc)
		}
		objs[head.Kind] = into
	}
	return objs
}

// TestKubeJobDecodesStrictly: toolscore kube job writes a batch/v1 Indexed Job (one index a
// shard, retried once, no index stopping the others) whose pods have no token, no Docker socket
// and no way out, with the manifest in a ConfigMap, and toolscore kube merge the Job after it.
func TestKubeJobDecodesStrictly(t *testing.T) {
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "sweep.yaml"), kubeManifest)
	stdout, stderr, code := toolscore(t, tmp, "kube", "job", "sweep.yaml", "--shards", "3", "--image", "registry.example/toolscore-pod:1", "--parallelism", "2", "--", "--runs", "2")
	if code != 0 {
		t.Fatalf("kube job: exit %d\n%s", code, stderr)
	}
	objs := kubeObjects(t, stdout)
	job := objs["Job"].(*batchv1.Job)
	s := job.Spec
	if !strings.Contains(stderr, "toolscore kube: the NetworkPolicy toolscore-no-network cuts the pods off only where the cluster's network plugin enforces policies") {
		t.Errorf("kube job does not say what the NetworkPolicy needs of the cluster:\n%s", stderr)
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 3 || *s.Parallelism != 2 ||
		s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 1 || s.MaxFailedIndexes == nil || *s.MaxFailedIndexes != 3 {
		t.Errorf("the Job's spec: %+v", s)
	}
	pod := s.Template.Spec
	c := pod.Containers[0]
	script := strings.Join(c.Command, " ")
	for _, want := range []string{"--shard $(( JOB_COMPLETION_INDEX + 1 ))/3", "--backend local", "'/scenario/sweep.yaml'", "--out /out/shard-$JOB_COMPLETION_INDEX", "'--runs' '2'", "--resume /out/shard-$JOB_COMPLETION_INDEX"} {
		if !strings.Contains(script, want) {
			t.Errorf("the pod's command lacks %q: %s", want, script)
		}
	}
	if *pod.AutomountServiceAccountToken || *pod.EnableServiceLinks || !*pod.SecurityContext.RunAsNonRoot || pod.RestartPolicy != corev1.RestartPolicyNever ||
		*c.SecurityContext.AllowPrivilegeEscalation || c.SecurityContext.Capabilities.Drop[0] != "ALL" {
		t.Errorf("the pod is not hardened: %+v", pod)
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			t.Errorf("the pod mounts a host path (a Docker socket?): %+v", v)
		}
	}
	for _, e := range c.Env {
		if e.Name != "HOME" && e.Name != "TMPDIR" {
			t.Errorf("the pod's environment has %s: a run sees only what the sweep defines", e.Name)
		}
	}
	if cm := objs["ConfigMap"].(*corev1.ConfigMap); cm.Data["sweep.yaml"] != kubeManifest {
		t.Errorf("the ConfigMap holds %q", cm.Data)
	}
	np := objs["NetworkPolicy"].(*networkingv1.NetworkPolicy)
	if !maps.Equal(np.Spec.PodSelector.MatchLabels, job.Spec.Template.Labels) || len(np.Spec.PolicyTypes) != 2 || np.Spec.Egress != nil || np.Spec.Ingress != nil {
		t.Errorf("the NetworkPolicy does not cut the pods off: %+v", np.Spec)
	}
	if pvc := objs["PersistentVolumeClaim"].(*corev1.PersistentVolumeClaim); pvc.Spec.AccessModes[0] != corev1.ReadWriteMany || pvc.Spec.StorageClassName != nil {
		t.Errorf("the claim: %+v", pvc.Spec)
	}
	// A pod asks for 1 CPU unless told (2 made a 2-CPU node run one shard at a time), and runs
	// an image loaded into the node whatever its tag; a shard's verdict fails its index at once.
	if c.ImagePullPolicy != corev1.PullIfNotPresent || c.Resources.Requests.Cpu().String() != "1" || c.Resources.Requests.Memory().String() != "2Gi" ||
		s.PodFailurePolicy == nil || s.PodFailurePolicy.Rules[0].Action != batchv1.PodFailurePolicyActionFailIndex {
		t.Errorf("the pod's pull policy %s, requests %v; the Job's failure policy %+v", c.ImagePullPolicy, c.Resources.Requests, s.PodFailurePolicy)
	}
	stdout, stderr, code = toolscore(t, tmp, "kube", "job", "sweep.yaml", "--shards", "3", "--image", "x:1", "--storage-class", "", "--cpu", "250m", "--memory", "1Gi", "--pull", "Never", "--resume")
	if code != 0 {
		t.Fatalf("kube job with a cluster's settings: exit %d\n%s", code, stderr)
	}
	objs = kubeObjects(t, stdout)
	c = objs["Job"].(*batchv1.Job).Spec.Template.Spec.Containers[0]
	if pvc := objs["PersistentVolumeClaim"].(*corev1.PersistentVolumeClaim); pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName != "" ||
		c.ImagePullPolicy != corev1.PullNever || c.Resources.Requests.Cpu().String() != "250m" || c.Resources.Limits.Memory().String() != "2Gi" ||
		strings.Contains(strings.Join(c.Command, " "), "toolscore-sweep") {
		t.Errorf("--storage-class \"\" --cpu 250m --memory 1Gi --pull Never --resume: class %v, pull %s, resources %v, command %s",
			pvc.Spec.StorageClassName, c.ImagePullPolicy, c.Resources, c.Command)
	}

	stdout, stderr, code = toolscore(t, tmp, "kube", "merge", "sweep.yaml", "--shards", "3", "--image", "registry.example/toolscore-pod:1")
	if code != 0 {
		t.Fatalf("kube merge: exit %d\n%s", code, stderr)
	}
	merge := kubeObjects(t, stdout)["Job"].(*batchv1.Job)
	if got := strings.Join(merge.Spec.Template.Spec.Containers[0].Command, " "); !strings.Contains(got, "toolscore merge --out /out/merged /out/shard-*") {
		t.Errorf("the merge Job runs %s", got)
	}

	for _, bad := range [][]string{
		{"kube", "job", "--shards", "0", "--image", "x"},
		{"kube", "job", "--shards", "2"},
		{"kube", "merge", "--shards", "2", "--image", "x", "--", "--runs", "1"},
		{"kube", "merge", "--shards", "2", "--image", "x", "--resume"},
		{"kube", "pods"},
	} {
		if _, stderr, code := toolscore(t, tmp, bad...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and why", bad, code, stderr)
		}
	}
}

// TestKubeJobOnDocker simulates the cluster on the local engine: it builds the pod image
// (kube/Dockerfile), then runs it once per index of the Job toolscore kube job wrote, with that
// index's JOB_COMPLETION_INDEX and exactly the Job's command, environment, user and mounts (a
// directory for the claim, one for the ConfigMap, one for the emptyDir), network none, then the
// merge Job's pod. The merged counts are those of the same sweep unsharded in the same image.
func TestKubeJobOnDocker(t *testing.T) {
	api := engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	ctx := context.Background()
	tag := buildPodImage(t, api)

	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "sweep.yaml"), kubeManifest)
	const shards = 2
	stdout, stderr, code := toolscore(t, tmp, "kube", "job", "sweep.yaml", "--shards", fmt.Sprint(shards), "--image", tag)
	if code != 0 {
		t.Fatalf("kube job: exit %d\n%s", code, stderr)
	}
	objs := kubeObjects(t, stdout)
	job, cm := objs["Job"].(*batchv1.Job), objs["ConfigMap"].(*corev1.ConfigMap)
	claim, scenarioDir := filepath.Join(tmp, "claim"), filepath.Join(tmp, "configmap")
	for _, d := range []string{claim, scenarioDir} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777) // the pod's user, uid 1000, writes the claim as fsGroup lets it
	}
	for k, v := range cm.Data {
		writeFile(t, filepath.Join(scenarioDir, k), v)
	}
	pod := func(name string, spec corev1.PodSpec, env ...string) {
		t.Helper()
		c := spec.Containers[0]
		work := t.TempDir()
		os.Chmod(work, 0o777)
		binds := []string{}
		for _, m := range c.VolumeMounts {
			switch m.Name {
			case "out":
				binds = append(binds, claim+":"+m.MountPath)
			case "scenario":
				binds = append(binds, scenarioDir+":"+m.MountPath+":ro")
			case "work":
				binds = append(binds, work+":"+m.MountPath)
			default:
				t.Fatalf("a volume the simulation does not know: %s", m.Name)
			}
		}
		for _, e := range c.Env {
			env = append(env, e.Name+"="+e.Value)
		}
		uid := *spec.SecurityContext.RunAsUser
		created, err := api.ContainerCreate(ctx, &container.Config{
			Image: c.Image, Entrypoint: c.Command, Env: env, WorkingDir: c.WorkingDir, User: fmt.Sprintf("%d:%d", uid, uid),
			Labels: map[string]string{docker.LabelMarker: "1"},
		}, &container.HostConfig{NetworkMode: "none", Binds: binds, CapDrop: []string{"ALL"}, SecurityOpt: []string{"no-new-privileges"}}, nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		defer api.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
		waitPod(t, api, created.ID, name)
	}
	for i := range shards {
		pod(fmt.Sprintf("index %d", i), job.Spec.Template.Spec, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i))
	}
	stdout, stderr, code = toolscore(t, tmp, "kube", "merge", "sweep.yaml", "--shards", fmt.Sprint(shards), "--image", tag)
	if code != 0 {
		t.Fatalf("kube merge: exit %d\n%s", code, stderr)
	}
	merge := kubeObjects(t, stdout)["Job"].(*batchv1.Job)
	pod("merge", merge.Spec.Template.Spec)
	// The same sweep, unsharded, in the same image.
	whole := job.Spec.Template.Spec.DeepCopy()
	whole.Containers[0].Command = []string{"/bin/sh", "-c", "exec toolscore run /scenario/sweep.yaml --backend local --fail-on never --out /out/whole"}
	pod("unsharded", *whole)

	got := sameCells(t, filepath.Join(claim, "merged"), filepath.Join(claim, "whole"))
	// The outcomes are the clients' own, as docs/ledger-results.json records them on docker:
	// with the schema published, type-swap makes the Python SDK throw and passes the rest.
	for _, c := range got.Cells {
		want := "passed"
		switch {
		case c.Fault == "rpc-error":
			want = "rpc-error"
		case c.Fault == "type-swap" && c.Client == "python-sdk/call":
			want = "threw"
		}
		if c.Outcome[want] != 1 {
			t.Errorf("%s: %v, want %s", c.Key(), c.Outcome, want)
		}
	}
}

// sameCells reads the results of two sweeps of kubeManifest, got and want, and fails unless
// both have its 12 cells, each run once, none unavailable, with the same outcomes cell for cell.
func sameCells(t *testing.T, got, want string) *tally.Results {
	t.Helper()
	var res [2]*tally.Results
	for i, dir := range []string{got, want} {
		r, err := outdir.ReadResults(filepath.Join(dir, "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cells) != 12 || len(r.Unavailable) > 0 {
			t.Fatalf("%s: %d cells (unavailable %v); want 12", dir, len(r.Cells), r.Unavailable)
		}
		res[i] = r
	}
	for i, w := range res[1].Cells {
		g := res[0].Cells[i]
		if g.Key() != w.Key() || g.Runs != 1 || w.Runs != 1 || !maps.Equal(g.Outcome, w.Outcome) {
			t.Errorf("cell %d: %s %s %v, %s %s %v", i, got, g.Key(), g.Outcome, want, w.Key(), w.Outcome)
		}
	}
	return res[0]
}

// buildPodImage builds toolscore's pod image (kube/Dockerfile) with the clients of kubeManifest,
// on Debian's python and this machine's node (HOST_NODE), the runtimes of every client here.
func buildPodImage(t *testing.T, api *client.Client) string {
	t.Helper()
	mk := exec.Command("../../scripts/base-image.sh", "toolscore/base-pod:bookworm", "python3,python3-venv,ca-certificates,libstdc++6")
	mk.Env = append(os.Environ(), "HOST_NODE=1")
	base, err := mk.Output()
	if err != nil {
		t.Fatalf("making the pod's base image: %v", err)
	}
	goImage, err := exec.Command("../../scripts/go-image.sh", "toolscore/go:local").Output()
	if err != nil {
		t.Fatalf("making the Go toolchain image: %v", err)
	}
	proxyURL, _ := exec.Command("go", "env", "GOPROXY").Output()
	tag := "toolscore/pod:test"
	buildImageFile(t, api, "../..", "kube/Dockerfile", tag, map[string]string{
		"GO_IMAGE": strings.TrimSpace(string(goImage)), "BASE_IMAGE": strings.TrimSpace(string(base)),
		"GOPROXY": strings.TrimSpace(string(proxyURL)), "CLIENTS": "raw,go-sdk/call,python-sdk/call,ts-sdk/call",
	})
	return tag
}

// waitPod waits for a simulated pod to exit 0, failing with its log.
func waitPod(t *testing.T, api *client.Client, id, name string) {
	t.Helper()
	ctx := context.Background()
	waitCh, errCh := api.ContainerWait(ctx, id, container.WaitConditionNextExit)
	if err := api.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-waitCh:
		if w.StatusCode != 0 {
			var logs bytes.Buffer
			if rc, err := api.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true}); err == nil {
				logs.ReadFrom(rc)
				rc.Close()
			}
			t.Fatalf("the %s pod exited %d:\n%s", name, w.StatusCode, logs.String())
		}
	case err := <-errCh:
		t.Fatal(err)
	case <-time.After(5 * time.Minute):
		t.Fatalf("the %s pod did not finish in 5 minutes", name)
	}
}
