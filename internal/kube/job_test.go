package kube

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/toolscore/toolscore/internal/install"
)

const manifest = "name: kube sweep\nserver: {builtin: ledger}\n"

func sweep(args ...string) Sweep {
	return Sweep{Name: "toolscore", Image: "toolscore/pod:1", Shards: 2, Manifest: []byte(manifest), ManifestName: "sweep.yaml", Args: args}
}

// guard runs a shard pod's check of its claim with sh, for real, on a folder standing for the
// claim: its exit code and what it said.
func guard(t *testing.T, claim string, s Sweep, index int) (int, string) {
	t.Helper()
	script := strings.ReplaceAll(s.claimGuard(), OutDir+"/", claim+"/") + "echo claimed\n"
	cmd := exec.Command("sh", "-c", "set -eu\n"+script)
	cmd.Env = append(os.Environ(), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", index))
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		code = err.(*exec.ExitError).ExitCode()
	}
	return code, string(out)
}

// TestClaimHoldsOneSweep: a claim records the sweep its first pod ran, and a pod of another
// sweep (other manifest, folder, run flags or shard count: what decides a shard's runs) refuses
// it with ExitRefused and a message in its log, instead of resuming the old shards as its own;
// the same sweep applied again, and any sweep with Resume, goes on. A claim with shards and no
// record is refused too.
func TestClaimHoldsOneSweep(t *testing.T) {
	claim := t.TempDir()
	first := sweep("--runs", "1")
	if code, out := guard(t, claim, first, 0); code != 0 || out != "claimed\n" {
		t.Fatalf("a new claim: exit %d\n%s", code, out)
	}
	os.MkdirAll(filepath.Join(claim, "shard-0"), 0o755)
	if code, out := guard(t, claim, first, 1); code != 0 || out != "claimed\n" {
		t.Fatalf("the same sweep's other pod: exit %d\n%s", code, out)
	}
	moreShards := first
	moreShards.Shards = 3
	otherManifest := first
	otherManifest.Manifest = []byte(manifest + "runs: 2\n")
	withFolder := first
	withFolder.Folder = map[string]install.File{"adapter.sh": {Data: []byte("#!/bin/sh\n"), Exec: true}}
	for what, other := range map[string]Sweep{
		"other run flags": sweep("--runs", "2"), "another shard count": moreShards,
		"another manifest": otherManifest, "a folder": withFolder,
	} {
		if other.ID() == first.ID() {
			t.Errorf("%s: the same ID %s", what, other.ID())
		}
		code, out := guard(t, claim, other, 0)
		want := fmt.Sprintf("toolscore: the claim toolscore-out holds another sweep (%s), not this one (%s): its shards would be resumed as this sweep's.", first.ID(), other.ID())
		if code != ExitRefused || !strings.HasPrefix(out, want) || strings.Contains(out, "claimed") {
			t.Errorf("%s: exit %d\n%s\nwant %d and %q", what, code, out, ExitRefused, want)
		}
		other.Resume = true
		if code, out := guard(t, claim, other, 0); code != 0 || out != "claimed\n" {
			t.Errorf("%s with Resume: exit %d\n%s", what, code, out)
		}
	}
	// Neither the Job's name, image, resources nor pull policy is part of what a shard runs.
	same := first
	same.Name, same.Image, same.CPU, same.PullPolicy = "other", "other:2", "4", corev1.PullNever
	if same.ID() != first.ID() {
		t.Errorf("the ID changed with the name, image or resources: %s, %s", same.ID(), first.ID())
	}

	old := t.TempDir()
	os.MkdirAll(filepath.Join(old, "shard-1"), 0o755)
	if code, out := guard(t, old, first, 0); code != ExitRefused || !strings.Contains(out, "holds shards of a sweep with no record of what it is") {
		t.Errorf("a claim with shards and no record: exit %d\n%s", code, out)
	}
}

