/* SPDX-License-Identifier: MIT */
/*
 * walk.c: the floor under a lint of a big .roof file, for
 * tests/bench/bench.sh: a process that starts, reads the file and cuts
 * every byte into the tokens rooflint's scanner makes (names, numbers,
 * strings, comments, punctuation), hashing each name as interning does,
 * and nothing else.  Any front end does at least this much, on any
 * machine; a lint judged against it is judged against the machine.
 *
 *   walk FILE    prints "TOKENS NAMES HASH"
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int is_alpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* The file's bytes, malloc'd (*n of them), or NULL: one allocation of
 * the file's size and one read, as rooflint loads a file. */
static unsigned char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = NULL;
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (size >= 0 && fseek(f, 0, SEEK_SET) == 0)
    b = malloc((size_t)size + 1);
  if (b && fread(b, 1, (size_t)size, f) != (size_t)size) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *n = b ? (size_t)size : 0;
  return b;
}

int main(int argc, char **argv) {
  size_t n = 0;
  unsigned char *s = argc == 2 ? slurp(argv[1], &n) : NULL;
  if (!s) {
    fprintf(stderr, "usage: walk FILE (a readable file)\n");
    return 2;
  }
  uint64_t tokens = 0, names = 0, hash = 1469598103934665603ull;
  for (size_t i = 0; i < n;) {
    int c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      i++;
    } else if (c == '#') { /* a comment, to the end of the line */
      while (i < n && s[i] != '\n') i++;
    } else if (is_alpha(c)) { /* a name: hashed, as interning does */
      uint64_t h = 1469598103934665603ull;
      while (i < n && (is_alpha(s[i]) || is_digit(s[i]))) h = (h ^ s[i++]) * 1099511628211ull;
      hash ^= h;
      names++;
      tokens++;
    } else if (is_digit(c)) { /* a number with its unit */
      while (i < n && (is_digit(s[i]) || is_alpha(s[i]) || s[i] == '.')) i++;
      tokens++;
    } else if (c == '"') {
      for (i++; i < n && s[i] != '"' && s[i] != '\n'; i++)
        if (s[i] == '\\') i++;
      i++;
      tokens++;
    } else {
      i++;
      tokens++;
    }
  }
  printf("%llu %llu %llx\n", (unsigned long long)tokens,
         (unsigned long long)names, (unsigned long long)hash);
  free(s);
  return 0;
}
