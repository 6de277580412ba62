# The kernel table for CMake, read from the same definition Bazel uses: parsers/kernels.bzl
# (CPU_FEATURES: each feature's compiler flag and CpuFeature enumerator; KERNELS: the rows in
# priority order, with their features and veto rule). So the two builds cannot drift: a kernel is
# compiled with exactly the flags of its declared features, and kernel_table.inc is written the
# same way as kernels.bzl's _kernel_table_inc rule writes it.
#
#   pbaccel_read_kernel_table(<bzl file>)
#     sets PBACCEL_KERNELS (names, in priority order) and, per kernel K, PBACCEL_KERNEL_<K>_FEATURES
#     and PBACCEL_KERNEL_<K>_VETO; per feature F, PBACCEL_FEATURE_<F>_COPT and _ENUM.
#   pbaccel_write_kernel_table_inc(<output file>)
#     writes the registry's table (lib/kernel_registry.cc includes it as parsers/kernel_table.inc).

function(pbaccel_read_kernel_table bzl)
  file(READ "${bzl}" text)
  # CPU_FEATURES = { "name": struct(enum = "kX", copt = "-mX"), ... }
  string(REGEX MATCHALL "\"[a-z0-9.]+\": struct\\(enum = \"[A-Za-z0-9]+\", copt = \"[-a-z0-9.]+\"\\)"
         feature_rows "${text}")
  foreach(row IN LISTS feature_rows)
    string(REGEX MATCH "^\"([a-z0-9.]+)\": struct\\(enum = \"([A-Za-z0-9]+)\", copt = \"([-a-z0-9.]+)\"\\)"
           _ "${row}")
    set(PBACCEL_FEATURE_${CMAKE_MATCH_1}_ENUM "${CMAKE_MATCH_2}" PARENT_SCOPE)
    set(PBACCEL_FEATURE_${CMAKE_MATCH_1}_COPT "${CMAKE_MATCH_3}" PARENT_SCOPE)
    set(feature_${CMAKE_MATCH_1} TRUE)
  endforeach()
  if(NOT feature_rows)
    message(FATAL_ERROR "pbaccel: no CPU_FEATURES rows found in ${bzl}")
  endif()
  # KERNELS = [ struct(name = "...", <comments> features = [...], veto = ...), ... ]
  string(FIND "${text}" "KERNELS = [" start)
  string(SUBSTRING "${text}" ${start} -1 table)
  string(REGEX REPLACE "#[^\n]*" "" table "${table}")  # Comments may hold brackets.
  string(REGEX MATCHALL "struct\\([^)]*\\)" kernel_rows "${table}")
  set(names)
  foreach(row IN LISTS kernel_rows)
    if(NOT row MATCHES "name = \"([a-z0-9_]+)\"")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    if(NOT row MATCHES "features = \\[([^]]*)\\]")
      message(FATAL_ERROR "pbaccel: kernel ${name} has no features list in ${bzl}")
    endif()
    string(REGEX MATCHALL "\"[a-z0-9.]+\"" features "${CMAKE_MATCH_1}")
    string(REPLACE "\"" "" features "${features}")
    foreach(f IN LISTS features)
      if(NOT feature_${f})
        message(FATAL_ERROR "pbaccel: kernel ${name} declares unknown CPU feature ${f}")
      endif()
    endforeach()
    set(veto "")
    if(row MATCHES "veto = \"([A-Za-z0-9]+)\"")
      set(veto "${CMAKE_MATCH_1}")
    endif()
    list(APPEND names "${name}")
    set(PBACCEL_KERNEL_${name}_FEATURES "${features}" PARENT_SCOPE)
    set(PBACCEL_KERNEL_${name}_VETO "${veto}" PARENT_SCOPE)
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "pbaccel: no KERNELS rows found in ${bzl}")
  endif()
  set(PBACCEL_KERNELS "${names}" PARENT_SCOPE)
endfunction()

# masked_vbyte_avx2 -> kMaskedVbyteAvx2Kernel (kernels.bzl's descriptor_symbol).
function(pbaccel_descriptor_symbol name out)
  string(REPLACE "_" ";" parts "${name}")
  set(symbol "k")
  foreach(part IN LISTS parts)
    string(SUBSTRING "${part}" 0 1 first)
    string(SUBSTRING "${part}" 1 -1 rest)
    string(TOUPPER "${first}" first)
    string(APPEND symbol "${first}${rest}")
  endforeach()
  set(${out} "${symbol}Kernel" PARENT_SCOPE)
endfunction()

function(pbaccel_write_kernel_table_inc out)
  set(lines
      "// Generated from the KERNELS table in parsers/kernels.bzl. Do not edit."
      "//"
      "// PBACCEL_KERNEL_ENTRY(descriptor, required CpuFeature mask, veto rule or nullptr), in"
      "// priority order. x86-64-only kernels are guarded by PBACCEL_X86_KERNELS.")
  foreach(k IN LISTS PBACCEL_KERNELS)
    pbaccel_descriptor_symbol(${k} symbol)
    set(mask "")
    foreach(f IN LISTS PBACCEL_KERNEL_${k}_FEATURES)
      if(mask)
        string(APPEND mask " | ")
      endif()
      string(APPEND mask "${PBACCEL_FEATURE_${f}_ENUM}")
    endforeach()
    if(NOT mask)
      set(mask "0")
    endif()
    if(PBACCEL_KERNEL_${k}_VETO)
      set(veto "&${PBACCEL_KERNEL_${k}_VETO}")
    else()
      set(veto "nullptr")
    endif()
    set(entry "PBACCEL_KERNEL_ENTRY(${symbol}, ${mask}, ${veto})")
    if(PBACCEL_KERNEL_${k}_FEATURES)
      list(APPEND lines "#if PBACCEL_X86_KERNELS" "${entry}" "#endif")
    else()
      list(APPEND lines "${entry}")
    endif()
  endforeach()
  list(JOIN lines "\n" content)
  file(CONFIGURE OUTPUT "${out}" CONTENT "${content}\n" @ONLY)
endfunction()
