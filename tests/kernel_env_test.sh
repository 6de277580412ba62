#!/bin/sh
# PBACCEL_KERNEL as a user sets it: honoured when valid, a one-line warning (and a working program)
# when not. Runs //tools:kernel_info, which decodes a payload through the public API.
set -u
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
# A cross build's tests run the program through its emulator (ctest sets PBACCEL_TEST_EMULATOR to
# CMAKE_CROSSCOMPILING_EMULATOR, e.g. "qemu-aarch64 -cpu max"); empty otherwise.
emulator=${PBACCEL_TEST_EMULATOR:-}
cd "${TEST_TMPDIR:-$(mktemp -d)}" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

out=$(PBACCEL_KERNEL=scalar $emulator "$bin" 2>err.txt) || fail "PBACCEL_KERNEL=scalar: exit $?"
echo "$out" | grep -q '^active: scalar$' || fail "PBACCEL_KERNEL=scalar not honoured: $out"
[ ! -s err.txt ] || fail "PBACCEL_KERNEL=scalar printed to stderr: $(cat err.txt)"

auto=$(PBACCEL_KERNEL=auto $emulator "$bin" 2>/dev/null | sed -n 's/^auto-selected: //p')
[ -n "$auto" ] || fail "no auto-selected kernel"
PBACCEL_KERNEL=auto $emulator "$bin" 2>/dev/null | grep -q "^active: $auto\$" || fail "auto is not the automatic choice"
env -u PBACCEL_KERNEL $emulator "$bin" 2>/dev/null | grep -q "^active: $auto\$" || fail "unset is not the automatic choice"

out=$(PBACCEL_KERNEL=bogus $emulator "$bin" 2>err.txt) || fail "PBACCEL_KERNEL=bogus must not be fatal (exit $?)"
echo "$out" | grep -q "^active: $auto\$" || fail "PBACCEL_KERNEL=bogus did not fall back to auto: $out"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one warning line, got: $(cat err.txt)"
grep -q "PBACCEL_KERNEL=bogus is not a kernel" err.txt || fail "unexpected warning: $(cat err.txt)"
echo "$out" | grep -q "^decoded 40 values: OK$" || fail "decode failed under bogus: $out"

for k in $(PBACCEL_KERNEL=auto $emulator "$bin" 2>/dev/null | awk '/^  [a-z0-9_]+ +supported/ {print $1}'); do
  PBACCEL_KERNEL=$k $emulator "$bin" 2>/dev/null | grep -q "^active: $k\$" || fail "PBACCEL_KERNEL=$k not honoured"
done
echo "1 passed, 0 failed"
