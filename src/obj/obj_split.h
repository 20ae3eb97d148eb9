/* Cutting OBJ text into line-aligned chunks (obj_split.c). */
#ifndef MQ_OBJ_OBJ_SPLIT_H
#define MQ_OBJ_OBJ_SPLIT_H

#include <meshquery/base.h>

/* Where the last complete statement of d[0, size) ends: just after the last
 * line end that is not a continuation (0 when there is none). */
size_t mq_obj_last_statement_end(const char *d, size_t size);

/* Splits d[0, region) (which ends after a statement end) into at most `pieces`
 * chunks of about equal size, each ending after a statement end. Returns the
 * number of chunks written to begins/ends. */
size_t mq_obj_split(const char *d, size_t region, size_t pieces, const char **begins, const char **ends);

/* Copies the text after the last statement end (size > 0) into a buffer
 * followed by "\n\0" (or "\0\0" when the text ends with a line end);
 * *alloc_size receives the allocated size, *text_size the length of the text
 * to parse (with the added newline). NULL when out of memory. */
char *mq_obj_copy_tail(const char *d, size_t size, const mq_allocator *a, size_t *alloc_size, size_t *text_size);

#endif
