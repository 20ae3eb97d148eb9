/* mq-bench obj: placeholder until this benchmark lands. */
#include <stdio.h>

#include "bench.h"

int bench_obj_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "mq-bench obj: not built yet\n");
    return 1;
}
