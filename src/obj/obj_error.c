/* Where an OBJ parse error is: line and column from a pointer into the text,
 * computed only when an error happens so the parse loop never tracks columns. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/diag.h"
#include "obj/obj_internal.h"
#include "obj/obj_text.h"

void mq_obj_token_text(const char *p, char *buf, size_t cap)
{
    size_t n = 0;
    for (; n + 1 < cap && !(obj_class(*p) & (OBJ_BLANK | OBJ_EOL)) && *p; p++)
        buf[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    if (n + 1 == cap && n >= 3 && !(obj_class(*p) & (OBJ_BLANK | OBJ_EOL)) && *p)
        memcpy(buf + n - 3, "...", 3);
    buf[n] = '\0';
}

/* True when only blanks and line ends lie in [p, end). */
static bool only_blanks(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!(obj_class(*p) & (OBJ_BLANK | OBJ_EOL)))
            return false;
    return true;
}

mq_status mq_obj_error_at(mq_diag *diag, mq_status status, const char *name, const char *stmt, uint64_t stmt_line,
                          const char *at, const char *end, const char *fmt, ...)
{
    if (!diag)
        return status;
    /* the statement may span lines through `\` continuations: walk to `at` */
    uint64_t line = stmt_line;
    const char *line_start = stmt;
    for (const char *p = stmt; p < at;) {
        if (obj_is_eol(*p)) {
            p += (p[0] == '\r' && p + 1 < at && p[1] == '\n') ? 2 : 1;
            line++;
            line_start = p;
        } else {
            p++;
        }
    }
    size_t col = (size_t)(at - line_start) + 1;
    char msg[sizeof diag->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *hint = end && only_blanks(at, end) ? " (the file ends here: truncated?)" : "";
    return mq_diag_set(diag, status, name, line, col > UINT32_MAX ? UINT32_MAX : (uint32_t)col, "%s%s", msg, hint);
}
