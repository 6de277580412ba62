#!/bin/sh
# PBACCEL_GRPC_USE_FOR(T) on a type pbaccel cannot take fails to compile with an error naming T:
# a LITE_RUNTIME message without its generated parser header, and a type that is not a message.
# A full-runtime message compiles (the control: the same compiler, flags and include paths).
# Argument: the public headers (//lib:public_headers); the compiler is g++ (or $CXX), the system's
# protobuf, Abseil and gRPC headers are Debian's, as in the build.
set -u
header=""
for f in "$@"; do
  case "$f" in */pbaccel/grpc.h) header="$f" ;; esac
done
[ -n "$header" ] || { echo "FAIL: pbaccel/grpc.h not among the arguments"; exit 1; }
include=$(dirname "$(dirname "$header")")
cxx=${CXX:-g++}
work=${TEST_TMPDIR:-/tmp}/use_for
mkdir -p "$work"
status=0

# compile NAME EXPECT_OK EXPECTED_ERROR: compiles $work/NAME.cc.
compile() {
  if "$cxx" -std=c++17 -fsyntax-only -I "$include" "$work/$1.cc" > "$work/$1.log" 2>&1; then
    if [ "$2" = no ]; then
      echo "FAIL: $1 compiled, expected: $3"
      status=1
    else
      echo "ok: $1 compiles"
    fi
  else
    if [ "$2" = yes ]; then
      echo "FAIL: $1 did not compile:"
      sed 's/^/    /' "$work/$1.log" | head -30
      status=1
    elif ! grep -qF "$3" "$work/$1.log"; then
      echo "FAIL: $1's errors do not say: $3"
      sed 's/^/    /' "$work/$1.log" | head -30
      status=1
    elif [ "$(grep -c ': error:' "$work/$1.log")" -gt 1 ]; then
      echo "FAIL: $1 fails with more than the one error:"
      grep ': error:' "$work/$1.log" | sed 's/^/    /'
      status=1
    else
      echo "ok: $1 is rejected: $(grep ': error:' "$work/$1.log" | sed 's/.*error: //')"
    fi
  fi
}

cat > "$work/full.cc" <<'CC'
#include "google/protobuf/duration.pb.h"
#include "pbaccel/grpc.h"
PBACCEL_GRPC_USE_FOR(google::protobuf::Duration);
CC
compile full yes ""

cat > "$work/lite.cc" <<'CC'
#include "google/protobuf/message_lite.h"
#include "pbaccel/grpc.h"
namespace my { class LiteRequest : public google::protobuf::MessageLite {}; }
PBACCEL_GRPC_USE_FOR(my::LiteRequest);
CC
compile lite no "PBACCEL_GRPC_USE_FOR(my::LiteRequest): my::LiteRequest is a LITE_RUNTIME message"

cat > "$work/not_a_message.cc" <<'CC'
#include "pbaccel/grpc.h"
namespace my { struct Point { int x, y; }; }
PBACCEL_GRPC_USE_FOR(my::Point);
CC
compile not_a_message no "PBACCEL_GRPC_USE_FOR(my::Point): my::Point is not a protobuf message type"

exit $status
