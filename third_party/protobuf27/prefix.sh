#!/bin/sh
# Prints the install prefix of protobuf 27 (with its own Abseil and utf8_range), building it first
# when the cache does not hold it yet. The one command a CMake build against protobuf 27 needs:
#
#   cmake -S . -B build27 -DCMAKE_PREFIX_PATH="$(third_party/protobuf27/prefix.sh)"
#
# The build is the protobuf-src crate's (crates.io, 2.1.1+27.1: protobuf 27.2's tree), run through
# cargo as the crate is meant to be used: this directory's crate depends on it, and the crate's build
# script compiles protobuf with CMake (Release, static libraries, protoc). One setting is ours: the
# cmake crate's CMAKE_TOOLCHAIN_FILE variable names cxx17.cmake, so that protobuf and its Abseil
# are compiled as C++17 (the crate asks for 14; Abseil must be compiled with the C++ standard of
# the code that uses it, and pbaccel is C++17).
#
# The install tree is copied to the cache, keyed by the crate version pinned in Cargo.lock,
#
#   ${PBACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pbaccel}/protobuf-src-<version>-cxx17
#
# and reused from there by later runs (CI, other checkouts); cargo's own build directory is deleted
# once the copy is complete. (Builds under ASan use an instrumented protobuf 33.5:
# third_party/protobuf_release/prefix.py --asan.)
#
# Needs cargo, cmake, g++ and crates.io. A cold build took 7-8 minutes on 2 cores (progress on
# stderr; stdout is only the prefix).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${PBACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pbaccel}
version=$(awk '/^name = "protobuf-src"$/ { getline; gsub(/[" ]/, "", $0); sub(/^version=/, "", $0); print; exit }' \
  "$here/Cargo.lock")
[ -n "$version" ] || { echo "prefix.sh: no protobuf-src version in $here/Cargo.lock" >&2; exit 1; }
[ $# -eq 0 ] || { echo "usage: prefix.sh" >&2; exit 2; }
variant=cxx17
prefix="$cache/protobuf-src-$version-$variant"

if [ ! -f "$prefix/.complete" ]; then
  command -v cargo >/dev/null 2>&1 || { echo "prefix.sh: cargo not found (rustup or Debian's cargo)" >&2; exit 1; }
  mkdir -p "$cache"
  target="$cache/cargo-target-$version-$variant"
  echo "prefix.sh: building protobuf $version ($variant) with cargo (protobuf-src); once per cache" >&2
  built=$(CARGO_TARGET_DIR="$target" NUM_JOBS="${NUM_JOBS:-$(nproc)}" \
    CMAKE_TOOLCHAIN_FILE="$here/cxx17.cmake" \
    cargo run --quiet --release --locked --manifest-path "$here/Cargo.toml")
  [ -f "$built/lib/cmake/protobuf/protobuf-config.cmake" ] ||
    { echo "prefix.sh: cargo's build left no protobuf CMake package under $built" >&2; exit 1; }
  rm -rf "$prefix" "$prefix.partial"
  mkdir -p "$prefix.partial"
  # The install tree only (cargo's out directory also holds CMake's build tree).
  for part in bin include lib; do
    if [ -d "$built/$part" ]; then cp -a "$built/$part" "$prefix.partial/"; fi
  done
  # pkg-config files name their install directory: name it relative to the file instead, as CMake's
  # package files find their prefix, so the cache can move (or be copied) and still be used.
  for pc in "$prefix.partial"/lib/pkgconfig/*.pc; do
    sed -i "s|$built|\${pcfiledir}/../..|g" "$pc"
  done
  touch "$prefix.partial/.complete"
  mv "$prefix.partial" "$prefix"
  rm -rf "$target"
fi
echo "$prefix"
