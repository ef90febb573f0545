package kube

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/install"
)

// Where the pods find their inputs and write their outputs.
const (
	OutDir      = "/out"      // the claim every pod mounts: shard-0, shard-1, ..., merged
	ScenarioDir = "/scenario" // the ConfigMap with the manifest, when the sweep has one
	workDir     = "/work"     // an emptyDir: the runs' HOME and TMPDIR, which the local backend writes
	// folderDir is where a pod copies the manifest's folder out of the ConfigMap's volume,
	// whose files are links into a hidden folder that an install does not copy.
	folderDir = workDir + "/scenario"
)

// Limits of what Kubernetes accepts, so an object it would refuse is refused here instead.
const (
	// MaxShards is the most completions (and failed indexes, which a Job here allows as many
	// of) an Indexed Job may have with backoffLimitPerIndex set (the API's validation).
	MaxShards = 100_000
	// maxConfigMap is the most bytes a ConfigMap's data and binaryData may hold together.
	maxConfigMap = 1 << 20
)

// Sweep is what a Job sweeps and where: the flags of toolscore kube job.
type Sweep struct {
	Name      string // the Job's name, and the prefix of every other object's
	Namespace string // "" is kubectl's current one
	Image     string // toolscore's pod image, with every client's runtime and the install cache
	Shards    int
	// Parallelism is how many pods run at once; 0 is every shard at once.
	Parallelism int
	// Manifest is the scenario manifest's bytes and file name; nil sweeps the embedded one.
	Manifest     []byte
	ManifestName string
	// Folder is the rest of the manifest's folder, by slash-separated path, when the manifest
	// defines a client (whose files are the folder's): it goes in the ConfigMap beside the
	// manifest, and each pod copies it out before the sweep loads.
	Folder map[string]install.File
	// Args are more toolscore run flags, the same for every shard (--runs, --clients, ...).
	Args []string
	// Claim is an existing ReadWriteMany PersistentVolumeClaim for the outputs; "" makes one.
	Claim string
	// StorageClass is the written claim's class; nil leaves it to the cluster's default class,
	// "" asks for a volume of no class (one made by hand, as a hostPath on a single node).
	StorageClass *string
	// CPU and Memory are what each pod requests ("" is DefaultCPU, DefaultMemory); its memory
	// limit is twice the request.
	CPU, Memory string
	// PullPolicy is the pods' image pull policy; "" is IfNotPresent, which also runs an image
	// loaded into the nodes (kind load, ctr import) whatever its tag.
	PullPolicy corev1.PullPolicy
	// Resume lets the pods continue the sweep their claim holds even when it is not this one
	// (another manifest, run flags or shard count): each shard resumes as it was recorded.
	Resume bool
}

// What a pod requests unless told: a shard runs one cell at a time per CPU it is given.
const (
	DefaultCPU    = "1"
	DefaultMemory = "2Gi"
)

// ExitRefused is a pod's exit when its claim holds another sweep: a usage error, which the
// pod failure policy does not retry.
const ExitRefused = 2

// Objects are the sweep's Kubernetes objects, in the order to apply them.
func (s Sweep) Objects() []any {
	var objs []any
	if s.Claim == "" {
		objs = append(objs, s.claim())
	}
	if s.Manifest != nil {
		objs = append(objs, s.configMap())
	}
	return append(objs, s.networkPolicy(), s.Job())
}

// Job is the Indexed Job: pod i runs shard i+1 of Shards on the local backend (the pod is the
// sandbox: no Docker socket), writing OutDir/shard-i. A failed index is retried once and does
// not stop the others; the merge then says which shard is missing, and that shard is run again
// alone.
func (s Sweep) Job() *batchv1.Job {
	run := []string{"toolscore", "run"}
	switch {
	case s.Folder != nil:
		run = append(run, quoteAll([]string{path.Join(folderDir, s.manifestFile())})...)
	case s.Manifest != nil:
		run = append(run, quoteAll([]string{path.Join(ScenarioDir, s.manifestFile())})...)
	}
	run = append(run, "--backend", "local", "--fail-on", "never", "--shard", "$(( JOB_COMPLETION_INDEX + 1 ))/"+strconv.Itoa(s.Shards),
		"--out", OutDir+"/shard-$JOB_COMPLETION_INDEX")
	run = append(run, quoteAll(s.Args)...)
	// --resume continues a shard whose pod was killed, from the runs it wrote; a new shard starts.
	script := fmt.Sprintf(`set -eu
%[4]s%[3]sif [ -f %[1]s/shard-$JOB_COMPLETION_INDEX/sweep.json ]; then exec toolscore run --resume %[1]s/shard-$JOB_COMPLETION_INDEX --fail-on never; fi
exec %[2]s`, OutDir, strings.Join(run, " "), s.copyFolder(), s.claimGuard())
	parallelism := int32(s.Shards)
	if s.Parallelism > 0 {
		parallelism = int32(min(s.Parallelism, s.Shards))
	}
	completions, retries, failed := int32(s.Shards), int32(1), int32(s.Shards)
	indexed := batchv1.IndexedCompletion
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.Name),
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          &completions,
			Parallelism:          &parallelism,
			BackoffLimitPerIndex: &retries,
			MaxFailedIndexes:     &failed,
			PodFailurePolicy:     failurePolicy(),
			Template:             s.pod(script),
		},
	}
}

