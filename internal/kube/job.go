package kube

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Where the pods find their inputs and write their outputs.
const (
	OutDir      = "/out"      // the claim every pod mounts: shard-0, shard-1, ..., merged
	ScenarioDir = "/scenario" // the ConfigMap with the manifest, when the sweep has one
	workDir     = "/work"     // an emptyDir: the runs' HOME and TMPDIR, which the local backend writes
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
	// Args are more toolscore run flags, the same for every shard (--runs, --clients, ...).
	Args []string
	// Claim is an existing ReadWriteMany PersistentVolumeClaim for the outputs; "" makes one.
	Claim string
}

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
	if s.Manifest != nil {
		run = append(run, quoteAll([]string{path.Join(ScenarioDir, s.manifestFile())})...)
	}
	run = append(run, "--backend", "local", "--fail-on", "never", "--shard", "$(( JOB_COMPLETION_INDEX + 1 ))/"+strconv.Itoa(s.Shards),
		"--out", OutDir+"/shard-$JOB_COMPLETION_INDEX")
	run = append(run, quoteAll(s.Args)...)
	// --resume continues a shard whose pod was killed, from the runs it wrote; a new shard starts.
	script := fmt.Sprintf(`set -eu
if [ -f %[1]s/shard-$JOB_COMPLETION_INDEX/sweep.json ]; then exec toolscore run --resume %[1]s/shard-$JOB_COMPLETION_INDEX --fail-on never; fi
exec %[2]s`, OutDir, strings.Join(run, " "))
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
			Template:             s.pod(script),
		},
	}
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
			LocalObjectReference: corev1.LocalObjectReference{Name: s.Name + "-scenario"}}}})
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
				Name:    "toolscore",
				Image:   s.Image,
				Command: []string{"/bin/sh", "-c", script},
				Env: []corev1.EnvVar{
					{Name: "HOME", Value: workDir},
					{Name: "TMPDIR", Value: workDir},
				},
				WorkingDir:   workDir,
				VolumeMounts: mounts,
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")},
				},
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

func (s Sweep) claim() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: s.meta(s.claimName()),
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}},
		},
	}
}

func (s Sweep) configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: s.meta(s.Name + "-scenario"),
		Data:       map[string]string{s.manifestFile(): string(s.Manifest)},
	}
}

func (s Sweep) claimName() string {
	if s.Claim != "" {
		return s.Claim
	}
	return s.Name + "-out"
}

// manifestFile is the manifest's name in the ConfigMap: a key must be a plain file name.
func (s Sweep) manifestFile() string {
	if b := path.Base(s.ManifestName); b != "." && b != "/" && b != "" {
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
