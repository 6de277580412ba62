#!/bin/sh
# Kernels are hermetic: each kernel object exports exactly one symbol, its KernelDescriptor, and
# defines no weak symbols. A weak (inline or template) function compiled with AVX-512 flags could be
# picked by the linker for every caller, and crash CPUs without AVX-512 (Abseil's rule for
# instruction-set-specific targets). And every function's code starts at the alignment kernels.bzl's
# KERNEL_CODE_COPTS gives it, so where a kernel's hot decoder lies in a cache line is the same in
# every program that links it. Arguments: --function-alignment=N (a power of two, 16 to 256:
# kernels.bzl's kernel_function_alignment()), then the kernels' archives.
set -u
case "${1:-}" in
  --function-alignment=*) alignment=${1#--function-alignment=}; shift ;;
  *) echo "FAIL: first argument must be --function-alignment=N"; exit 1 ;;
esac
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
  # A function is aligned when its section's alignment (objdump's 2**k) is at least the alignment
  # and its offset is a multiple of it (the offset's last two hex digits decide, for alignments up
  # to 256). Cold parts (.text.unlikely) and start-up code (.text.startup) are left out, as are the
  # functions the compiler adds (static initializers, a sanitizer's module constructors).
  misaligned=$(objdump -h -t "$archive" | awk -v alignment="$alignment" '
    function hex2(s) { return 16 * (index("0123456789abcdef", substr(s, 1, 1)) - 1) + \
                            index("0123456789abcdef", substr(s, 2, 1)) - 1 }
    / file format / { delete align }
    /^ *[0-9]+ \.text/ { split($NF, a, "[*][*]"); align[$2] = 2 ^ a[2] }
    match($0, / F [^ \t]+/) {
      section = substr($0, RSTART + 3, RLENGTH - 3)
      if (section ~ /^\.text\.(unlikely|startup)/) next
      offset = hex2(substr($1, length($1) - 1))
      if (align[section] < alignment || offset % alignment != 0) print $NF
    }' | grep -Ev "$compiler_made|^_GLOBAL__|^[a-z]+\.module_[cd]tor")
  if [ -n "$misaligned" ]; then
    echo "FAIL: $archive has functions not at a $alignment-byte line (KERNEL_CODE_COPTS not applied?):"
    echo "$misaligned" | sed 's/^/    /' | head -20
    status=1
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAIL: no kernel archives given"; exit 1; }
if [ "$status" -eq 0 ]; then echo "$checked passed, 0 failed"; else echo "0 passed, $checked failed"; fi
exit $status
