/*
 * driver.c — runs a libFuzzer harness without libFuzzer: every file named on the command line is one
 * input to LLVMFuzzerTestOneInput. How `make test` replays the seeds and the findings kept under
 * tests/fuzz/ with the plain compiler and the sanitizers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    static uint8_t buf[1 << 20];
    int i;
    for (i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        size_t n;
        if (f == NULL) {
            fprintf(stderr, "driver: cannot open %s\n", argv[i]);
            return 2;
        }
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("driver: %d input(s) replayed\n", argc - 1);
    return 0;
}
