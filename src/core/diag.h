/* Internal helpers to fill an optional mq_diag. */
#ifndef MQ_CORE_DIAG_H
#define MQ_CORE_DIAG_H

#include <meshquery/base.h>

/* Clears a diag (no-op on NULL). */
void mq_diag_clear(mq_diag *diag);

/* Fills a diag (no-op on NULL) with a printf-style message, the path (may be
 * NULL), and a 1-based line/column (0 = none). Returns `status` for tail calls:
 *     return mq_diag_set(diag, MQ_ERR_PARSE, path, line, col, "expected %s", what);
 */
mq_status mq_diag_set(mq_diag *diag, mq_status status, const char *path, uint64_t line, uint32_t column,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#endif
