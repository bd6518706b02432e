# Sourced by the ci/ entry scripts: makes the toolchain rust-toolchain.toml pins resolvable
# without a download. This machine kind has one Rust toolchain, rustup's `stable`, and no way to
# fetch another; when `stable` is the pinned version, the pinned name is made a symbolic link
# to it in rustup's toolchains directory (`rustup toolchain link` refuses official names).
# Another version fails here, naming both.
keel_toolchain() {
  local root want have host dir
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  want="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' "$root/rust-toolchain.toml")"
  command -v rustup >/dev/null 2>&1 || return 0   # a toolchain without rustup: cargo says what it is
  if rustup toolchain list | grep -q "^$want-"; then return 0; fi
  have="$(rustup run stable rustc --version 2>/dev/null | awk '{print $2}')"
  if [[ $have != "$want" ]]; then
    echo "ci/toolchain.sh: Keel builds with Rust $want (rust-toolchain.toml); rustup's stable is ${have:-missing} and $want is not installed" >&2
    return 1
  fi
  host="$(rustup run stable rustc -vV | sed -n 's/^host: //p')"
  dir="${RUSTUP_HOME:-$HOME/.rustup}/toolchains"
  ln -sfn "$dir/stable-$host" "$dir/$want-$host"
  echo "ci/toolchain.sh: Rust $want is rustup's stable here; linked $dir/$want-$host" >&2
}
keel_toolchain
