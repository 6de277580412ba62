// Copyright 2026 The pbaccel Authors.
//
// requires_cxx17.h: every public header includes this, so that a build below C++17 fails with one
// clear message instead of errors deep inside std::optional or absl.

#ifndef PBACCEL_INTERNAL_REQUIRES_CXX17_H_
#define PBACCEL_INTERNAL_REQUIRES_CXX17_H_

#if __cplusplus < 201703L
#error "pbaccel needs C++17: -std=c++17 (Bazel: build --cxxopt=-std=c++17 in .bazelrc)"
#endif

#endif  // PBACCEL_INTERNAL_REQUIRES_CXX17_H_
