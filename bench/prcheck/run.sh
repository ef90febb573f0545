#!/usr/bin/env bash
# A pull request's toolscore check as GitHub runs it, under nektos/act (docs/action.md, issue 55
# items 3 and 4): the time from the job's start to its summary (and comment step), with the cell
# cache restored from a first run, for
#   pinned: the action image prebuilt, as a release's tag runs it (action.yml's runs.image
#           pointed at it, as scripts/pin-action-image does on a release commit), and
#   built:  the image built from the Dockerfile at the job's start, as `image: Dockerfile` does.
# Then a changed pull request: a two-tool scenario (the ledger's get_account_balance and
# list_accounts), a first run, the same unchanged, then one tool's answer changed (its account
# id and truth): which cells ran and which clients' images were built or found.
#
# How it stands in for GitHub (scripts/act-sharded's way): `uses: ./`,
# no remote action; the cache folder .toolscore-cache is copied back from the first run before
# each timed run, as actions/cache/restore would; act's own image build has no network here, so
# "built" builds the Dockerfile (no layer cache, module proxy reachable) just before act and adds
# that time to the job, and both routes run act on a `docker://` image. Not measured: the pull of
# the pinned image from its registry, and the pull of the Go toolchain image before the build
# (no registry here), nor the comment's API call (no network: the step says so and goes on).
#
# Usage: bench/prcheck/run.sh
# Env: DOCKER_HOST (else scripts/dockerd.sh's), ACT (an act binary; else go install v0.2.89),
#      SCRATCH (the scratch clone; else a new temporary folder), REPS (timed pairs, default 2),
#      CLIENTS, FAULTS, RUNS (the embedded study's subset; default its 11 SDK clients, no agent;
#      clean,error,rpc-error,type-swap,corrupt; 1 run a cell), CHANGED=0 skips the changed pull request.
# The scratch clone is of this repository's HEAD: commit what you want measured.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
reps=${REPS:-2}
clients=${CLIENTS:-raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call,ts-sdk/call,ts-sdk/list-then-call,ts-client-v2/call,ts-client-v2/list-then-call,python-sdk/call,python-sdk/list-then-call}
faults=${FAULTS:-clean,error,rpc-error,type-swap,corrupt}
runs=${RUNS:-1}
export DOCKER_HOST=${DOCKER_HOST:-$("$repo/scripts/dockerd.sh")}
command -v jq >/dev/null || { echo "prcheck: needs jq" >&2; exit 2; }

act=${ACT:-}
if [ -z "$act" ]; then
  gopath=$(mktemp -d)
  GOPATH=$gopath GOFLAGS=-mod=mod go install github.com/nektos/act@v0.2.89
  act=$gopath/bin/act
fi
goimage=$("$repo/scripts/go-image.sh" toolscore/go:local)

scratch=${SCRATCH:-$(mktemp -d /tmp/prcheck.XXXXXX)}
rm -rf "$scratch"
git clone -q "$repo" "$scratch"
cd "$scratch"
# The pinned image is kept for the next run of the same tree (docker rmi it when done); the built
# one is this run's only: the engine is shared.
pinned=toolscore-bench/action:prcheck-$(git rev-parse --short HEAD^{tree})
built=toolscore-bench/action:prcheck-$$-built
trap 'docker rmi -f "$built" >/dev/null 2>&1 || true' EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
build() { # build TAG [--no-cache]: the Dockerfile as GitHub builds it at a job's start
  DOCKER_BUILDKIT=0 docker build -q --network host ${2:-} --build-arg GO_IMAGE="$goimage" \
    --build-arg GOPROXY="$(go env GOPROXY)" -t "$1" . >build.log 2>&1 || { cat build.log >&2; exit 1; }
}

# The pinned image: built once, ahead, as the release workflow publishes it.
docker image inspect "$pinned" >/dev/null 2>&1 || build "$pinned"

mkdir -p toolscore .github/workflows
cat >toolscore/two-tools.yaml <<'EOF'
name: prcheck two tools
server:
  builtin: ledger
tools:
  - name: get_account_balance
    arguments: {account_id: ACC-4471}
    truth: ["40718.77", "4071877"]
  - name: list_accounts
    truth: ["ACC-4471"]
faults: [clean, rpc-error]
schema_modes: [hidden, published]
clients: [raw, ts-sdk/call]
runs: 1
timeout: 20s
expect:
  - {fault: rpc-error, outcome: rpc-error}
EOF
# One job: the action with the summary and the comment, as examples/workflows/pr-check.yml,
# less checkout and the cache steps (the workspace is the clone, the cache is copied back).
workflow() { # workflow IMAGE SCENARIO: the job on the action's image IMAGE
  sed -i "s|^  image: .*|  image: docker://$1|" action.yml
  cat >.github/workflows/prcheck.yml <<EOF
name: toolscore (act)
on: pull_request
permissions:
  contents: read
  pull-requests: write
jobs:
  toolscore:
    runs-on: ubuntu-latest
    steps:
      - uses: ./
        with:
          scenario: $2
          clients: \${{ env.CLIENTS }}
          faults: \${{ env.FAULTS }}
          runs: \${{ env.RUNS }}
          out: toolscore-out
          fail-on: never
          cache-dir: .toolscore-cache
EOF
}
echo '{"pull_request": {"number": 1, "head": {"ref": "prcheck"}, "base": {"ref": "main"}}}' >event.json

