/*
 * `--isa`, taken by every mq-bench command: holds meshquery and Embree to one
 * instruction set, so a ratio compares like with like (e.g. both at AVX2 on
 * a CPU that has AVX-512). meshquery is pinned through MQ_ISA, set before
 * its first query; Embree through its device configuration ("isa=...").
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <meshquery/base.h>

#include "bench.h"

static const char *pinned = "auto";

bool bench_pin_isa(const char *isa)
{
    pinned = isa;
    if (!strcmp(isa, "auto"))
        return true;
    return setenv("MQ_ISA", isa, 1) == 0 && strcmp(mq_isa_in_use(), isa) == 0;
}

const char *bench_engine_isa(const char *engine)
{
    if (!strcmp(engine, "meshquery"))
        return mq_isa_in_use();
    return pinned; /* a reference held to --isa, or "auto": its own choice */
}

const char *bench_embree_isa(void)
{
    /* Embree has no scalar path: its lowest level, SSE2, stands in. */
    if (!strcmp(pinned, "auto"))
        return NULL;
    return !strcmp(pinned, "scalar") ? "sse2" : pinned;
}
