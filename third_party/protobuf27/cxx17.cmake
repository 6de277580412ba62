# CMake toolchain file for the protobuf-src crate's build (prefix.sh passes it through the cmake
# crate's CMAKE_TOOLCHAIN_FILE variable): protobuf and its Abseil compiled as C++17.
#
# The crate's build script asks for C++14, but Abseil must be compiled with the C++ standard of the
# code that uses it (its options.h is pinned to that standard's ABI at install, and some of its
# constants are defined out of line only below C++17: a C++17 user of a C++14 Abseil fails to link
# with "multiple definition of absl::Status::kMovedFromString"). pbaccel, and its users, are C++17.
# A normal variable here takes precedence over the crate's -DCMAKE_CXX_STANDARD=14 cache entry.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