# job NAME CELLS: one act run of the job; prints its wall time, the sweep's and what ran.
job() {
  rm -rf toolscore-out
  local t0 t1
  t0=$(now)
  "$act" pull_request -e event.json -P ubuntu-latest=toolscore/base-node:bookworm \
    --pull=false --rebuild=false --bind --network none -W .github/workflows/prcheck.yml \
    --container-daemon-socket "$DOCKER_HOST" -s GITHUB_TOKEN=fake --no-cache-server \
    --env CLIENTS="$jobclients" --env FAULTS="$jobfaults" --env RUNS="$runs" \
    --env TOOLSCORE_NODE_IMAGE="${TOOLSCORE_NODE_IMAGE:-toolscore/base-node:bookworm}" \
    --env TOOLSCORE_PYTHON_IMAGE="${TOOLSCORE_PYTHON_IMAGE:-toolscore/base-python:bookworm}" \
    >"act-$1.log" 2>&1 || { echo "act $1 failed: $scratch/act-$1.log" >&2; tail -30 "act-$1.log" >&2; exit 1; }
  t1=$(now)
  jobsecs=$(secs "$t0" "$t1")
  sweepsecs=$(secs "$(date -d "$(jq -r .started toolscore-out/results.json)" +%s.%N)" \
    "$(date -d "$(jq -r .finished toolscore-out/results.json)" +%s.%N)")
  local n
  n=$(jq '.cells | length' toolscore-out/results.json)
  if grep -q ': building toolscore/cell-' "act-$1.log" || { [ "$2" != - ] && [ "$n" -ne "$2" ]; }; then
    echo "prcheck: $1 has $n cells, want $2, or a client's image failed: $scratch/act-$1.log" >&2
    grep -i 'error\|fail' "act-$1.log" | tail -5 >&2
    exit 1
  fi
  cellsrun=$n
  what=$(jq -r '"cells \(.cells | length), runs executed \(.runs_executed), reused \(.runs_reused); images built or found: \(.installed // [] | join(",") | if . == "" then "none" else . end); not: \(.not_installed // [] | join(",") | if . == "" then "none" else . end)"' toolscore-out/results.json)
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "prcheck: embedded study, clients $clients, faults $faults, runs $runs; load $(load)"
jobclients=$clients jobfaults=$faults
workflow "$pinned" ""
job first -
cells=$cellsrun # every later run has the first's cells
echo "first run (fills the cache): job ${jobsecs}s, sweep ${sweepsecs}s; $what"
rm -rf cache.saved && cp -a .toolscore-cache cache.saved

printf '| rep | route | job (s) | of it: image build (s) | sweep (s) | set-up (s) | load |\n|---|---|---|---|---|---|---|\n' >table.md
for r in $(seq "$reps"); do
  for route in pinned built; do
    rm -rf .toolscore-cache && cp -a cache.saved .toolscore-cache
    l=$(load)
    b0=$(now)
    buildsecs=0
    if [ "$route" = built ]; then
      build "$built" --no-cache
      buildsecs=$(secs "$b0" "$(now)")
      workflow "$built" ""
    else
      workflow "$pinned" ""
    fi
    job "$route-$r" "$cells"
    total=$(awk -v a="$buildsecs" -v b="$jobsecs" 'BEGIN { printf "%.1f", a + b }')
    setup=$(awk -v a="$total" -v b="$sweepsecs" 'BEGIN { printf "%.1f", a - b }')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$r" "$route" "$total" "$buildsecs" "$sweepsecs" "$setup" "$l" >>table.md
    echo "rep $r $route: job ${total}s (image build ${buildsecs}s), sweep ${sweepsecs}s; $what"
  done
done
cat table.md

if [ "${CHANGED:-1}" != 0 ]; then
  echo "changed pull request: toolscore/two-tools.yaml; load $(load)"
  rm -rf .toolscore-cache
  jobclients="" jobfaults=""
  workflow "$pinned" toolscore/two-tools.yaml
  job two-first -
  twocells=$cellsrun
  echo "first run: job ${jobsecs}s, sweep ${sweepsecs}s; $what"
  job two-unchanged "$twocells"
  echo "unchanged: job ${jobsecs}s, sweep ${sweepsecs}s; $what"
  sed -i 's/account_id: ACC-4471}/account_id: ACC-4476}/; s/truth: \["40718.77", "4071877"\]/truth: ["39582.04", "3958204"]/' toolscore/two-tools.yaml
  grep -q ACC-4476 toolscore/two-tools.yaml || { echo "prcheck: the variant did not apply" >&2; exit 1; }
  job two-changed "$twocells"
  echo "get_account_balance's answer changed: job ${jobsecs}s, sweep ${sweepsecs}s; $what"
  # cells per tool and client, ran or reused
  jq -r '.cells[] | select(.runs > 0) | "\(.tool) \(.client) \(if .reused_from then "reused" else "ran" end)"' \
    toolscore-out/results.json | sort | uniq -c
fi
