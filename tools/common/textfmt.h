/*
 * Fast text output for the tools' JSON / CSV writers.
 *
 * printf("%.9g") costs about 150 ns per float, which made writing a million
 * picks as JSON six times slower than tracing them. These formatters produce
 * the same kind of text (nine significant digits, which always read back as
 * the same float) from integer arithmetic, into a buffer flushed with fwrite.
 */
#ifndef MQT_TEXTFMT_H
#define MQT_TEXTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Longest text mqt_fmt_float writes (e.g. "-1.17549435e-38"), without a NUL. */
#define MQT_FLOAT_CHARS 16

/*
 * Writes x with at most nine significant digits, %g style: fixed notation for
 * decimal exponents -5..8, otherwise d.ddde±XX; trailing zeros dropped.
 * strtof() of the text gives back x exactly. "inf", "-inf", "nan" for
 * non-finite values. Returns the number of chars written (no NUL).
 */
size_t mqt_fmt_float(char *out, float x);

/* Writes v in decimal; returns the number of chars (no NUL). */
size_t mqt_fmt_u64(char *out, uint64_t v);

/*
 * The same texts written faster: as whole 8- and 16-byte words, which may overwrite up to
 * MQT_WIDE_CHARS chars at p (beyond the text, anything). They return the end of the text.
 * For writing records straight into a buffer (mqt_tb_room).
 */
#define MQT_WIDE_CHARS 32
char *mqt_put_float(char *p, float x);
char *mqt_put_u64(char *p, uint64_t v);
/* Copies a string literal to p; returns the end. */
#define MQT_PUT_LIT(p, literal) ((char *)memcpy((p), "" literal, sizeof(literal) - 1) + sizeof(literal) - 1)

/*
 * An output buffer in front of a FILE: append, then flush with one fwrite per
 * 64 KiB. With out == NULL it collects the text in memory instead: appends go
 * straight into mem, grown as needed and kept across mqt_tb_init calls (free it
 * with mqt_tb_free_memory).
 */
typedef struct mqt_textbuf {
    FILE *out;
    char *buf;       /* where appends go: data (to a FILE) or mem (to memory) */
    size_t len, cap; /* chars used and available in buf */
    bool failed;     /* a write or an allocation failed; later appends are dropped */
    char *mem;       /* out == NULL: the text so far (complete after mqt_tb_flush) */
    size_t mem_len, mem_cap;
    char data[1 << 16];
} mqt_textbuf;

/* Starts writing to `out` (or to memory for NULL: mem_len = 0, mem kept). */
void mqt_tb_init(mqt_textbuf *b, FILE *out);
void mqt_tb_free_memory(mqt_textbuf *b);
/* Writes out what is buffered (to memory: sets mem_len). Returns false if any write so far failed. */
bool mqt_tb_flush(mqt_textbuf *b);
/* Appends n chars; the common case (they fit) is inline, so a constant n compiles to a few moves. */
void mqt_tb_mem_slow(mqt_textbuf *b, const char *s, size_t n);
static inline void mqt_tb_mem(mqt_textbuf *b, const char *s, size_t n)
{
    if (n <= b->cap - b->len) {
        memcpy(b->buf + b->len, s, n);
        b->len += n;
    } else {
        mqt_tb_mem_slow(b, s, n);
    }
}
/* Appends a string literal, its length known at compile time (no strlen). */
#define MQT_TB_LIT(b, literal) mqt_tb_mem((b), "" literal, sizeof(literal) - 1)
void mqt_tb_str(mqt_textbuf *b, const char *s);
static inline void mqt_tb_char(mqt_textbuf *b, char c)
{
    mqt_tb_mem(b, &c, 1);
}
void mqt_tb_float(mqt_textbuf *b, float x);
void mqt_tb_u64(mqt_textbuf *b, uint64_t v);
/*
 * Where to write n more chars (n <= sizeof data) directly, mqt_put_* style, instead of
 * appending piece by piece; mqt_tb_wrote then says where the text ends (within those n).
 */
char *mqt_tb_room(mqt_textbuf *b, size_t n);
static inline void mqt_tb_wrote(mqt_textbuf *b, char *end)
{
    b->len = (size_t)(end - b->buf);
}
/* A JSON string literal with the escapes RFC 8259 requires. */
void mqt_tb_json_string(mqt_textbuf *b, const char *s);

#endif
