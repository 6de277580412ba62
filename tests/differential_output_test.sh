#!/bin/sh
# pbaccel_differential_test's output, as a user reads it (tools/differential_main.cc): one summary
# line per message type naming its paths and kernels, upstream's log lines counted instead of
# printed, and a distinct error for a misspelt type and for a type whose cc_proto_library is not
# linked. $1: a differential binary linking proto/parser_test3's cc_proto_library.
set -u
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
# A cross build's tests run the program through its emulator (ctest sets PBACCEL_TEST_EMULATOR to
# CMAKE_CROSSCOMPILING_EMULATOR, e.g. "qemu-aarch64 -cpu max"); empty otherwise.
emulator=${PBACCEL_TEST_EMULATOR:-}
cd "${TEST_TMPDIR:-$(mktemp -d)}" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

# proto3 strings: the malformed inputs make upstream log "invalid UTF-8 data" many times.
env -u PBACCEL_TEST_ITERATIONS_PERCENT $emulator "$bin" --messages=pbaccel.test3.All3 --iterations=20 \
  >out.txt 2>&1 || fail "All3: exit $?: $(cat out.txt)"
grep -q '^pbaccel.test3.All3: 20 random messages, .* valid and .* malformed inputs.*kernels run: ' out.txt ||
  fail "no summary line: $(cat out.txt)"
grep -q 'upstream logged [0-9]* line' out.txt || fail "upstream's log lines not counted: $(cat out.txt)"
# Printed, they would start "[libprotobuf ERROR" (protobuf 3.21) or "E1206 23:59:59" (22 and later,
# Abseil's format; "E0000 00:00" before Abseil's logging is initialized).
printed='^(\[libprotobuf |[IWEF][0-9]{4} )'
! grep -q -E "$printed" out.txt || fail "upstream's log lines printed: $(grep -m3 -E "$printed" out.txt)"

# A share of the iterations (slow environments: emulators, sanitizers).
PBACCEL_TEST_ITERATIONS_PERCENT=10 $emulator "$bin" --messages=pbaccel.test3.All3 --iterations=20 \
  >out.txt 2>&1 || fail "All3 at 10 %: exit $?: $(cat out.txt)"
grep -q '^pbaccel.test3.All3: 2 random messages, ' out.txt || fail "10 % of 20: $(cat out.txt)"
# A value outside 1-100 is ignored: every random message.
PBACCEL_TEST_ITERATIONS_PERCENT=0 $emulator "$bin" --messages=pbaccel.test3.All3 --iterations=20 \
  >out.txt 2>&1 || fail "All3 at 0 %: exit $?: $(cat out.txt)"
grep -q '^pbaccel.test3.All3: 20 random messages, ' out.txt || fail "0 % ignored: $(cat out.txt)"

! $emulator "$bin" --messages=pbaccel.test3.Al3 >out.txt 2>&1 || fail "a misspelt type passed"
grep -q 'no such message type: pbaccel.test3.Al3 (linked types of its package: .*pbaccel.test3.All3' out.txt ||
  fail "misspelt type: $(cat out.txt)"

! $emulator "$bin" --messages=elsewhere.Order >out.txt 2>&1 || fail "an unlinked type passed"
grep -q 'message type elsewhere.Order is not linked: add its cc_proto_library to deps' out.txt ||
  fail "unlinked type: $(cat out.txt)"
echo "PASS"
