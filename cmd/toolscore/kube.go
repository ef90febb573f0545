package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/internal/kube"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

// kubeUsage is toolscore kube's usage, before its flags.
const kubeUsage = `usage: toolscore kube job [SCENARIO] --shards N --image IMAGE [flags] [-- RUN FLAGS...]
       toolscore kube merge [SCENARIO] --shards N --image IMAGE [flags]

job writes a sweep of SCENARIO (default: the embedded scenarios/ledger.yaml) as Kubernetes
objects: a batch/v1 Indexed Job whose pod i runs toolscore run --shard i+1/N on the local
backend in IMAGE (toolscore's pod image, kube/Dockerfile: every client's runtime and install
cache; no Docker socket, the pod is the sandbox), writing /out/shard-i on a ReadWriteMany claim,
with the manifest in a ConfigMap and a NetworkPolicy that cuts the pods off. A failed index is
retried once without stopping the others (not one that exits 1 or 2, which would fail again),
and a pod killed midway resumes its shard. A claim holds one sweep: a pod of another (other
manifest, run flags or shard count) refuses it, exit 2, unless the Job has --resume. A
manifest that defines a client ships its folder in the ConfigMap (at most 1 MiB). RUN FLAGS
(--runs, --clients, ...) go to every shard; those the Job sets (--shard, --out, --backend,
--fail-on, --resume) and those reading this machine's files (--shard-by, --replay) are refused.
Names are checked as Kubernetes checks them. merge writes the Job that merges the shards into
/out/merged; apply it once kubectl wait --for=condition=complete job/NAME says the sweep is done.

flags:
`

// kubeCmd is toolscore kube job|merge: a sweep's Kubernetes objects on stdout, for kubectl apply.
func kubeCmd(_ context.Context, args []string) error {
	what := "job" // toolscore kube -h shows the usage of both
	switch {
	case len(args) > 0 && (args[0] == "job" || args[0] == "merge"):
		what, args = args[0], args[1:]
	case len(args) == 0 || !slices.Contains([]string{"-h", "-help", "--help"}, args[0]):
		err := errors.New("want toolscore kube job or toolscore kube merge")
		fmt.Fprintln(os.Stderr, "toolscore kube:", err)
		return exitcode.UsageError(err)
	}
	fs := flag.NewFlagSet("kube "+what, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), kubeUsage)
		fs.PrintDefaults()
	}
	shards := fs.Int("shards", 0, "the number of shards, one pod each (1 to 100000, the most indexes an Indexed Job takes)")
	image := fs.String("image", "", "toolscore's pod image, as the cluster pulls it")
	name := fs.String("name", "toolscore", "the Job's name, the prefix of the other objects'")
	namespace := fs.String("namespace", "", "the objects' namespace (default: kubectl's current one)")
	parallelism := fs.Int("parallelism", 0, "pods at once (default: every shard at once)")
	claim := fs.String("claim", "", "an existing ReadWriteMany PersistentVolumeClaim for the outputs (default: one is written, NAME-out)")
	var storageClass *string
	fs.Func("storage-class", "the written claim's storage class, one that provides ReadWriteMany (default: the cluster's default class; \"\" for a volume of no class, made by hand)", func(v string) error {
		storageClass = &v
		return nil
	})
	cpu := fs.String("cpu", kube.DefaultCPU, "the CPUs each pod requests, as a Kubernetes quantity (500m, 1, 2)")
	memory := fs.String("memory", kube.DefaultMemory, "the memory each pod requests, as a Kubernetes quantity; its limit is twice that")
	pull := fs.String("pull", string(corev1.PullIfNotPresent), "the pods' image pull policy: IfNotPresent runs an image loaded into the nodes (kind load, ctr import) whatever its tag; Never, Always")
	resume := fs.Bool("resume", false, "continue the sweep the claim holds even if it is not this one (another manifest, run flags or shard count): each shard resumes as it was recorded")
	own, runArgs := args, []string(nil)
	if i := slices.Index(own, "--"); i >= 0 {
		own, runArgs = own[:i], own[i+1:]
	}
	positional, err := parseInterspersed(fs, own)
	if err != nil {
		return err
	}
	s := kube.Sweep{Name: *name, Namespace: *namespace, Image: *image, Shards: *shards, Parallelism: *parallelism, Args: runArgs, Claim: *claim,
		StorageClass: storageClass, CPU: *cpu, Memory: *memory, PullPolicy: corev1.PullPolicy(*pull), Resume: *resume}
	err = kubeFlagErrors(what, positional, s)
	if len(positional) == 1 && err == nil {
		if err := kubeLoadManifest(&s, positional[0]); err != nil {
			return err
		}
	}
	if err := errors.Join(err, s.Check()); err != nil {
		cli.PrintLines(os.Stderr, err, "toolscore kube: ")
		return exitcode.UsageError(err)
	}
	objs := s.Objects()
	if what == "merge" {
		objs = []any{s.MergeJob()}
	}
	b, err := kube.YAML(objs...)
	if err != nil {
		return err
	}
	if _, err := os.Stdout.Write(b); err != nil {
		return err
	}
	if what == "job" {
		// toolscore never sees the cluster, so it cannot tell whether the policy holds there.
		fmt.Fprintf(os.Stderr, "toolscore kube: the NetworkPolicy %s-no-network cuts the pods off only where the cluster's network plugin enforces policies (Calico, Cilium, ...; a plain bridge, and kind's default, do not): there, a run reaches what the node reaches\n", s.Name)
	}
	return nil
}

