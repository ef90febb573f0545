//go:build tools

// Package cluster pins the commands scripts/kube-up.sh builds, so that go mod tidy keeps
// their dependencies in go.sum.
package cluster

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
