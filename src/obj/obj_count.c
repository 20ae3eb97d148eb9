/*
 * Pass 1 of the OBJ reader: count the statements of a chunk, so the parse pass
 * can write into exactly sized arrays. It follows the lexing rules of
 * obj_text.h, like the parse pass, but checks nothing: on valid text both passes
 * agree statement for statement, and on invalid text the parse pass reports the
 * error (it also refuses to write past what was counted).
 */
#include "obj/obj_internal.h"
#include "obj/obj_text.h"

#if defined(__SSE2__) && !defined(MQ_FORCE_SCALAR)
#include <emmintrin.h>
#define OBJ_COUNT_SSE2 1
#endif

/* Steps over the line end that ends a statement (a NUL in the middle of the
 * text is stepped over too; the parse pass reports it). */
static const char *finish_line(const char *p, const char *end, uint64_t *lines)
{
    if (obj_is_eol(*p)) {
        ++*lines;
        return obj_skip_eol(p, end);
    }
    return p < end ? p + 1 : p;
}

/* Counts the blank-separated tokens up to the end of a data statement (a '#'
 * starts a comment that runs to the end of the physical line). */
static const char *count_tokens(const char *p, const char *end, uint64_t *lines, uint64_t *tokens)
{
    uint64_t n = 0;
    for (;;) {
        p = obj_skip_blanks(p, end, lines);
        char ch = *p;
        if (obj_is_eol(ch) || ch == '\0')
            break;
        if (ch == '#') {
            p = obj_skip_to_eol(p);
            break;
        }
        n++;
        do {
            p++;
            while (!(obj_class(*p) & OBJ_STOP))
                p++;
        } while (*p == '\\' && !obj_is_eol(p[1]));
    }
    *tokens = n;
    return p;
}

#ifdef OBJ_COUNT_SSE2
/* Bits set in a 16-bit mask (baseline x86-64 has no popcnt instruction, and
 * __builtin_popcount would call into libgcc). */
static inline unsigned popcount16(unsigned x)
{
    x -= (x >> 1) & 0x5555u;
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
}

/*
 * The common line, 16 bytes at a time: from p (just after the keyword) to the
 * first line end, with no '#', '\\', control byte other than tab, or non-ASCII
 * byte on the way. Returns that line end and the number of blank-separated
 * tokens, or NULL to let count_tokens apply the full rules (also within 16
 * bytes of `end`, so no load reaches past the text).
 */
static const char *sse2_line(const char *p, const char *end, uint64_t *tokens)
{
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    const __m128i sp = _mm_set1_epi8(' '), hash = _mm_set1_epi8('#'), bs = _mm_set1_epi8('\\');
    const __m128i low = _mm_set1_epi8(14); /* signed: also every byte >= 0x80 */
    unsigned count = 0, prev = 0;          /* prev: the byte before the block is not blank */
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned eol = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
        unsigned blank = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)));
        unsigned odd = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(v, low)) & ~eol & ~blank;
        odd |= (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, hash), _mm_cmpeq_epi8(v, bs)));
        unsigned before = eol ? (eol & (0u - eol)) - 1 : 0xFFFFu; /* bytes before the line end */
        if (odd & before)
            return NULL;
        unsigned word = ~blank & before; /* token bytes */
        count += popcount16(word & ~((word << 1) | prev) & 0xFFFFu);
        if (eol) {
            *tokens = count;
            return p + __builtin_ctz(eol);
        }
        prev = (word >> 15) & 1;
        p += 16;
    }
    return NULL;
}

static void count_element(obj_counts *c, obj_keyword kw, uint64_t corners);

/*
 * Counts a run of plain lines — "v ", "vt ", "vn " or "f " at the very start,
 * then what sse2_line accepts, then a line end — without going back to the
 * general loop for each. Returns where the run stops: at the first line that is
 * not plain, which the general loop then takes.
 */
static const char *sse2_run(const char *p, const char *end, obj_counts *c)
{
    while (end - p >= 20) {
        obj_keyword kw;
        const char *w;
        if (p[0] == 'v' && p[1] == ' ')
            kw = OBJ_KW_V, w = p + 1;
        else if (p[0] == 'f' && p[1] == ' ')
            kw = OBJ_KW_F, w = p + 1;
        else if (p[0] == 'v' && (p[1] == 't' || p[1] == 'n') && p[2] == ' ')
            kw = p[1] == 't' ? OBJ_KW_VT : OBJ_KW_VN, w = p + 2;
        else
            return p;
        uint64_t tokens;
        const char *q = sse2_line(w, end, &tokens);
        if (!q)
            return p;
        c->lines++;
        p = obj_skip_eol(q, end);
        if (kw == OBJ_KW_F)
            count_element(c, kw, tokens);
        else
            ++*(kw == OBJ_KW_V ? &c->v : kw == OBJ_KW_VT ? &c->vt : &c->vn);
    }
    return p;
}
#endif

/* Adds a face, line or point statement with `corners` tokens to the counts. */
static void count_element(obj_counts *c, obj_keyword kw, uint64_t corners)
{
    if (kw == OBJ_KW_F) {
        c->faces++;
        c->tris += corners >= 3 ? corners - 2 : 0;
        c->polygons += corners > 3;
    } else if (kw == OBJ_KW_L) {
        c->l++;
    } else {
        c->p++;
    }
}

void mq_obj_count_chunk(const char *p, const char *end, obj_counts *out)
{
    obj_counts c = {0};
    uint64_t tokens;
    while (p < end) {
#ifdef OBJ_COUNT_SSE2
        if ((p = sse2_run(p, end, &c)) >= end)
            break;
#endif
        p = obj_skip_blanks(p, end, &c.lines);
        const char *w = obj_skip_word(p);
        if (w == p) { /* empty line, comment, or text the parse pass rejects */
            if (!obj_is_eol(*p))
                p = obj_skip_to_eol(p);
            p = finish_line(p, end, &c.lines);
            continue;
        }
        obj_keyword kw = obj_keyword_of(p, w);
        switch (kw) {
        case OBJ_KW_V:
        case OBJ_KW_VT:
        case OBJ_KW_VN:
            c.v += kw == OBJ_KW_V;
            c.vt += kw == OBJ_KW_VT;
            c.vn += kw == OBJ_KW_VN;
            p = count_tokens(w, end, &c.lines, &tokens);
            break;
        case OBJ_KW_F:
        case OBJ_KW_L:
        case OBJ_KW_P:
            p = count_tokens(w, end, &c.lines, &tokens);
            count_element(&c, kw, tokens);
            break;
        default:
            p = obj_skip_statement(w, end, &c.lines);
            break;
        }
        p = finish_line(p, end, &c.lines);
    }
    *out = c;
}
