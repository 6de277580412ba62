# Cross build for 64-bit ARM Linux from an x86-64 Debian host: Debian's cross compiler
# (g++-aarch64-linux-gnu) and the arm64 builds of protobuf, Abseil and GoogleTest installed through
# multiarch (dpkg --add-architecture arm64; libprotobuf-dev:arm64 ...). Programs the build runs
# (protoc, pbaccel's plugin) are the host's: pass -DPBACCEL_PROTOC_GEN_PBACCEL=<a host build's
# protoc-gen-pbaccel>. ctest runs the tests through qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR);
# the arm64 loader and libraries are where multiarch put them. tools/aarch64_cross.sh does all of
# it (packages, host plugin, configure, build, ctest):
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DPBACCEL_PROTOC_GEN_PBACCEL=build/protoc-gen-pbaccel
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Debian's multiarch layout: the target's libraries in /usr/lib/aarch64-linux-gnu, headers shared
# in /usr/include (identical across architectures), CMake packages in either.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# The qemu CPU model: PBACCEL_QEMU_CPU (max: NEON, SVE, SVE2; cortex-a72: NEON only).
set(PBACCEL_QEMU_CPU "max" CACHE STRING "qemu-aarch64's -cpu for the tests")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -cpu ${PBACCEL_QEMU_CPU})
