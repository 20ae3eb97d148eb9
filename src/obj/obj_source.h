/* Getting OBJ text from a file, and checking its encoding (obj_source.c). */
#ifndef MQ_OBJ_OBJ_SOURCE_H
#define MQ_OBJ_OBJ_SOURCE_H

#include <meshquery/base.h>

typedef struct obj_source {
    const char *data; /* the file's bytes */
    size_t size;
    void *map; /* the mapping, when mapped */
    size_t map_size;
    char *buffer; /* the buffer from the allocator, when read */
    size_t buffer_size;
} obj_source;

/* Maps or reads the whole file. MQ_ERR_IO with the reason when it cannot. */
mq_status mq_obj_source_open(obj_source *s, const char *path, const mq_allocator *a, mq_diag *diag);
/* Releases what mq_obj_source_open took. */
void mq_obj_source_close(obj_source *s, const mq_allocator *a);

/* Skips a UTF-8 byte order mark; refuses UTF-16/32 text (MQ_ERR_UNSUPPORTED)
 * and text with nothing but blanks (MQ_ERR_PARSE). */
mq_status mq_obj_check_encoding(const char **data, size_t *size, const char *name, mq_diag *diag);

#endif
