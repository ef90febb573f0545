package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/kube"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

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
		fmt.Fprintf(fs.Output(), `usage: toolscore kube job [SCENARIO] --shards N --image IMAGE [flags] [-- RUN FLAGS...]
       toolscore kube merge [SCENARIO] --shards N --image IMAGE [flags]

job writes a sweep of SCENARIO (default: the embedded scenarios/ledger.yaml) as Kubernetes
objects: a batch/v1 Indexed Job whose pod i runs toolscore run --shard i+1/N on the local
backend in IMAGE (toolscore's pod image, kube/Dockerfile: every client's runtime and install
cache; no Docker socket, the pod is the sandbox), writing /out/shard-i on a ReadWriteMany claim,
with the manifest in a ConfigMap and a NetworkPolicy that cuts the pods off. A failed index is
retried once without stopping the others, and a pod killed midway resumes its shard. RUN FLAGS
(--runs, --clients, ...) go to every shard. merge writes the Job that merges the shards into
/out/merged; apply it once kubectl wait --for=condition=complete job/NAME says the sweep is done.

flags:
`)
		fs.PrintDefaults()
	}
	shards := fs.Int("shards", 0, "the number of shards, one pod each")
	image := fs.String("image", "", "toolscore's pod image, as the cluster pulls it")
	name := fs.String("name", "toolscore", "the Job's name, the prefix of the other objects'")
	namespace := fs.String("namespace", "", "the objects' namespace (default: kubectl's current one)")
	parallelism := fs.Int("parallelism", 0, "pods at once (default: every shard at once)")
	claim := fs.String("claim", "", "an existing ReadWriteMany PersistentVolumeClaim for the outputs (default: one is written, NAME-out)")
	own, runArgs := args, []string(nil)
	if i := slices.Index(own, "--"); i >= 0 {
		own, runArgs = own[:i], own[i+1:]
	}
	positional, err := parseInterspersed(fs, own)
	if err != nil {
		return err
	}
	if len(positional) > 1 {
		err = fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " "))
	}
	if *shards < 1 {
		err = errors.Join(err, fmt.Errorf("--shards %d: want 1 or more", *shards))
	}
	if *image == "" {
		err = errors.Join(err, errors.New("--image: name toolscore's pod image, as the cluster pulls it (build it from kube/Dockerfile)"))
	}
	if *parallelism < 0 {
		err = errors.Join(err, fmt.Errorf("--parallelism %d: want 1 or more", *parallelism))
	}
	if what == "merge" && len(runArgs) > 0 {
		err = errors.Join(err, errors.New("merge takes no run flags: the shards ran already"))
	}
	if err != nil {
		sweep.PrintLines(os.Stderr, err, "toolscore kube: ")
		return exitcode.UsageError(err)
	}
	s := kube.Sweep{Name: *name, Namespace: *namespace, Image: *image, Shards: *shards, Parallelism: *parallelism, Args: runArgs, Claim: *claim}
	if len(positional) == 1 {
		// The manifest goes into the ConfigMap as it is: load it first, so a bad one fails here
		// with its file and line, not in every pod.
		if _, err := sweep.Load(positional[0]); err != nil {
			sweep.PrintLoadError(os.Stderr, err)
			return exitcode.UsageError(err)
		}
		if s.Manifest, err = scenario.ReadFile(positional[0]); err != nil {
			fmt.Fprintln(os.Stderr, "toolscore kube:", err)
			return exitcode.UsageError(err)
		}
		s.ManifestName = positional[0]
	}
	objs := s.Objects()
	if what == "merge" {
		objs = []any{s.MergeJob()}
	}
	b, err := kube.YAML(objs...)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(b)
	return err
}
