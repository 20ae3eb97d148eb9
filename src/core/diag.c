#include "core/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mq_diag_clear(mq_diag *diag)
{
    if (diag)
        memset(diag, 0, sizeof *diag);
}

mq_status mq_diag_set(mq_diag *diag, mq_status status, const char *path, uint64_t line, uint32_t column,
                      const char *fmt, ...)
{
    if (!diag)
        return status;
    mq_diag_clear(diag);
    if (path)
        snprintf(diag->path, sizeof diag->path, "%s", path);
    diag->line = line;
    diag->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, ap);
    va_end(ap);
    return status;
}
