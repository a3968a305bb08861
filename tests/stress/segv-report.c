/* segv-report.c: preloaded into a process (LD_PRELOAD) that may crash
 * where no core dump is kept: on SIGSEGV or SIGBUS it prints the fault's
 * address, a backtrace and the process's mappings to stderr, then dies of
 * the signal as it would have. Built by tee-of-three.sh. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
put_bytes (const char *s, size_t n)
{
  /* Nothing to do if stderr is gone. */
  if (write (2, s, n) < 0)
    return;
}

static void
put (const char *s)
{
  put_bytes (s, strlen (s));
}

static void
handler (int sig, siginfo_t *si, void *context)
{
  (void)context;
  char line[128];
  void *frames[64];
  snprintf (line, sizeof line, "\n=== SIG%s at %p code %d tid %d\n",
      sig == SIGSEGV ? "SEGV" : "BUS", si->si_addr, si->si_code, gettid ());
  put (line);
  int n = backtrace (frames, 64);
  backtrace_symbols_fd (frames, n, 2);
  put ("=== maps\n");
  int fd = open ("/proc/self/maps", O_RDONLY);
  char buf[4096];
  ssize_t r;
  while (fd >= 0 && (r = read (fd, buf, sizeof buf)) > 0)
    put_bytes (buf, (size_t)r);
  put ("=== end\n");
  signal (sig, SIG_DFL);
  raise (sig);
}

__attribute__ ((constructor)) static void
install (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction (SIGSEGV, &sa, NULL);
  sigaction (SIGBUS, &sa, NULL);
}
