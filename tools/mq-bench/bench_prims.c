/* mq-bench prims: placeholder until the primitive micro-benchmark lands. */
#include <stdio.h>

#include "bench.h"

int bench_prims_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "mq-bench prims: not built yet\n");
    return 1;
}