// TestClaimFirstPodsAtOnce: pods that start together on a new claim record one sweep, and a
// sweep's pods all go on while another's, started with them, are refused.
func TestClaimFirstPodsAtOnce(t *testing.T) {
	claim := t.TempDir()
	a, b := sweep("--runs", "1"), sweep("--runs", "2")
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range codes {
		wg.Go(func() {
			s := a
			if i%2 == 1 {
				s = b
			}
			codes[i], _ = guard(t, claim, s, i)
		})
	}
	wg.Wait()
	rec, err := os.ReadFile(filepath.Join(claim, "toolscore-sweep"))
	if err != nil {
		t.Fatal(err)
	}
	winner := 0
	if strings.TrimSpace(string(rec)) == b.ID() {
		winner = 1
	}
	for i, code := range codes {
		if want := map[bool]int{true: 0, false: ExitRefused}[i%2 == winner]; code != want {
			t.Errorf("pod %d exited %d, want %d (the claim records %s)", i, code, want, rec)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(claim, "toolscore-sweep.*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestJobFailsAtTheRightLevel: a shard that exits with a verdict (1) or a usage error (2, a
// claim of another sweep among them) fails its index at once, since a retry fails the same way;
// an evicted pod is run again without using the index's one retry.
func TestJobFailsAtTheRightLevel(t *testing.T) {
	spec := sweep().Job().Spec
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex != 1 || spec.PodFailurePolicy == nil {
		t.Fatalf("the Job's retries: %+v", spec)
	}
	rules := spec.PodFailurePolicy.Rules
	if len(rules) != 2 {
		t.Fatalf("rules: %+v", rules)
	}
	codes := rules[0].OnExitCodes
	if rules[0].Action != batchv1.PodFailurePolicyActionFailIndex || codes == nil || *codes.ContainerName != spec.Template.Spec.Containers[0].Name ||
		codes.Operator != batchv1.PodFailurePolicyOnExitCodesOpIn || fmt.Sprint(codes.Values) != "[1 2]" {
		t.Errorf("the verdict's rule: %+v %+v", rules[0], codes)
	}
	if r := rules[1]; r.Action != batchv1.PodFailurePolicyActionIgnore || len(r.OnPodConditions) != 1 || r.OnPodConditions[0].Type != corev1.DisruptionTarget {
		t.Errorf("the eviction's rule: %+v", r)
	}
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("a pod failure policy needs restartPolicy Never, got %s", spec.Template.Spec.RestartPolicy)
	}
}

// TestWhatTheClusterProvides: the claim's storage class (none said: the cluster's default; ""
// a volume of no class, as a hostPath made by hand), each pod's requests (1 CPU and 2 GiB
// unless told, a memory limit of twice the request) and a pull policy that runs an image
// loaded into the node whatever its tag; what Kubernetes would refuse is refused by Check.
func TestWhatTheClusterProvides(t *testing.T) {
	s := sweep()
	if c := s.claim(); c.Spec.StorageClassName != nil {
		t.Errorf("no --storage-class: the claim names %q", *c.Spec.StorageClassName)
	}
	none, fast := "", "nfs-rwx"
	for _, class := range []*string{&none, &fast} {
		s.StorageClass = class
		if c := s.claim(); c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != *class {
			t.Errorf("--storage-class %q: the claim names %v", *class, c.Spec.StorageClassName)
		}
	}
	c := s.Job().Spec.Template.Spec.Containers[0]
	if c.ImagePullPolicy != corev1.PullIfNotPresent || c.Resources.Requests.Cpu().String() != "1" ||
		c.Resources.Requests.Memory().String() != "2Gi" || c.Resources.Limits.Memory().String() != "4Gi" || c.Resources.Limits.Cpu().String() != "0" {
		t.Errorf("the defaults: pull %s, requests %v, limits %v", c.ImagePullPolicy, c.Resources.Requests, c.Resources.Limits)
	}
	s.CPU, s.Memory, s.PullPolicy = "500m", "768Mi", corev1.PullNever
	c = s.Job().Spec.Template.Spec.Containers[0]
	if c.ImagePullPolicy != corev1.PullNever || c.Resources.Requests.Cpu().String() != "500m" || c.Resources.Limits.Memory().String() != "1536Mi" {
		t.Errorf("500m, 768Mi, Never: pull %s, requests %v, limits %v", c.ImagePullPolicy, c.Resources.Requests, c.Resources.Limits)
	}
	if m := s.MergeJob().Spec.Template.Spec.Containers[0]; m.ImagePullPolicy != corev1.PullNever || m.Resources.Requests.Cpu().String() != "500m" {
		t.Errorf("the merge pod: %+v", m)
	}
	if err := s.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	bad := "Fast_Disks"
	s.CPU, s.Memory, s.PullPolicy, s.StorageClass = "two", "0", "Sometimes", &bad
	want := []string{
		`--storage-class "Fast_Disks" is not a valid Kubernetes name`,
		`--cpu "two": want a Kubernetes quantity above 0`,
		`--memory "0": want a Kubernetes quantity above 0`,
		`--pull "Sometimes": want IfNotPresent`,
	}
	err := s.Check()
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Check: %v\nwant %q", err, w)
		}
	}
}
