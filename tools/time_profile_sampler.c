// Copyright 2026 The pbaccel Authors.
//
// time_profile_sampler.c: the preloaded half of tools/time_profile.py. Loaded with LD_PRELOAD into
// a program, it samples the interrupted instruction address on a timer (every
// TIME_PROFILE_PERIOD_NS nanoseconds of wall time, default 50000: 20 kHz) and, at exit, writes
// the program's memory map and the addresses to TIME_PROFILE_OUT, for time_profile.py to name.
//
// Why a timer and not perf: the VMs pbaccel is measured on expose no performance counters, and
// callgrind counts instructions (and hides AVX-512), not time. Wall-clock timers (hrtimers) are
// precise where CPU-time timers tick at the scheduler's rate; so the profiled program must be busy
// on one thread (a benchmark's loop), or its waits are sampled too.
//
// Plain C, no dependencies beyond glibc (timer_create is in libc since glibc 2.34; -lrt before).

#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

enum { kMaxSamples = 1 << 23 };  // 8 M samples: 7 minutes at 20 kHz.

static uintptr_t* samples;
static volatile size_t sample_count;

static void OnTimer(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)info;
  const ucontext_t* uc = (const ucontext_t*)context;
  if (sample_count < kMaxSamples) {
    samples[sample_count] = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    sample_count = sample_count + 1;
  }
}

__attribute__((constructor)) static void StartSampling(void) {
  samples = malloc(sizeof(uintptr_t) * kMaxSamples);
  if (samples == NULL) return;
  const char* period = getenv("TIME_PROFILE_PERIOD_NS");
  long ns = period != NULL ? atol(period) : 50000;
  if (ns < 10000) ns = 10000;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = OnTimer;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &action, NULL);
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGPROF;
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) return;
  struct itimerspec spec;
  spec.it_interval.tv_sec = ns / 1000000000;
  spec.it_interval.tv_nsec = ns % 1000000000;
  spec.it_value = spec.it_interval;
  timer_settime(timer, 0, &spec, NULL);
}

__attribute__((destructor)) static void WriteSamples(void) {
  signal(SIGPROF, SIG_IGN);
  const char* path = getenv("TIME_PROFILE_OUT");
  if (path == NULL || samples == NULL) return;
  FILE* out = fopen(path, "w");
  if (out == NULL) return;
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096];
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL) fprintf(out, "M %s", line);
  if (maps != NULL) fclose(maps);
  for (size_t i = 0; i < sample_count; ++i) fprintf(out, "%lx\n", (unsigned long)samples[i]);
  fclose(out);
}
