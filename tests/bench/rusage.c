/* SPDX-License-Identifier: MIT */
/*
 * rusage.c: runs one command and prints what it cost, for tests/bench/bench.sh
 * and tests/fuzz/ scripts that must not depend on /usr/bin/time.  The child's
 * standard output and error go to /dev/null unless -o/-e name files, so a
 * benchmark measures the tool, not a terminal.
 *
 *   rusage [-t SECONDS] [-i IN] [-o OUT] [-e ERR] -- COMMAND ARGS...
 *
 * prints one line: wall_s user_s sys_s maxrss_kib status
 * where status is the exit status, 128+N for a signal N, or 124 when the
 * command ran past -t SECONDS and was killed.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int open_or_die(const char *path, int flags) {
  int fd = open(path, flags, 0644);
  if (fd < 0) {
    perror(path);
    _exit(127);
  }
  return fd;
}

/* The child to kill when the time limit rings (set once, before alarm). */
static volatile pid_t child;
static volatile sig_atomic_t timed_out;

static void on_alarm(int sig) {
  (void)sig;
  timed_out = 1;
  if (child > 0) kill(child, SIGKILL);
}

static double seconds(struct timeval tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

int main(int argc, char **argv) {
  const char *in = "/dev/null", *out = "/dev/null", *err = "/dev/null";
  unsigned limit = 0;
  int i = 1;
  for (; i < argc; i++) {
    if (!strcmp(argv[i], "--")) { i++; break; }
    if (i + 1 >= argc) break;
    if (!strcmp(argv[i], "-t")) limit = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-i")) in = argv[++i];
    else if (!strcmp(argv[i], "-o")) out = argv[++i];
    else if (!strcmp(argv[i], "-e")) err = argv[++i];
    else break;
  }
  if (i >= argc) {
    fprintf(stderr, "usage: rusage [-t SECONDS] [-i IN] [-o OUT] [-e ERR] -- COMMAND ARGS...\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 2;
  }
  if (pid == 0) {
    dup2(open_or_die(in, O_RDONLY), 0);
    dup2(open_or_die(out, O_WRONLY | O_CREAT | O_TRUNC), 1);
    dup2(open_or_die(err, O_WRONLY | O_CREAT | O_TRUNC), 2);
    execvp(argv[i], argv + i);
    _exit(127);
  }
  child = pid;
  if (limit) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(limit);
  }
  int st = 0;
  struct rusage ru;
  while (wait4(pid, &st, 0, &ru) < 0) {
    if (errno == EINTR) continue;
    perror("wait4");
    return 2;
  }
  alarm(0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  int status = timed_out ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  printf("%.6f %.6f %.6f %ld %d\n", wall, seconds(ru.ru_utime), seconds(ru.ru_stime),
         ru.ru_maxrss, status);
  return 0;
}
