// Copyright 2026 The pbaccel Authors.
//
// arrow_c_data.h: the two structs of the Arrow C Data Interface
// (https://arrow.apache.org/docs/format/CDataInterface.html), through which pbaccel::DecodeToArrow
// (pbaccel/columnar.h) hands over its columns without linking libarrow. The layout is the ABI the
// specification fixes; the include guard is the one it prescribes, so this header and Arrow's own
// (arrow/c/abi.h, nanoarrow, DuckDB's) can be included together: whichever comes first defines
// them.
//
// Ownership, as the specification says: the consumer of an exported ArrowSchema or ArrowArray
// calls its `release` callback exactly once (which frees every child too) unless it moves the
// struct elsewhere; a released struct has release == NULL.

#ifndef PBACCEL_ARROW_C_DATA_H_
#define PBACCEL_ARROW_C_DATA_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;  // The type: "i" int32, "L" uint64, "u" utf8, "+l" list, "+s" struct, ...
  const char* name;
  const char* metadata;
  int64_t flags;  // ARROW_FLAG_*.
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;  // buffers[0]: the validity bitmap, NULL when no value is null.
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifdef __cplusplus
}
#endif

#endif  // PBACCEL_ARROW_C_DATA_H_
