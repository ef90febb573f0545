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
  mkdir -p "$(dirname "$bin")"
  exec 9>"$bin.lock" && flock 9 # a second build waits for the first, then finds its binaries
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


ip=$(hostname -I | awk '{print $1}')     # the apiserver refuses a loopback address to advertise
port=${TOOLSCORE_KUBE_PORT:-6443}
kc=$dir/admin.kubeconfig
ctr=(ctr --address "$dir/containerd.sock" -n k8s.io)
kctl=(kubectl --kubeconfig "$kc")

start() { # name, command...: runs it in the background, its pid in $dir/pids for down
  local name=$1; shift
  "$@" >"$dir/log/$name.log" 2>&1 &
  echo "$name $!" >>"$dir/pids"
}

wait_for() { # what, seconds, command...
  local what=$1 secs=$2; shift 2
  for _ in $(seq 1 "$secs"); do "$@" >/dev/null 2>&1 && return; sleep 1; done
  echo "kube-up: $what not ready in ${secs}s; logs in $dir/log" >&2
  tail -n 20 "$dir"/log/*.log >&2
  return 1
}

pki() {
  local p=$dir/pki
  mkdir -p "$p" && cd "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=toolscore-kube-ca 2>/dev/null
  cert() { # name, subject, extensions
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out "$1.crt" -extfile "$1.ext" 2>/dev/null
  }
  cert apiserver /CN=kube-apiserver "subjectAltName=IP:$ip,IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth"
  # One client of the system:masters group for everything here: this cluster is a test's.
  cert admin "/O=system:masters/CN=admin" "extendedKeyUsage=clientAuth"
  openssl genrsa -out sa.key 2048 2>/dev/null && openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cat >"$kc" <<EOC
apiVersion: v1
kind: Config
clusters: [{name: toolscore, cluster: {server: "https://$ip:$port", certificate-authority: $p/ca.crt}}]
users: [{name: admin, user: {client-certificate: $p/admin.crt, client-key: $p/admin.key}}]
contexts: [{name: toolscore, context: {cluster: toolscore, user: admin}}]
current-context: toolscore
EOC
  cd - >/dev/null
}

# pause_image writes the pod sandbox's image, an OCI archive of the static pause binary (no
# registry holds the usual one here), for ctr import.
pause_image() {
  local o=$dir/pause-oci
  mkdir -p "$o/blobs/sha256" "$o/root"
  cp "$bin/pause" "$o/root/pause"
  tar --numeric-owner --owner=0 --group=0 --mtime=@0 -C "$o/root" -cf "$o/layer.tar" pause
  local layer size config csize manifest msize
  layer=$(sha256sum "$o/layer.tar" | cut -d' ' -f1); size=$(stat -c %s "$o/layer.tar")
  mv "$o/layer.tar" "$o/blobs/sha256/$layer"
  printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/pause"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "$layer" >"$o/config"
  config=$(sha256sum "$o/config" | cut -d' ' -f1); csize=$(stat -c %s "$o/config"); mv "$o/config" "$o/blobs/sha256/$config"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
    "$config" "$csize" "$layer" "$size" >"$o/manifest"
  manifest=$(sha256sum "$o/manifest" | cut -d' ' -f1); msize=$(stat -c %s "$o/manifest"); mv "$o/manifest" "$o/blobs/sha256/$manifest"
  printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"io.containerd.image.name":"toolscore.local/pause:1","org.opencontainers.image.ref.name":"1"}}]}' \
    "$manifest" "$msize" >"$o/index.json"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$o/oci-layout"
  tar -C "$o" -cf "$dir/pause.tar" oci-layout index.json blobs
}

up() {
  if [ -e "$dir/pids" ]; then echo "kube-up: $dir holds a cluster already; $0 down first" >&2; exit 1; fi
  build
  mkdir -p "$dir/log" "$dir/cni" "$dir/pod-logs"
  : >"$dir/pids"
  ls /var/run/netns 2>/dev/null >"$dir/netns-before" || true
  pki
  cat >"$dir/containerd.toml" <<EOC
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$dir/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "toolscore.local/pause:1"
  # root here lacks CAP_SYS_RESOURCE: without this every sandbox fails in runc.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    Root = "$dir/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni"
EOC
  # A plain bridge, no masquerade: the pods reach the node and each other, nothing beyond.
  cat >"$dir/cni/10-toolscore.conflist" <<EOC
{"cniVersion": "0.4.0", "name": "toolscore", "plugins": [{"type": "bridge", "bridge": "tskube0", "isGateway": true,
 "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.244.77.0/24"}]], "dataDir": "$dir/ipam"}}]}
EOC
  start containerd containerd --config "$dir/containerd.toml"
  start etcd "$bin/etcd" --name default --data-dir "$dir/etcd" \
    --listen-client-urls http://127.0.0.1:32379 --advertise-client-urls http://127.0.0.1:32379 \
    --listen-peer-urls http://127.0.0.1:32380 --initial-advertise-peer-urls http://127.0.0.1:32380 \
    --initial-cluster default=http://127.0.0.1:32380 --listen-metrics-urls http://127.0.0.1:32381
  local p=$dir/pki
  start kube-apiserver "$bin/kube-apiserver" --etcd-servers http://127.0.0.1:32379 \
    --bind-address "$ip" --advertise-address "$ip" --secure-port "$port" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" --client-ca-file "$p/ca.crt" \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.0.0.0/24 \
    --authorization-mode Node,RBAC --kubelet-client-certificate "$p/admin.crt" --kubelet-client-key "$p/admin.key" \
    --kubelet-preferred-address-types InternalIP  # the host name may resolve to 127.0.0.1
  wait_for "the apiserver" 120 "${kctl[@]}" get --raw /readyz
  start kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$kc" --leader-elect=false \
    --bind-address 127.0.0.1 --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt"
  start kube-scheduler "$bin/kube-scheduler" --kubeconfig "$kc" --leader-elect=false --bind-address 127.0.0.1
  wait_for containerd 30 "${ctr[@]}" version
  pause_image
  "${ctr[@]}" images import "$dir/pause.tar" >/dev/null
  cat >"$dir/kubelet.yaml" <<EOC
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: "$ip"
authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: "$p/ca.crt"}}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: "unix://$dir/containerd.sock"
podLogsDir: "$dir/pod-logs"
# The host is on cgroup v1 and has swap.
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
# Imported images are all there is: never collect them, never evict for a full disk.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
EOC
  start kubelet "$bin/kubelet" --config "$dir/kubelet.yaml" --kubeconfig "$kc" --root-dir "$dir/kubelet" --node-ip "$ip"
  wait_for "the node" 120 "${kctl[@]}" wait --for=condition=Ready node --all --timeout=1s
  # Pods need their namespace's default service account, which the controller manager makes.
  wait_for "the default service account" 60 "${kctl[@]}" get serviceaccount default
  echo "$kc"
}

import() { # an image archive (docker save) into the node's containerd
  "${ctr[@]}" images import "$1" >/dev/null
}

down() {
  [ -e "$dir/pids" ] || { echo "kube-up: no cluster in $dir" >&2; return 0; }
  # The kubelet stops the pods' sandboxes (their network and namespaces with them) once their
  # pods are gone; then everything else is stopped, newest first.
  if "${kctl[@]}" get --raw /readyz >/dev/null 2>&1; then
    "${kctl[@]}" delete jobs,pods --all --all-namespaces --wait=false >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do
      [ -z "$("${kctl[@]}" get pods -A -o name 2>/dev/null)" ] && ! "${ctr[@]}" tasks ls 2>/dev/null | grep -q RUNNING && break
      sleep 1
    done
  fi
  stop kubelet
  if "${ctr[@]}" version >/dev/null 2>&1; then
    for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do
      "${ctr[@]}" tasks kill -s SIGKILL "$t" >/dev/null 2>&1 || true
      "${ctr[@]}" tasks delete -f "$t" >/dev/null 2>&1 || true
    done
    for c in $("${ctr[@]}" containers ls -q 2>/dev/null); do "${ctr[@]}" containers delete "$c" >/dev/null 2>&1 || true; done
  fi
  stop kube-scheduler; stop kube-controller-manager; stop kube-apiserver; stop etcd; stop containerd
  # A shim outlives its containerd; these are the ones started for this socket.
  for p in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -q -- "-address $dir/containerd.sock"; then kill -9 "${p#/proc/}" 2>/dev/null || true; fi
  done
  for n in $(ls /var/run/netns 2>/dev/null); do
    grep -qx "$n" "$dir/netns-before" 2>/dev/null || { umount "/var/run/netns/$n" 2>/dev/null; rm -f "/var/run/netns/$n"; }
  done
  grep " $dir" /proc/mounts | cut -d' ' -f2 | sort -r | while read -r m; do umount -l "$m" || true; done
  ip link del tskube0 2>/dev/null || true
  # The kubelet's pod cgroups (cgroupfs driver, v1): empty once the pods are gone.
  for c in /sys/fs/cgroup/*/kubepods; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  rm -rf "$dir"
}

stop() { # name: the process up started under it, TERM then KILL, by its pid
  local pid
  pid=$(awk -v n="$1" '$1 == n {print $2}' "$dir/pids")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
}

case ${1:-} in
  build) build; echo "$bin" ;;
  up) up ;;
  import) import "$2" ;;
  down) down ;;
  *) echo "usage: $0 build|up|import IMAGE.tar|down" >&2; exit 2 ;;
esac