// failurePolicy retries what a retry can mend and nothing else: a shard that exits 1 (a
// verdict: what it checked did not hold) or 2 (a bad flag or manifest, a setup that failed, a
// claim that holds another sweep) fails the same way again, so its index fails at once; a pod
// evicted or preempted is run again without counting against the index's retry.
func failurePolicy() *batchv1.PodFailurePolicy {
	container := "toolscore"
	return &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
			ContainerName: &container, Operator: batchv1.PodFailurePolicyOnExitCodesOpIn,
			Values: []int32{exitcode.Unmet, exitcode.Usage},
		}},
		{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
			{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
		}},
	}}
}

// sweepFile is where a claim records the sweep it holds, so that a Job of another sweep applied
// on it (the default --name gives the same claim) does not resume the old shards as its own.
const sweepFile = OutDir + "/toolscore-sweep"

// ID names the sweep a claim holds: its manifest (and folder), run flags and shard count, the
// things that decide which runs a shard makes. The Job's name, image and resources do not.
func (s Sweep) ID() string {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		Manifest []byte
		Name     string
		Folder   map[string]install.File
		Args     []string
		Shards   int
	}{s.Manifest, s.manifestFile(), s.Folder, s.Args, s.Shards})
	h.Write(b)
	return fmt.Sprintf("%x (%d shards)", h.Sum(nil)[:8], s.Shards)
}

// claimGuard is a shard's check that the claim holds this sweep: the first pod records the
// sweep's ID (a link, so that two pods starting at once cannot both write it), and a pod of
// another sweep stops there, saying so, with ExitRefused. A claim with shards but no record
// (written by an older toolscore) is refused the same way. With Resume there is no check.
// The merge Job has none: toolscore kube merge takes no run flags to name the sweep by, and it
// runs after the shards, which refused a claim not theirs.
func (s Sweep) claimGuard() string {
	if s.Resume {
		return ""
	}
	refuse := func(holds string) string {
		return fmt.Sprintf(`echo "toolscore: the claim %s holds %s, not this one (%s): its shards would be resumed as this sweep's. Write the Job with another --name or --claim, empty the claim, or write it with toolscore kube job --resume to continue the sweep the claim holds." >&2; exit %d`,
			s.claimName(), holds, s.ID(), ExitRefused)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sweep=%s\n", quoteAll([]string{s.ID()})[0])
	fmt.Fprintf(&b, `if [ ! -e %[1]s ]; then
  if [ -n "$(ls -d %[2]s/shard-* 2>/dev/null)" ]; then %[3]s; fi
  echo "$sweep" > %[1]s.$JOB_COMPLETION_INDEX && { ln %[1]s.$JOB_COMPLETION_INDEX %[1]s 2>/dev/null || true; }; rm -f %[1]s.$JOB_COMPLETION_INDEX
fi
`, sweepFile, OutDir, refuse("shards of a sweep with no record of what it is"))
	fmt.Fprintf(&b, `if [ "$(cat %[1]s)" != "$sweep" ]; then %[2]s; fi
`, sweepFile, refuse(`another sweep ($(cat `+sweepFile+`))`))
	return b.String()
}

// MergeJob merges the shards' outputs into OutDir/merged: toolscore merge, once the Job is done.
func (s Sweep) MergeJob() *batchv1.Job {
	script := fmt.Sprintf("exec toolscore merge --out %[1]s/merged %[1]s/shard-*", OutDir)
	retries := int32(0)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.Name + "-merge"),
		Spec:       batchv1.JobSpec{BackoffLimit: &retries, Template: s.pod(script)},
	}
}

