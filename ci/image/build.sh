#!/usr/bin/env bash
# Builds Keel's OCI image from Debian packages (no registry needed): a bookworm minbase made
# with debootstrap (ca-certificates, curl, jq added), imported as localhost/keel-base:bookworm
# once, then Containerfile on top with the release `keel` (stripped) → localhost/keel:latest.
#
#   ci/image/build.sh                 # builds the release binary first (cargo, ~11 min cold)
#   KEEL_BIN=/path/to/keel ci/image/build.sh   # an existing binary
#   KEEL_IMAGE_ARCHIVE=1 ci/image/build.sh     # also saves $STATE/keel.oci.tar (oci-archive)
#
# Needs root (debootstrap, podman's overlay storage); installs podman, buildah, runc and
# debootstrap with apt when missing. Idempotent: the base is made once (`--rebase` remakes it);
# podman runs with a private configuration under $STATE (runc, host network, ulimits the host
# allows), the system's containers.conf untouched. Timings: see ci/image/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
STATE="${KEEL_IMAGE_STATE:-/var/tmp/keel-image}"
IMAGE="${KEEL_IMAGE:-localhost/keel:latest}"
BASE="localhost/keel-base:bookworm"
MIRROR="${KEEL_DEBIAN_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
log() { echo "[image $(date +%H:%M:%S)] $*"; }
t0=$(date +%s)

missing=()
for tool in podman buildah runc debootstrap; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null
fi

mkdir -p "$STATE"
# shellcheck source=ci/image/podman-env.sh
source ci/image/podman-env.sh

if [[ "${1:-}" == --rebase ]] || ! podman image exists "$BASE"; then
  log "base: debootstrap --variant=minbase bookworm from $MIRROR"
  rm -rf "$STATE/rootfs"
  debootstrap --variant=minbase --include=ca-certificates,curl,jq bookworm "$STATE/rootfs" "$MIRROR" \
    > "$STATE/debootstrap.log" 2>&1 || { tail -20 "$STATE/debootstrap.log"; exit 1; }
  rm -rf "$STATE/rootfs/var/cache/apt/archives/"*.deb "$STATE/rootfs/var/lib/apt/lists/"*
  tar -C "$STATE/rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$STATE/rootfs"
  log "base imported as $BASE"
fi

if [[ -z "${KEEL_BIN:-}" ]]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/tmp/keel-target}"
  log "cargo build --release -p keel (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
  cargo build --locked --release -p keel
  KEEL_BIN="$CARGO_TARGET_DIR/release/keel"
fi
ctx="$STATE/context"
rm -rf "$ctx" && mkdir -p "$ctx"
cp ci/image/Containerfile ci/image/kolla_start ci/image/kolla_set_configs \
   ci/image/kolla_extend_start ci/image/healthcheck_curl "$ctx/"
mkdir -p "$ctx/httpd" && cp ci/image/httpd/00-keel.conf "$ctx/httpd/"
strip --strip-debug -o "$ctx/keel" "$KEEL_BIN" 2>/dev/null || cp "$KEEL_BIN" "$ctx/keel"
tb=$(date +%s)
podman build --network host --build-arg BASE="$BASE" -t "$IMAGE" -f "$ctx/Containerfile" "$ctx" \
  > "$STATE/build.log" 2>&1 || { tail -30 "$STATE/build.log"; exit 1; }
te=$(date +%s)
size=$(podman image inspect "$IMAGE" --format '{{.Size}}')
log "built $IMAGE: $((size / 1000000)) MB, image step $((te - tb)) s, total $((te - t0)) s"
if [[ -n "${KEEL_IMAGE_ARCHIVE:-}" ]]; then
  rm -f "$STATE/keel.oci.tar"
  podman save --format oci-archive -o "$STATE/keel.oci.tar" "$IMAGE"
  log "saved $STATE/keel.oci.tar ($(( $(stat -c %s "$STATE/keel.oci.tar") / 1000000 )) MB)"
fi
