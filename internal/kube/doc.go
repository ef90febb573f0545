// Package kube writes a sweep as Kubernetes objects, from the official k8s.io/api types: an
// Indexed Job whose pod i runs shard i+1 of the sweep with toolscore's pod image on the local
// backend (the pod is the sandbox, no Docker socket in it), the claim its outputs go to, the
// ConfigMap with the manifest, a NetworkPolicy that cuts the pods off, and the Job that merges
// the shards (toolscore kube job, toolscore kube merge).
package kube
