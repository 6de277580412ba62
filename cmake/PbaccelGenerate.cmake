# pbaccel_generate_parsers(): generated parsers for your .proto files, in the spirit of
# protobuf_generate (CMake's FindProtobuf).
#
#   add_library(orders_proto orders.proto)
#   protobuf_generate(TARGET orders_proto)                 # orders.pb.h/.cc
#   pbaccel_generate_parsers(TARGET orders_proto PROTOS orders.proto)   # orders.pbaccel.h/.cc
#   target_link_libraries(orders_proto PUBLIC protobuf::libprotobuf pbaccel::pbaccel)
#
# Runs protoc with pbaccel's plugin (target pbaccel::protoc-gen-pbaccel) on each of PROTOS and adds
# the generated foo.pbaccel.cc to TARGET, with the output directory on its include path. Arguments:
#   TARGET      the library that gets the sources (it must also compile the protos' .pb.cc)
#   PROTOS      .proto files (relative to the current source directory, or absolute)
#   IMPORT_DIRS directories protoc searches for imports (default: the current source directory);
#               file names are taken relative to the first one that contains them, as protoc does
#   PROTOC_OUT_DIR  where to write (default: the current binary directory), as protobuf_generate
#
# The generated code registers its parsers when linked, so pbaccel::ParseMessage(bytes, &msg)
# uses them; including foo.pbaccel.h gives exact-type overloads (MessageLite types too). The
# library must be linked whole for the registration if it is static and nothing names its code
# (as for protobuf's own generated descriptors).
function(pbaccel_generate_parsers)
  cmake_parse_arguments(arg "" "TARGET;PROTOC_OUT_DIR" "PROTOS;IMPORT_DIRS" ${ARGN})
  if(NOT arg_TARGET OR NOT arg_PROTOS)
    message(FATAL_ERROR "pbaccel_generate_parsers: TARGET and PROTOS are required")
  endif()
  if(NOT arg_IMPORT_DIRS)
    set(arg_IMPORT_DIRS "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  if(NOT arg_PROTOC_OUT_DIR)
    set(arg_PROTOC_OUT_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  # The plugin: imported from an installed package, or (add_subdirectory, FetchContent) the
  # in-tree target behind the alias, which DEPENDS would otherwise take for a file name.
  set(plugin pbaccel::protoc-gen-pbaccel)
  get_target_property(aliased ${plugin} ALIASED_TARGET)
  if(aliased)
    set(plugin ${aliased})
  endif()
  set(include_flags)
  foreach(dir IN LISTS arg_IMPORT_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE)
    list(APPEND include_flags "-I${dir}")
  endforeach()
  foreach(proto IN LISTS arg_PROTOS)
    get_filename_component(abs "${proto}" ABSOLUTE)
    set(relative "")
    foreach(dir IN LISTS arg_IMPORT_DIRS)
      get_filename_component(dir "${dir}" ABSOLUTE)
      file(RELATIVE_PATH candidate "${dir}" "${abs}")
      if(NOT candidate MATCHES "^\\.\\.")
        set(relative "${candidate}")
        break()
      endif()
    endforeach()
    if(NOT relative)
      message(FATAL_ERROR "pbaccel_generate_parsers: ${proto} is in none of IMPORT_DIRS")
    endif()
    string(REGEX REPLACE "\\.proto$" "" stem "${relative}")
    set(outputs "${arg_PROTOC_OUT_DIR}/${stem}.pbaccel.h" "${arg_PROTOC_OUT_DIR}/${stem}.pbaccel.cc")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND protobuf::protoc ARGS "--plugin=protoc-gen-pbaccel=$<TARGET_FILE:${plugin}>"
              "--pbaccel_out=${arg_PROTOC_OUT_DIR}" ${include_flags} "${abs}"
      DEPENDS "${abs}" protobuf::protoc ${plugin}
      COMMENT "pbaccel: generating parsers for ${relative}"
      VERBATIM)
    target_sources(${arg_TARGET} PRIVATE ${outputs})
  endforeach()
  target_include_directories(${arg_TARGET} PUBLIC "$<BUILD_INTERFACE:${arg_PROTOC_OUT_DIR}>")
endfunction()
