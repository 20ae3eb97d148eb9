/* Character classes and keyword table of the OBJ lexer (obj_text.h). */
#include <string.h>

#include "obj/obj_text.h"

/* clang-format off */
#define B OBJ_BLANK | OBJ_SEP | OBJ_STOP
#define E OBJ_EOL | OBJ_SEP | OBJ_STOP
#define D OBJ_DIGIT | OBJ_WORD
#define W OBJ_WORD
#define S OBJ_SEP | OBJ_STOP

const uint8_t mq_obj_class[256] = {
    [0] = S,     ['\t'] = B, ['\n'] = E, ['\v'] = B, ['\f'] = B, ['\r'] = E, [' '] = B,
    ['#'] = S,   ['\\'] = S, ['_'] = W,
    ['0'] = D,   ['1'] = D,  ['2'] = D,  ['3'] = D,  ['4'] = D,  ['5'] = D,  ['6'] = D,
    ['7'] = D,   ['8'] = D,  ['9'] = D,
    ['A'] = W, ['B'] = W, ['C'] = W, ['D'] = W, ['E'] = W, ['F'] = W, ['G'] = W, ['H'] = W,
    ['I'] = W, ['J'] = W, ['K'] = W, ['L'] = W, ['M'] = W, ['N'] = W, ['O'] = W, ['P'] = W,
    ['Q'] = W, ['R'] = W, ['S'] = W, ['T'] = W, ['U'] = W, ['V'] = W, ['W'] = W, ['X'] = W,
    ['Y'] = W, ['Z'] = W,
    ['a'] = W, ['b'] = W, ['c'] = W, ['d'] = W, ['e'] = W, ['f'] = W, ['g'] = W, ['h'] = W,
    ['i'] = W, ['j'] = W, ['k'] = W, ['l'] = W, ['m'] = W, ['n'] = W, ['o'] = W, ['p'] = W,
    ['q'] = W, ['r'] = W, ['s'] = W, ['t'] = W, ['u'] = W, ['v'] = W, ['w'] = W, ['x'] = W,
    ['y'] = W, ['z'] = W,
};

/* clang-format on */

/* Statements of the OBJ specification that describe nothing a triangle mesh
 * keeps: material libraries, smoothing groups, and free-form geometry. */
static const char *const ignored_keywords[] = {
    "mtllib",   "s",    "vp",     "cstype", "deg",        "bmat",      "step",  "curv",  "curv2", "surf",
    "parm",     "trim", "hole",   "scrv",   "sp",         "end",       "con",   "mg",    "bevel", "c_interp",
    "d_interp", "lod",  "maplib", "usemap", "shadow_obj", "trace_obj", "ctech", "stech", "call",  "csh",
};

static bool word_is(const char *p, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(p, word, n) == 0;
}

obj_keyword mq_obj_keyword(const char *p, const char *q)
{
    size_t n = (size_t)(q - p);
    static const struct {
        const char *word;
        obj_keyword kind;
    } known[] = {
        {"v", OBJ_KW_V}, {"vt", OBJ_KW_VT}, {"vn", OBJ_KW_VN}, {"f", OBJ_KW_F},           {"l", OBJ_KW_L},
        {"p", OBJ_KW_P}, {"g", OBJ_KW_G},   {"o", OBJ_KW_O},   {"usemtl", OBJ_KW_USEMTL},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (word_is(p, n, known[i].word))
            return known[i].kind;
    for (size_t i = 0; i < sizeof ignored_keywords / sizeof ignored_keywords[0]; i++)
        if (word_is(p, n, ignored_keywords[i]))
            return OBJ_KW_IGNORED;
    return OBJ_KW_UNKNOWN;
}
