#!/usr/bin/env bash
# Makes a Go toolchain image from this machine's own Go, for building the project's Dockerfile
# where no image registry is reachable: docker build --build-arg GO_IMAGE=TAG --network host .
# The machine's CA bundle goes in too, so the build reaches the module proxy as the host does.
# Usage: DOCKER_HOST=... scripts/go-image.sh TAG   (prints TAG)
set -euo pipefail
tag=${1:?usage: go-image.sh TAG}
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; exit 0; fi
goroot=$(go env GOROOT)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tmp" "$dir/root" "$dir/etc/ssl/certs" "$dir/usr/local"
cp /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/"
cp -a "$goroot" "$dir/usr/local/go"
chmod 1777 "$dir/tmp"
tar -C "$dir" -c . | docker import \
  -c 'ENV PATH=/usr/local/go/bin:/usr/bin:/bin' -c 'ENV HOME=/root' -c 'ENV GOPATH=/root/go' \
  -c 'ENV GOCACHE=/root/.cache/go-build' -c 'LABEL io.toolscore=1' - "$tag" >/dev/null
echo "$tag"
