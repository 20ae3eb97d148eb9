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
 * An output buffer in front of a FILE: append, then flush with one fwrite per
 * 64 KiB. With out == NULL it collects the text in memory instead (mem, grown
 * as needed, kept across mqt_tb_init calls; free it with mqt_tb_free_memory).
 */
typedef struct mqt_textbuf {
    FILE *out;
    size_t len;
    bool failed; /* a write or an allocation failed; later appends are dropped */
    char *mem;   /* out == NULL: the text flushed so far */
    size_t mem_len, mem_cap;
    char data[1 << 16];
} mqt_textbuf;

/* Starts writing to `out` (or to memory for NULL: mem_len = 0, mem kept). */
void mqt_tb_init(mqt_textbuf *b, FILE *out);
void mqt_tb_free_memory(mqt_textbuf *b);
/* Writes out what is buffered. Returns false if any write so far failed. */
bool mqt_tb_flush(mqt_textbuf *b);
void mqt_tb_mem(mqt_textbuf *b, const char *s, size_t n);
void mqt_tb_str(mqt_textbuf *b, const char *s);
void mqt_tb_char(mqt_textbuf *b, char c);
void mqt_tb_float(mqt_textbuf *b, float x);
void mqt_tb_u64(mqt_textbuf *b, uint64_t v);
/* A JSON string literal with the escapes RFC 8259 requires. */
void mqt_tb_json_string(mqt_textbuf *b, const char *s);

#endif
