/* The C reference for `bitlens-bench kernels`' LZF row: decodes the file that
 * `KERNELS_LZF_OUT=path bitlens-bench kernels` writes (4-byte little-endian decoded length,
 * then the LZF data) with the system's liblzf (`lzf_decompress`, its public API, declared
 * here so that no header is needed), best of 7, and prints the GB/s of decoded output.
 * bench/run.mjs builds it with `cc -O2 lzf_ref.c -l:liblzf.so.1` when liblzf is installed. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned int lzf_decompress(const void *in_data, unsigned int in_len, void *out_data,
                            unsigned int out_len);

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *d = malloc(n);
  if (!d || n < 4 || fread(d, 1, n, f) != (size_t)n) return 2;
  unsigned ulen = d[0] | d[1] << 8 | d[2] << 16 | (unsigned)d[3] << 24;
  unsigned char *out = malloc(ulen);
  if (!out) return 2;
  double best = 1e9;
  for (int r = 0; r < 7; r++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    unsigned got = lzf_decompress(d + 4, n - 4, out, ulen);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (got != ulen) {
      fprintf(stderr, "liblzf decoded %u of %u bytes\n", got, ulen);
      return 1;
    }
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    if (s < best) best = s;
  }
  printf("%.2f\n", ulen / best / 1e9);
  return 0;
}
