// Copyright 2026 The pbaccel Authors.
//
// stack_probe.h: how much stack a function uses, and whether it returns on a small stack, for the
// tests that hold pbaccel's stack use to upstream's (reliability_test, stack_test).

#ifndef PBACCEL_TESTS_STACK_PROBE_H_
#define PBACCEL_TESTS_STACK_PROBE_H_

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

// Defined when the test runs under AddressSanitizer (which moves and pads stack frames), as GCC
// (__SANITIZE_ADDRESS__) and clang (__has_feature) say it.
#if defined(__SANITIZE_ADDRESS__)
#define PBACCEL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PBACCEL_ASAN 1
#endif
#endif

namespace pbaccel {

inline void* RunFunction(void* fn) {
  (*static_cast<std::function<void()>*>(fn))();
  return nullptr;
}

// Bytes of stack `fn` used on a thread of its own: the stack is filled with a pattern first and
// the deepest byte that changed is found after.
inline size_t StackUsed(std::function<void()> fn) {
  constexpr size_t kSize = 8 << 20;
  std::vector<unsigned char> stack(kSize + 4096);
  unsigned char* base = stack.data() + (4096 - reinterpret_cast<uintptr_t>(stack.data()) % 4096);
  std::memset(base, 0xA5, kSize);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, base, kSize);
  pthread_t thread;
  if (pthread_create(&thread, &attr, RunFunction, &fn) != 0) std::abort();
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  size_t untouched = 0;
  while (untouched < kSize && base[untouched] == 0xA5) ++untouched;
  return kSize - untouched;
}

// Whether `fn` returns on a thread with a `size`-byte stack (in a child process: running out of
// stack kills it).
inline bool ReturnsOnStack(size_t size, std::function<void()> fn) {
  const pid_t pid = fork();
  if (pid == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size);
    pthread_t thread;
    if (pthread_create(&thread, &attr, RunFunction, &fn) != 0) _exit(2);
    pthread_join(thread, nullptr);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace pbaccel

#endif  // PBACCEL_TESTS_STACK_PROBE_H_
