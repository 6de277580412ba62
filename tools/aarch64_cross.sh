#!/bin/sh
# pbaccel for 64-bit ARM Linux, cross-built on an x86-64 Debian machine and tested under qemu: the
# one command (README, "ARM64"). Installs what it needs from Debian's packages (tools/
# debian_packages.sh: the cross compiler, qemu-user, and through multiarch the arm64 builds of
# protobuf, Abseil, GoogleTest and zlib), builds the protoc plugin for the host (protoc runs it),
# then pbaccel and its whole test suite for AArch64 (cmake/toolchains/aarch64-linux-gnu.cmake), and
# runs ctest, every test under qemu-aarch64.
#
#   tools/aarch64_cross.sh <work directory> [ctest arguments...]
#
# Environment: PBACCEL_QEMU_CPU, qemu's CPU model for the tests (default max: NEON, SVE, SVE2;
# cortex-a72 is a NEON-only core); PBACCEL_HOST_PLUGIN, a protoc-gen-pbaccel already built for the
# host against the same protobuf (3.21), instead of building one; PBACCEL_CMAKE_ARGS, more
# arguments for the AArch64 configuration.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: tools/aarch64_cross.sh <work directory> [ctest arguments...]" >&2; exit 2; }
dir=$1
shift

"$src/tools/debian_packages.sh" g++ g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user cmake \
  python3 protobuf-compiler libprotoc-dev libprotobuf-dev libabsl-dev libprotozero-dev \
  libprotobuf-dev:arm64 libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 zlib1g-dev:arm64

plugin=${PBACCEL_HOST_PLUGIN:-}
if [ -z "$plugin" ]; then
  cmake -S "$src" -B "$dir/host" -DPBACCEL_BUILD_TESTS=OFF -DPBACCEL_INSTALL=OFF
  cmake --build "$dir/host" -j"$(nproc)" --target protoc-gen-pbaccel
  plugin="$dir/host/protoc-gen-pbaccel"
fi
# shellcheck disable=SC2086
cmake -S "$src" -B "$dir/aarch64" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/aarch64-linux-gnu.cmake" \
  -DPBACCEL_QEMU_CPU="${PBACCEL_QEMU_CPU:-max}" -DPBACCEL_PROTOC_GEN_PBACCEL="$plugin" \
  ${PBACCEL_CMAKE_ARGS:-}
cmake --build "$dir/aarch64" -j"$(nproc)"
ctest --test-dir "$dir/aarch64" -j"$(nproc)" --output-on-failure "$@"
