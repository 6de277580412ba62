#!/bin/sh
# Installs the given Debian packages where they are missing: the one installer of the repository's
# build dependencies (./bazelw runs it with the Bazel build's packages; .ci/run with the AArch64
# cross build's, tools/aarch64_packages.txt).
#
#   tools/debian_packages.sh <package>[:<architecture>]...
#
# Idempotent: when everything is present it costs one dpkg-query call and prints nothing.
# Installs with apt-get (as root, or through sudo), running `apt-get update` first only when a
# package cannot be found in the current package lists. A package of another architecture
# (libprotobuf-dev:arm64) has that architecture added to dpkg first (Debian multiarch).
set -eu

die() {
  echo "debian_packages.sh: $*" >&2
  exit 1
}

[ $# -gt 0 ] || die "usage: tools/debian_packages.sh <package>[:<architecture>]..."
command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: pbaccel's build expects Debian's packages"

# The packages of "$@" not installed. dpkg-query names a foreign package with its architecture,
# and a native one with it too when several architectures may hold it (Multi-Arch: same).
missing_packages() {
  dpkg-query -W -f='${binary:Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
    awk -v wanted="$*" -v native=":$(dpkg --print-architecture)" '
      BEGIN { n = split(wanted, p, " ") }
      $2 == "installed" { ok[$1] = 1; if (sub(native "$", "", $1)) ok[$1] = 1 }
      END { for (i = 1; i <= n; i++) if (!(p[i] in ok)) print p[i] }'
}

missing=$(missing_packages "$@")
[ -n "$missing" ] || exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  # shellcheck disable=SC2086
  die "missing Debian packages:" $missing "; install them as root (apt-get install ...) or install sudo"
fi
command -v apt-get >/dev/null 2>&1 ||
  die "missing packages: $missing; this script installs them with apt-get (Debian/Ubuntu) only"
echo "debian_packages.sh: installing missing Debian packages:" $missing >&2

# Foreign architectures first (a new one needs fresh package lists).
update=false
for pkg in $missing; do
  case "$pkg" in
    *:*)
      arch=${pkg#*:}
      if [ "$arch" != "$(dpkg --print-architecture)" ] &&
        ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
        $as_root dpkg --add-architecture "$arch" || die "dpkg --add-architecture $arch failed"
        update=true
      fi
      ;;
  esac
done
# Refresh the package lists when one of the packages is unknown to them.
for pkg in $missing; do
  if $update || ! apt-cache show "$pkg" >/dev/null 2>&1; then
    $as_root apt-get update -q >&2 || die "apt-get update failed"
    break
  fi
done
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -q --no-install-recommends $missing >&2 ||
  die "apt-get install $missing failed"
missing=$(missing_packages "$@")
[ -z "$missing" ] || die "still missing after apt-get install: $missing"