// pod is the pod every shard and the merge run: toolscore's image, the outputs' claim, the
// manifest, a scratch directory, no service account token, no environment but the run's, and
// the same hardening as a docker cell.
func (s Sweep) pod(script string) corev1.PodTemplateSpec {
	no, yes, uid := false, true, int64(1000)
	mounts := []corev1.VolumeMount{{Name: "out", MountPath: OutDir}, {Name: "work", MountPath: workDir}}
	volumes := []corev1.Volume{
		{Name: "out", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.claimName()}}},
		{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	if s.Manifest != nil {
		mounts = append(mounts, corev1.VolumeMount{Name: "scenario", MountPath: ScenarioDir, ReadOnly: true})
		volumes = append(volumes, corev1.Volume{Name: "scenario", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: s.Name + "-scenario"}, Items: s.items()}}})
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: s.labels()},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: &no,
			EnableServiceLinks:           &no, // no service addresses in the runs' environment
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: &yes, RunAsUser: &uid, RunAsGroup: &uid, FSGroup: &uid,
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:            "toolscore",
				Image:           s.Image,
				ImagePullPolicy: cmp.Or(s.PullPolicy, corev1.PullIfNotPresent),
				Command:         []string{"/bin/sh", "-c", script},
				Env: []corev1.EnvVar{
					{Name: "HOME", Value: workDir},
					{Name: "TMPDIR", Value: workDir},
				},
				WorkingDir:   workDir,
				VolumeMounts: mounts,
				Resources:    s.resources(),
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: &no,
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
			Volumes: volumes,
		},
	}
}

// networkPolicy denies the sweep's pods every connection in and out: a run reaches only
// 127.0.0.1, as a docker cell with network none does (where the cluster enforces policies).
func (s Sweep) networkPolicy() *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: s.meta(s.Name + "-no-network"),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: s.labels()},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
}

// resources are the pod's requests, and a memory limit of twice the request. Check has parsed
// them, so MustParse cannot panic on what a flag gave.
func (s Sweep) resources() corev1.ResourceRequirements {
	cpu := resource.MustParse(cmp.Or(s.CPU, DefaultCPU))
	mem := resource.MustParse(cmp.Or(s.Memory, DefaultMemory))
	limit := mem.DeepCopy()
	limit.Add(mem)
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: limit},
	}
}

func (s Sweep) claim() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: s.meta(s.claimName()),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: s.StorageClass,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
	}
}

// configMap holds the manifest under its file name and, when the sweep ships the manifest's
// folder, each of its files under a key of its own (a key cannot hold a /), which the volume's
// items put back at its path; a file that is not UTF-8 goes in binaryData.
func (s Sweep) configMap() *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: s.meta(s.Name + "-scenario"),
		Data:       map[string]string{s.manifestFile(): string(s.Manifest)},
	}
	for i, rel := range s.folderPaths() {
		f := s.Folder[rel]
		if utf8.Valid(f.Data) {
			cm.Data[folderKey(i)] = string(f.Data)
			continue
		}
		if cm.BinaryData == nil {
			cm.BinaryData = map[string][]byte{}
		}
		cm.BinaryData[folderKey(i)] = f.Data
	}
	return cm
}

// items maps the ConfigMap's keys back to the folder's paths, executables kept executable; nil
// (every key as a file of its name) when only the manifest is shipped.
func (s Sweep) items() []corev1.KeyToPath {
	if s.Folder == nil {
		return nil
	}
	items := []corev1.KeyToPath{{Key: s.manifestFile(), Path: s.manifestFile()}}
	for i, rel := range s.folderPaths() {
		item := corev1.KeyToPath{Key: folderKey(i), Path: rel}
		if s.Folder[rel].Exec {
			mode := int32(0o755)
			item.Mode = &mode
		}
		items = append(items, item)
	}
	return items
}

// copyFolder is the pod's first step when the folder is shipped: the volume's files copied, as
// files, to folderDir (a ConfigMap volume's entries are links into its hidden ..data folder,
// which is all a name starting with .. can be there).
func (s Sweep) copyFolder() string {
	if s.Folder == nil {
		return ""
	}
	return fmt.Sprintf(`mkdir -p %[2]s
for f in %[1]s/* %[1]s/.[!.]*; do if [ -e "$f" ]; then cp -RL "$f" %[2]s/; fi; done
`, ScenarioDir, folderDir)
}

func (s Sweep) folderPaths() []string { return slices.Sorted(maps.Keys(s.Folder)) }

