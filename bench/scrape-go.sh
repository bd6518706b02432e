#!/usr/bin/env bash
# The monitoring scrape replayed with gophercloud, the Go client openstack-exporter is built on
# (bench/scrape-go/main.go): installs Debian's golang-go and gophercloud 0.12 if missing
# (apt, ~1 min on this machine), builds the replay (~10 s the first time), runs it.
#   source ci/stack/env.sh admin
#   bench/scrape-go.sh -endpoint http://127.0.0.1:9878 [-stats-limit N] [-json out.json]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
missing=()
for p in golang-go golang-github-gophercloud-gophercloud-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
bin="${SCRAPE_GO_BIN:-/var/tmp/keel-bench/scrape-go}"
mkdir -p "$(dirname "$bin")"
if [[ ! -x $bin || $here/scrape-go/main.go -nt $bin ]]; then
  GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="${GOCACHE:-/var/tmp/keel-bench/go-cache}" \
    go build -o "$bin" "$here/scrape-go/main.go"
fi
exec "$bin" "$@"
