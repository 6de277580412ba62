#!/bin/sh
# Kernels are hermetic: each kernel object exports exactly one symbol, its KernelDescriptor, and
# defines no weak symbols. A weak (inline or template) function compiled with AVX-512 flags could be
# picked by the linker for every caller, and crash CPUs without AVX-512 (Abseil's rule for
# instruction-set-specific targets). Arguments: the kernels' archives.
set -u
status=0
checked=0
# Symbols a sanitizer or the unwinder adds on its own (ASan's ODR indicators, the C++ personality
# routine reference, the type_info of function types that clang's -fsanitize=function checks
# calls against) are not code; they are left out.
compiler_made='^(__odr_asan|__asan|__ubsan|__sancov|DW\.ref\.__gxx_personality_v0|_ZT[IS]P?F)'
for archive in "$@"; do
  case "$archive" in *.so) continue ;; esac
  weak=$(nm --defined-only "$archive" | awk '$2 ~ /^[WVuiI]$/ {print $3}' | grep -Ev "$compiler_made")
  if [ -n "$weak" ]; then
    echo "FAIL: $archive defines weak symbols (shared code compiled with kernel flags):"
    echo "$weak" | sed 's/^/    /'
    status=1
  fi
  exported=$(nm --defined-only --extern-only "$archive" | awk 'NF == 3 {print $3}' | grep -Ev "$compiler_made")
  count=$(echo "$exported" | grep -c .)
  if [ "$count" -ne 1 ] || ! echo "$exported" | grep -q '^_ZN7pbaccel8internal[0-9]*k[A-Za-z0-9]*KernelE$'; then
    echo "FAIL: $archive must export exactly its KernelDescriptor, exports:"
    echo "$exported" | sed 's/^/    /'
    status=1
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAIL: no kernel archives given"; exit 1; }
if [ "$status" -eq 0 ]; then echo "$checked passed, 0 failed"; else echo "0 passed, $checked failed"; fi
exit $status
