# CMake toolchain file for prefix.sh --asan: cxx17.cmake's settings, and only the libraries. This
# variant is linked into builds under AddressSanitizer, which run protoc and pbaccel's plugin from
# the plain prefix's build (pbaccel's PBACCEL_PROTOC and PBACCEL_PROTOC_GEN_PBACCEL): leaving out
# libprotoc, protoc and upb halves the build. (Normal variables here take precedence over the
# options of protobuf's CMakeLists.)
include("${CMAKE_CURRENT_LIST_DIR}/cxx17.cmake")
set(protobuf_BUILD_PROTOC_BINARIES OFF)
set(protobuf_BUILD_LIBUPB OFF)
