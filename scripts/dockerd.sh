#!/usr/bin/env bash
# Starts a real Docker Engine where none runs: Debian's docker.io (20.10, API 1.41) with
# overlay2, no bridge and no iptables, so cells run with network none (loopback only).
# Prints the DOCKER_HOST to export. Reuses an engine already answering on the socket.
set -euo pipefail
sock=${TOOLSCORE_DOCKER_SOCK:-/tmp/toolscore-dockerd/docker.sock}
root=$(dirname "$sock")
if DOCKER_HOST=unix://$sock docker version >/dev/null 2>&1; then
  echo "unix://$sock"; exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq docker.io >/dev/null 2>&1
fi
mkdir -p "$root"
nohup dockerd --storage-driver=overlay2 --iptables=false --ip6tables=false --bridge=none \
  --host="unix://$sock" --data-root="$root/data" --exec-root="$root/exec" \
  --pidfile="$root/dockerd.pid" >"$root/dockerd.log" 2>&1 &
for _ in $(seq 1 60); do
  DOCKER_HOST=unix://$sock docker version >/dev/null 2>&1 && { echo "unix://$sock"; exit 0; }
  sleep 0.5
done
echo "dockerd did not come up; see $root/dockerd.log" >&2
tail -20 "$root/dockerd.log" >&2
exit 1
