# Sourced by build.sh and smoke.sh: podman with a private configuration under $STATE, as
# works on these machines (runc, not crun; host network; ulimits within the host's hard
# limits; cgroupfs). Needs STATE set.
mkdir -p "$STATE/storage" "$STATE/run"
nofile=$(ulimit -Hn)
[[ "$nofile" == unlimited ]] && nofile=1048576
cat > "$STATE/containers.conf" <<CONF
[containers]
netns = "host"
default_ulimits = ["nofile=$nofile:$nofile", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
cat > "$STATE/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$STATE/storage"
runroot = "$STATE/run"
CONF
export CONTAINERS_CONF="$STATE/containers.conf" CONTAINERS_STORAGE_CONF="$STATE/storage.conf"
