# gRPC for pbaccel::grpc (lib/grpc.cc, pbaccel/grpc.h): gRPC's own CMake package.
#
# PBACCEL_GRPC: AUTO (the default) builds pbaccel::grpc where gRPC's package is found and its
# libraries sit beside the protobuf this build uses (a gRPC built against another protobuf, such
# as Debian's gRPC beside a protobuf 27 prefix, would link two protobufs and two Abseils into one
# program); ON requires gRPC and skips that check; OFF never builds it. Sets PBACCEL_HAVE_GRPC.

set(PBACCEL_GRPC AUTO CACHE STRING "Build pbaccel::grpc, the gRPC switch: AUTO, ON or OFF")
set_property(CACHE PBACCEL_GRPC PROPERTY STRINGS AUTO ON OFF)

# The directory of an imported library target's file, whatever configurations it was imported for.
function(pbaccel_imported_library_dir target out)
  set(${out} "" PARENT_SCOPE)
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(location ${target} IMPORTED_LOCATION)
  if(NOT location)
    get_target_property(configs ${target} IMPORTED_CONFIGURATIONS)
    foreach(config IN LISTS configs)
      get_target_property(location ${target} IMPORTED_LOCATION_${config})
      if(location)
        break()
      endif()
    endforeach()
  endif()
  if(location)
    get_filename_component(dir "${location}" DIRECTORY)
    get_filename_component(dir "${dir}" REALPATH)
    set(${out} "${dir}" PARENT_SCOPE)
  endif()
endfunction()

set(PBACCEL_HAVE_GRPC OFF)
if(PBACCEL_GRPC STREQUAL "ON")
  find_package(gRPC CONFIG REQUIRED)
  set(PBACCEL_HAVE_GRPC ON)
elseif(PBACCEL_GRPC STREQUAL "AUTO")
  find_package(gRPC CONFIG QUIET)
  if(gRPC_FOUND AND TARGET gRPC::grpc++)
    pbaccel_imported_library_dir(gRPC::grpc++ grpc_dir)
    pbaccel_imported_library_dir(protobuf::libprotobuf protobuf_dir)
    if(grpc_dir AND grpc_dir STREQUAL protobuf_dir)
      set(PBACCEL_HAVE_GRPC ON)
    else()
      message(STATUS "pbaccel: not building pbaccel::grpc: gRPC's libraries (${grpc_dir}) are not "
                     "beside this protobuf's (${protobuf_dir}); -DPBACCEL_GRPC=ON builds it anyway")
    endif()
  endif()
endif()
