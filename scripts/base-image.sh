#!/usr/bin/env bash
# Builds a local Debian base image without any image registry: debootstrap from the
# machine's own Debian mirror (reachable here), then `docker import`. About 45 s for minbase + nodejs.
# Usage: DOCKER_HOST=... [HOST_NODE=1] [HOST_RUST=1] scripts/base-image.sh TAG [extra,debian,packages]
#   e.g. scripts/base-image.sh toolscore/base-node:bookworm nodejs,npm,ca-certificates
# Images for real use (GitHub runners) would start FROM a public image instead; a Dockerfile
# with `ARG BASE_IMAGE` lets CI here pass this local tag.
set -euo pipefail
tag=${1:?usage: base-image.sh TAG [packages]}
pkgs=${2:-ca-certificates}
if docker image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; exit 0; fi
command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq >/dev/null; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# the machine's own apt mirror, so nothing here names a host
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
debootstrap --variant=minbase --include="$pkgs" bookworm "$dir/root" "$mirror" >"$dir/log" 2>&1 \
  || { tail -20 "$dir/log" >&2; exit 1; }
# The registries are reached through this machine's TLS setup: give the image the same CA bundle,
# or npm/apt inside a build fail with SELF_SIGNED_CERT_IN_CHAIN. Builds that fetch packages need
# the build network "host" (there is no bridge): docker build --network host, or
# ImageBuildOptions{NetworkMode: "host"} through the API.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$dir/root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$dir/root/etc/ssl/certs/ca-certificates.crt"
fi
# HOST_NODE=1 puts this machine's own node and npm in the image: Debian's nodejs is 18 and its
# npm package does not install under debootstrap, while the adapters and agent CLIs want 20+.
if [ "${HOST_NODE:-}" = 1 ]; then
  node=$(readlink -f "$(command -v node)")
  npmdir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  mkdir -p "$dir/root/usr/local/bin" "$dir/root/usr/local/lib/node_modules"
  cp "$node" "$dir/root/usr/local/bin/node"
  cp -a "$npmdir" "$dir/root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$dir/root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$dir/root/usr/local/bin/npx"
fi
# HOST_RUST=1 puts this machine's own Rust toolchain (rustup's active one: rustc, cargo and the
# standard library, no docs) in the image, on PATH: Debian's rustc is too old for the rmcp
# adapter's crates (the build stage of internal/cellimage/images/rmcp; give it gcc,libc6-dev for
# rustc's linker). A machine that reaches an image registry uses a public Rust image instead.
env=(-c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
if [ "${HOST_RUST:-}" = 1 ]; then
  command -v rustc >/dev/null 2>&1 || { echo "base-image.sh: rustc not found on PATH (install Rust with rustup)" >&2; exit 1; }
  sysroot=$(rustc --print sysroot)
  [ -x "$sysroot/bin/cargo" ] || { echo "base-image.sh: no cargo in $sysroot/bin" >&2; exit 1; }
  mkdir -p "$dir/root/usr/local/rust"
  cp -a "$sysroot/bin" "$sysroot/lib" "$dir/root/usr/local/rust/"
  env+=(-c 'ENV PATH=/usr/local/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'ENV CARGO_HOME=/usr/local/cargo')
fi
tar -C "$dir/root" -c . | docker import "${env[@]}" - "$tag" >/dev/null
echo "$tag"
