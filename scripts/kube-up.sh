#!/usr/bin/env bash
# A real single-node Kubernetes for toolscore's tests, from what this machine can reach: the
# control plane, kubelet and etcd built from the Go module proxy (kube/cluster), Debian's
# containerd, runc and CNI plugins, and no image registry (images are imported into the node).
#
#   scripts/kube-up.sh build   builds the binaries once, cached under a key of kube/cluster/go.sum
#   scripts/kube-up.sh up      starts the cluster; prints the KUBECONFIG to export
#   scripts/kube-up.sh import IMAGE.tar   loads an image (docker save) into the node
#   scripts/kube-up.sh down    stops exactly what up started, by pid, and removes its state
#
# Everything lives in $TOOLSCORE_KUBE_DIR (default /tmp/toolscore-kube); the node runs its own
# containerd there, so a Docker engine's containerd is never touched.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mod=$here/kube/cluster
dir=${TOOLSCORE_KUBE_DIR:-/tmp/toolscore-kube}
version=v1.37.2
key=$(sha256sum "$mod/go.sum" "$mod/go.mod" "$mod/etcd/main.go" "$mod/pause/main.go" | sha256sum | cut -c1-16)
bin=${TOOLSCORE_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/toolscore-kube}/$key
cmds="kube-apiserver kube-controller-manager kube-scheduler kubelet"

build() {
  if [ -x "$bin/kubelet" ] && [ -x "$bin/etcd" ] && [ -x "$bin/pause" ]; then return; fi
  mkdir -p "$bin.tmp"
  local ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    # Without these the server says v0.0.0-master and kubectl cannot parse its version.
    ld="$ld -X $p.gitVersion=$version -X $p.gitMajor=1 -X $p.gitMinor=37 -X $p.gitTreeState=clean"
  done
  cd "$mod"
  for c in $cmds; do
    echo "building $c" >&2
    CGO_ENABLED=0 nice go build -trimpath -ldflags "$ld" -o "$bin.tmp/$c" "k8s.io/kubernetes/cmd/$c"
  done
  CGO_ENABLED=0 nice go build -trimpath -ldflags "-s -w" -o "$bin.tmp/etcd" ./etcd
  CGO_ENABLED=0 nice go build -trimpath -ldflags "-s -w" -o "$bin.tmp/pause" ./pause
  rm -rf "$bin" && mv "$bin.tmp" "$bin"
}

case ${1:-} in
  build) build; echo "$bin" ;;
  *) echo "usage: $0 build|up|import IMAGE.tar|down" >&2; exit 2 ;;
esac