// folderKey is the ConfigMap key of the folder's i-th file (in path order).
func folderKey(i int) string { return "folder." + strconv.Itoa(i) }

// Check refuses what Kubernetes would refuse of the objects, before any is written: names that
// are not DNS names (the Jobs' are DNS labels, as their pods' hostnames and job-name labels
// are), more shards than an Indexed Job takes, a ConfigMap over its size or with a key it
// does not allow.
func (s Sweep) Check() error {
	var errs []error
	bad := func(what, value string, msgs []string) {
		if len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s %q is not a valid Kubernetes name: %s", what, value, strings.Join(msgs, "; ")))
		}
	}
	bad("--name: the Job's name", s.Name, validation.IsDNS1123Label(s.Name))
	if len(validation.IsDNS1123Label(s.Name)) == 0 {
		bad("--name: the merge Job's name", s.Name+"-merge", validation.IsDNS1123Label(s.Name+"-merge"))
		for _, n := range []string{s.Name + "-scenario", s.Name + "-no-network", s.claimName()} {
			bad("--name: an object's name", n, validation.IsDNS1123Subdomain(n))
		}
	}
	if s.Claim != "" {
		bad("--claim", s.Claim, validation.IsDNS1123Subdomain(s.Claim))
	}
	if s.StorageClass != nil && *s.StorageClass != "" {
		bad("--storage-class", *s.StorageClass, validation.IsDNS1123Subdomain(*s.StorageClass))
	}
	for _, q := range []struct{ flag, value string }{{"--cpu", s.CPU}, {"--memory", s.Memory}} {
		if q.value == "" {
			continue
		}
		if v, err := resource.ParseQuantity(q.value); err != nil || v.Sign() <= 0 {
			errs = append(errs, fmt.Errorf("%s %q: want a Kubernetes quantity above 0 (%s 500m, 1, 2; --memory 512Mi, 2Gi)", q.flag, q.value, "--cpu"))
		}
	}
	switch s.PullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		errs = append(errs, fmt.Errorf("--pull %q: want IfNotPresent (the default: an image loaded into the nodes runs as it is), Never or Always", s.PullPolicy))
	}
	if s.Namespace != "" {
		bad("--namespace", s.Namespace, validation.IsDNS1123Label(s.Namespace))
	}
	if s.Shards < 1 || s.Shards > MaxShards {
		errs = append(errs, fmt.Errorf("--shards %d: want 1 to %d (the most indexes an Indexed Job takes)", s.Shards, MaxShards))
	}
	if s.Manifest != nil {
		if msgs := validation.IsConfigMapKey(s.manifestFile()); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("the manifest's file name %q cannot be a ConfigMap key: %s; rename it", s.manifestFile(), strings.Join(msgs, "; ")))
		} else if s.Folder != nil && strings.HasPrefix(s.manifestFile(), "folder.") {
			errs = append(errs, fmt.Errorf("the manifest's file name %q is a key the folder's files take in the ConfigMap; rename it", s.manifestFile()))
		}
		// As the API counts it: every key and value of data and binaryData.
		size := 0
		cm := s.configMap()
		for k, v := range cm.Data {
			size += len(k) + len(v)
		}
		for k, v := range cm.BinaryData {
			size += len(k) + len(v)
		}
		if size > maxConfigMap {
			what := "the manifest"
			if s.Folder != nil {
				what = "the manifest's folder, which its defined clients' files come from,"
			}
			errs = append(errs, fmt.Errorf("%s holds %d bytes, more than a ConfigMap takes (%d): keep in the folder only what the client installs from", what, size, maxConfigMap))
		}
	}
	return errors.Join(errs...)
}

func (s Sweep) claimName() string {
	if s.Claim != "" {
		return s.Claim
	}
	return s.Name + "-out"
}

// manifestFile is the manifest's name in the ConfigMap: a key must be a plain file name.
func (s Sweep) manifestFile() string {
	if b := filepath.Base(s.ManifestName); b != "." && b != string(filepath.Separator) && b != "" {
		return b
	}
	return "scenario.yaml"
}

func (s Sweep) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: s.labels()}
}

func (s Sweep) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "toolscore", "app.kubernetes.io/instance": s.Name}
}

// YAML is objs as one YAML stream, documents separated by ---.
func YAML(objs ...any) ([]byte, error) {
	var out []byte
	for i, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("writing the Kubernetes objects: %w", err)
		}
		if i > 0 {
			out = append(out, "---\n"...)
		}
		out = append(out, b...)
	}
	return out, nil
}

// quoteAll quotes each argument for sh.
func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}
