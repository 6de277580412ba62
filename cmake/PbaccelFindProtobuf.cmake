# Finds protobuf and the Abseil it was built with, for pbaccel's build and for its installed package
# (pbaccelConfig.cmake includes this file too), and decides whether pbaccel::pbaccel is shared.
#
# Protobuf's own CMake package first: protobuf 22 and later install one, whose targets carry their
# link dependencies (Abseil, utf8_range) and which finds the Abseil protobuf was built with before
# anything else can (CMAKE_PREFIX_PATH=<protobuf prefix>). Releases without a package (Debian's
# 3.21) through CMake's FindProtobuf module, with the system's Abseil.
#
# Sets PBACCEL_PROTOBUF_STATIC (protobuf::libprotobuf is a static library) and the option
# PBACCEL_SHARED (default: the opposite), the kind of library pbaccel::pbaccel is.

if(NOT TARGET protobuf::libprotobuf)
  find_package(Protobuf CONFIG QUIET)
  if(NOT Protobuf_FOUND)
    find_package(Protobuf MODULE REQUIRED)
  endif()
endif()
if(NOT TARGET absl::strings)
  find_package(absl CONFIG REQUIRED)
endif()

get_target_property(_pbaccel_protobuf_type protobuf::libprotobuf TYPE)
if(_pbaccel_protobuf_type STREQUAL "STATIC_LIBRARY")
  set(PBACCEL_PROTOBUF_STATIC ON)
else()
  set(PBACCEL_PROTOBUF_STATIC OFF)  # SHARED_LIBRARY, or FindProtobuf's UNKNOWN (a .so on Debian).
endif()
if(NOT PBACCEL_PROTOBUF_STATIC)
  set(_pbaccel_shared_default ON)
else()
  set(_pbaccel_shared_default OFF)
endif()
option(PBACCEL_SHARED
       "pbaccel::pbaccel as a shared library (default: when protobuf is one; a shared pbaccel over a static protobuf would give programs two copies of protobuf)"
       ${_pbaccel_shared_default})