// kubeFlagErrors are the flags' errors that the Sweep's own Check leaves to the command: one
// scenario, an image, run flags only for a job, --resume only for a job, and a claim either
// named or written.
func kubeFlagErrors(what string, positional []string, s kube.Sweep) error {
	var err error
	if len(positional) > 1 {
		err = fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " "))
	}
	if s.Image == "" {
		err = errors.Join(err, errors.New("--image: name toolscore's pod image, as the cluster pulls it (build it from kube/Dockerfile)"))
	}
	if s.Parallelism < 0 {
		err = errors.Join(err, fmt.Errorf("--parallelism %d: want 1 or more", s.Parallelism))
	}
	if what == "merge" && len(s.Args) > 0 {
		err = errors.Join(err, errors.New("merge takes no run flags: the shards ran already"))
	} else {
		err = errors.Join(err, checkRunArgs(s.Args))
	}
	if what == "merge" && s.Resume {
		err = errors.Join(err, errors.New("--resume is for toolscore kube job: the merge resumes nothing"))
	}
	if s.Claim != "" && s.StorageClass != nil {
		err = errors.Join(err, errors.New("--storage-class is the class of the claim toolscore writes; --claim names one you made, with its own class"))
	}
	return err
}

// kubeLoadManifest puts the manifest's file and its folder in s: the manifest goes into the
// ConfigMap as it is, so it is loaded first, and a bad one fails here with its file and line,
// not in every pod. Its error is printed, and carries the usage exit code.
func kubeLoadManifest(s *kube.Sweep, manifest string) error {
	sc, err := sweep.Load(manifest)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	if s.Manifest, err = scenario.ReadFile(manifest); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore kube:", err)
		return exitcode.UsageError(err)
	}
	s.ManifestName = manifest
	if s.Folder, err = definedFolder(sc, manifest); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore kube:", err)
		return exitcode.UsageError(err)
	}
	return nil
}

// passRunFlags are the toolscore run flags that may follow -- : they narrow or size the sweep,
// the same in every shard.
var passRunFlags = []string{"clients", "faults", "schema", "protocols", "transports", "tools", "runs", "max-runs", "parallel"}

// jobRunFlags are the toolscore run flags refused after -- , each with why: the Job sets them
// per pod, or they name a folder of this machine that no pod has.
var jobRunFlags = map[string]string{
	"shard":    "the Job gives pod i --shard i+1/N; split the sweep with --shards",
	"out":      "the Job gives pod i --out " + kube.OutDir + "/shard-i on the claim (--claim names another)",
	"backend":  "the pods run on the local backend: the pod is the sandbox, with no Docker socket",
	"fail-on":  "the shards run with --fail-on never; the merge's counts are what to check",
	"resume":   "a pod killed midway resumes its shard by itself",
	"shard-by": "it reads an earlier sweep's results on this machine, which the pods do not have",
	"replay":   "it reads an earlier sweep's folder on this machine, which the pods do not have",
	"cache":    "it names a folder of this machine, which the pods do not have",
	"no-cache": "each pod's cell cache starts empty, on the pod's own disk: no cell is reused there",
}

// checkRunArgs refuses run flags after -- that every pod would fail on, or that would fight the
// flags the Job sets (a --shard of its own makes every pod run the same shard).
func checkRunArgs(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, n := range passRunFlags {
		fs.String(n, "", "")
	}
	for n := range jobRunFlags {
		fs.String(n, "", "")
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("after --: %w (only these toolscore run flags: --%s)", err, strings.Join(passRunFlags, ", --"))
	}
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		if why, ok := jobRunFlags[f.Name]; ok {
			errs = append(errs, fmt.Errorf("after --: --%s is not for a shard: %s", f.Name, why))
		}
	})
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("after --: %q is not a flag: the scenario goes before --, and only toolscore run flags after it", fs.Arg(0)))
	}
	// The counts are checked as toolscore run checks them, here rather than in every pod.
	counts := flag.NewFlagSet("run", flag.ContinueOnError)
	counts.SetOutput(io.Discard)
	for _, n := range []string{"runs", "max-runs", "parallel"} {
		counts.Int(n, 0, "")
	}
	var n []string
	fs.Visit(func(f *flag.Flag) {
		if counts.Lookup(f.Name) != nil {
			n = append(n, "--"+f.Name, f.Value.String())
		}
	})
	if err := counts.Parse(n); err != nil {
		errs = append(errs, fmt.Errorf("after --: %w", err))
	} else if err := countFlags(counts, "runs", "max-runs", "parallel"); err != nil {
		errs = append(errs, fmt.Errorf("after --: %w", err))
	}
	return errors.Join(errs...)
}

// definedFolder is the manifest's folder as a defined client's install copies it, when the
// manifest defines a client: the pods need its files, which only the manifest's folder holds.
func definedFolder(sc *scenario.Scenario, manifest string) (map[string]install.File, error) {
	for _, c := range sc.Clients {
		if !c.Defined() {
			continue
		}
		d := client.Defined(c.Name, c.Runtime, c.Command, c.Install, c.Files, c.Agent, manifest)
		files, err := install.Files(d.Local.Recipe)
		if err != nil {
			return nil, fmt.Errorf("reading the folder of %s, which its defined client %s runs from: %w", manifest, c.Name, err)
		}
		if files == nil {
			files = map[string]install.File{}
		}
		return files, nil // every defined client's files are the one folder's
	}
	return nil, nil
}
