/* mq-bench rays: placeholder until this benchmark lands. */
#include <stdio.h>

#include "bench.h"

int bench_rays_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "mq-bench rays: not built yet\n");
    return 1;
}
