#!/bin/sh
# A program built against an installed pbaccel with pkg-config alone, as the README's "Using it
# from CMake" says for builds without CMake. $1: the install prefix.
set -eu
prefix="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046
c++ -O2 -o "$work/kernel_report" "$here/kernel_report.cc" $(pkg-config --cflags --libs pbaccel) \
  -Wl,-rpath,"$(pkg-config --variable=libdir pbaccel)"
"$work/kernel_report"
rm -rf "$work"
