#!/bin/sh
# Instructions retired per decoded value (synthetic rows) and per message byte (real corpora) on
# AArch64, counted under qemu-aarch64 by qemu's own instruction-counting plugin: the numbers of
# docs/arm64.md. Counts, not times (qemu's speed says nothing about a real core's).
#
#   tools/arm64_instructions.sh <AArch64 build directory: tools/aarch64_cross.sh's <dir>/aarch64>
#
# The plugin (tests/plugin/insn.c) is built from the source of the qemu Debian ships (apt-get
# source, through a private source list: the machine's apt configuration is not touched) once per
# cache, ${PBACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pbaccel}/qemu-insn-<version>/libinsn.so.
#
# Each figure is the difference of two runs of the build's instruction_counts program
# (bench/instruction_counts.cc), with R and 2R repetitions of the same work: loading the input,
# checking the result against upstream and start-up cancel out. Environment: PBACCEL_QEMU_CPU
# (default max), ROWS (synthetic rows, default: every workload of docs/workloads.md),
# N (values per array, default 4096), REPS (R, default 4).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: tools/arm64_instructions.sh <AArch64 build directory>}
program="$build/cmake/tests/instruction_counts"
[ -x "$program" ] || { echo "arm64_instructions.sh: no $program (build it first)" >&2; exit 1; }
cpu=${PBACCEL_QEMU_CPU:-max}
rows=${ROWS:-1byte W1 W2 W3 W4 len1to5 len1to10 int32neg25 sint32W4 bool tiles}
n=${N:-4096}
reps=${REPS:-4}

"$src/tools/debian_packages.sh" qemu-user gcc libglib2.0-dev dpkg-dev xz-utils
version=$(dpkg-query -W -f='${source:Version}' qemu-user)  # The source's (no binNMU suffix).
cache=${PBACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pbaccel}
plugin="$cache/qemu-insn-$version/libinsn.so"
if [ ! -f "$plugin" ]; then
  work=$(mktemp -d)
  # Debian's source archive, as the machine's binary sources name it (deb -> deb-src).
  mkdir -p "$work/lists/partial" "$work/src" "$work/parts"
  : > "$work/sources.list"
  for list in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    if [ -f "$list" ]; then sed -n 's/^deb /deb-src /p' "$list" >> "$work/sources.list"; fi
  done
  for list in /etc/apt/sources.list.d/*.sources; do
    if [ -f "$list" ]; then sed 's/^Types: deb$/Types: deb-src/' "$list" > "$work/parts/$(basename "$list")"; fi
  done
  apt_private="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=$work/parts \
    -o Dir::State::Lists=$work/lists"
  # shellcheck disable=SC2086
  apt-get $apt_private update -q >&2
  # shellcheck disable=SC2086
  (cd "$work/src" && apt-get $apt_private source --download-only "qemu=$version" >&2)
  tar -C "$work/src" -xJf "$work"/src/qemu_*.orig.tar.xz --wildcards \
    '*/include/qemu/qemu-plugin.h' '*/tests/plugin/insn.c'
  tree=$(ls -d "$work"/src/qemu-*/)
  mkdir -p "$(dirname "$plugin")"
  # shellcheck disable=SC2046
  gcc -shared -fPIC -O2 -I"$tree/include/qemu" $(pkg-config --cflags glib-2.0) \
    "$tree/tests/plugin/insn.c" -o "$plugin.partial" $(pkg-config --libs glib-2.0)
  mv "$plugin.partial" "$plugin"
  rm -rf "$work"
fi

# Instructions of one run: qemu's plugin log (-d plugin) holds "insns: N".
# kernel_env: "PBACCEL_KERNEL=<name>" for the real corpora's pbaccel runs, else empty.
kernel_env=""
count() {
  env $kernel_env qemu-aarch64 -cpu "$cpu" -plugin "$plugin,inline=on" -d plugin -D "$build/insn.log" "$program" "$@" \
    > "$build/insn.out"
  sed -n 's/^insns: //p' "$build/insn.log"
}
# Instructions per unit of R repetitions: (count(2R) - count(R)) / (R * units per repetition).
per_unit() {
  units_key=$1
  shift
  one=$(count "$@" --reps="$reps")
  units=$(sed -n "s/.*$units_key=\([0-9]*\).*/\1/p" "$build/insn.out")
  two=$(count "$@" --reps=$((2 * reps)))
  awk -v a="$one" -v b="$two" -v r="$reps" -v u="$units" 'BEGIN { printf "%.2f", (b - a) / (r * u) }'
}

kernels=$(qemu-aarch64 -cpu "$cpu" "$build/cmake/tests/kernel_info" |
  awk '/^  [a-z0-9_]+ +supported/ { print $1 }')
echo "qemu-aarch64 -cpu $cpu; $(qemu-aarch64 --version | head -1)"
echo
echo "Synthetic rows, n = $n: instructions per decoded value"
printf "| row | upstream (ParseFromString) |"
for k in $kernels; do printf " %s |" "$k"; done
echo
for row in $rows; do
  printf "| %s | %s |" "$row" "$(per_unit values_per_rep --workload="$row" --n="$n" --decoder=upstream)"
  for k in $kernels; do
    printf " %s |" "$(per_unit values_per_rep --workload="$row" --n="$n" --decoder="kernel:$k")"
  done
  echo
done
echo
echo "Real corpora (testing/data), messages reused: instructions per message byte"
printf "| corpus | upstream |"
for k in $kernels; do printf " pbaccel, %s |" "$k"; done
echo
for corpus in osm tiles pprof; do
  printf "| %s | %s |" "$corpus" \
    "$(per_unit bytes_per_rep --corpus="$corpus" --data="$src/testing/data" --decoder=upstream)"
  for k in $kernels; do
    kernel_env="PBACCEL_KERNEL=$k"
    printf " %s |" "$(per_unit bytes_per_rep --corpus="$corpus" --data="$src/testing/data" \
      --decoder=pbaccel)"
    kernel_env=""
  done
  echo
done
