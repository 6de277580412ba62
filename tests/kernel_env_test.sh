#!/bin/sh
# PBACCEL_KERNEL as a user sets it: honoured when valid, a one-line warning (and a working program)
# when not. Runs //tools:kernel_info, which decodes a payload through the public API.
set -u
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "${TEST_TMPDIR:-$(mktemp -d)}" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

out=$(PBACCEL_KERNEL=scalar "$bin" 2>err.txt) || fail "PBACCEL_KERNEL=scalar: exit $?"
echo "$out" | grep -q '^active: scalar$' || fail "PBACCEL_KERNEL=scalar not honoured: $out"
[ ! -s err.txt ] || fail "PBACCEL_KERNEL=scalar printed to stderr: $(cat err.txt)"

auto=$(PBACCEL_KERNEL=auto "$bin" 2>/dev/null | sed -n 's/^auto-selected: //p')
[ -n "$auto" ] || fail "no auto-selected kernel"
PBACCEL_KERNEL=auto "$bin" 2>/dev/null | grep -q "^active: $auto\$" || fail "auto is not the automatic choice"
env -u PBACCEL_KERNEL "$bin" 2>/dev/null | grep -q "^active: $auto\$" || fail "unset is not the automatic choice"

out=$(PBACCEL_KERNEL=bogus "$bin" 2>err.txt) || fail "PBACCEL_KERNEL=bogus must not be fatal (exit $?)"
echo "$out" | grep -q "^active: $auto\$" || fail "PBACCEL_KERNEL=bogus did not fall back to auto: $out"
[ "$(wc -l < err.txt)" -eq 1 ] || fail "expected one warning line, got: $(cat err.txt)"
grep -q "PBACCEL_KERNEL=bogus is not a kernel" err.txt || fail "unexpected warning: $(cat err.txt)"
echo "$out" | grep -q "^decoded 40 values: OK$" || fail "decode failed under bogus: $out"

for k in $(PBACCEL_KERNEL=auto "$bin" 2>/dev/null | awk '/^  [a-z0-9_]+ +supported/ {print $1}'); do
  PBACCEL_KERNEL=$k "$bin" 2>/dev/null | grep -q "^active: $k\$" || fail "PBACCEL_KERNEL=$k not honoured"
done
echo "1 passed, 0 failed"
