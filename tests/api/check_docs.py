#!/usr/bin/env python3
"""Checks that every public symbol of meshquery's headers carries a doc comment.

Usage: check_docs.py [--pending NAME.h,NAME.h] HEADER.h...
       check_docs.py --self-test   (the checker finds the gaps of a known bad header)

A header is parsed with a small C tokenizer (no preprocessor, no compiler
needed) and each of these must be documented:

  - every MQ_API function declaration and every static inline function defined
    in a header,
  - every typedef (struct, union, enum, opaque struct, function pointer, array),
  - every enum constant and every struct / union field (nested ones included),
  - every public macro (#define) except the include guard,
  - the file itself: an @file doc block that says something about threads when
    the header declares functions.

"Documented" means what Doxygen accepts: a non-empty doc comment (/** ... */ or
///) right before the item, a trailing one (/**< ... */ or ///<) right after it,
or, for macros, an explicit "@def NAME" block anywhere in the file. A trailing
comment after `float u, v;` documents both fields, as it does in Doxygen.

Headers named with --pending are checked and reported but do not fail the run
(for headers still being written by someone else). Exit status: 0 when every
non-pending header is complete, 1 otherwise, 2 for usage errors.
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = {
    "const", "volatile", "struct", "union", "enum", "unsigned", "signed", "static", "inline",
    "extern", "restrict", "typedef", "MQ_API", "void", "char", "short", "int", "long", "float",
    "double", "bool", "_Bool",
}


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind = kind  # 'id', 'punct', 'num', 'str', 'pre' (doc before), 'post' (doc after), 'pp'
        self.text = text
        self.line = line


def doc_body(text):
    """The words of a doc comment without its comment markers."""
    body = re.sub(r"^/\*\*<?|\*/$|^///<?", "", text)
    body = re.sub(r"^\s*\*", "", body, flags=re.M)
    return body.strip()


def tokenize(src):
    toks = []
    i, n, line = 0, len(src), 1
    at_line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "#" and at_line_start:
            j = i
            text = []
            while j < n:
                k = src.find("\n", j)
                if k < 0:
                    k = n
                seg = src[j:k]
                # drop comments on preprocessor lines
                text.append(seg)
                if seg.rstrip().endswith("\\"):
                    j = k + 1
                    line += 1
                    continue
                j = k
                break
            pp = " ".join(t.rstrip("\\") for t in text)
            pp = re.sub(r"/\*.*?\*/", " ", pp)
            pp = re.sub(r"//.*", "", pp)
            toks.append(Tok("pp", pp.strip(), line))
            i = j
            continue
        at_line_start = False
        if src.startswith("/*", i):
            k = src.find("*/", i + 2)
            if k < 0:
                raise SyntaxError("line %d: unterminated comment" % line)
            text = src[i:k + 2]
            start_line = line
            line += text.count("\n")
            if text.startswith("/**<"):
                toks.append(Tok("post", text, start_line))
            elif text.startswith("/**") and not text.startswith("/**/"):
                toks.append(Tok("pre", text, start_line))
            i = k + 2
            continue
        if src.startswith("//", i):
            k = src.find("\n", i)
            if k < 0:
                k = n
            text = src[i:k]
            if text.startswith("///<"):
                toks.append(Tok("post", text, line))
            elif text.startswith("///") and not text.startswith("////"):
                # consecutive /// lines form one block
                if toks and toks[-1].kind == "pre" and toks[-1].text.startswith("///") \
                        and toks[-1].line + toks[-1].text.count("\n") == line - 1:
                    toks[-1].text += "\n" + text
                else:
                    toks.append(Tok("pre", text, line))
            i = k
            continue
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            toks.append(Tok("str", src[i:j + 1], line))
            i = j + 1
            continue
        m = IDENT.match(src, i)
        if m:
            toks.append(Tok("id", m.group(0), line))
            i = m.end()
            continue
        m = re.compile(r"[0-9][0-9A-Za-z_.+\-]*|\.[0-9][0-9A-Za-z_.]*").match(src, i)
        if m and (c.isdigit() or c == "."):
            toks.append(Tok("num", m.group(0), line))
            i = m.end()
            continue
        toks.append(Tok("punct", c, line))
        i += 1
    return toks


class Checker:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            self.src = f.read()
        self.toks = tokenize(self.src)
        self.problems = []
        self.items = 0
        self.explicit_defs = set()
        self.macros_seen = set()
        for t in self.toks:
            if t.kind == "pre":
                for m in re.finditer(r"[@\\]def\s+(\w+)", t.text):
                    if doc_body(re.sub(r"[@\\]def\s+\w+", "", t.text)):
                        self.explicit_defs.add(m.group(1))

    def missing(self, line, what):
        self.problems.append("%s:%d: undocumented %s" % (self.path, line, what))

    # -- helpers -----------------------------------------------------------
    @staticmethod
    def has_text(tok):
        return tok is not None and bool(doc_body(tok.text))

    def split_items(self, toks, sep):
        """Splits a token list at `sep` at nesting depth 0. Yields (item_tokens, pre_doc, post_doc)
        with Doxygen's attachment rules: a leading doc documents the next item, a trailing
        doc (/**<) documents the item in progress, or the last finished one."""
        items = []
        cur, pre, depth, group = [], None, 0, False
        for t in toks:
            if t.kind == "pre":
                marker = doc_body(t.text)
                if marker in ("@{", "\\{"):
                    group = True
                elif marker in ("@}", "\\}"):
                    group = False
                elif not cur:
                    pre = t
                continue
            if t.kind == "post":
                if cur:
                    cur.append(t)  # kept inside; picked up below
                elif items:
                    items[-1][2].append(t)
                continue
            if t.kind == "pp":
                continue
            if t.text in "({[":
                depth += 1
            elif t.text in ")}]":
                depth -= 1
            if depth == 0 and t.text == sep:
                code = [x for x in cur if x.kind != "post"]
                posts = [x for x in cur if x.kind == "post"]
                items.append([code, pre, posts, group])
                cur, pre = [], None
                continue
            cur.append(t)
        if [x for x in cur if x.kind != "post"]:
            code = [x for x in cur if x.kind != "post"]
            posts = [x for x in cur if x.kind == "post"]
            items.append([code, pre, posts, group])
        return items

    def documented(self, pre, posts):
        return self.has_text(pre) or any(self.has_text(p) for p in posts)

    # -- declarations --------------------------------------------------------
    def check_members(self, body, owner, is_enum):
        if is_enum:
            for code, pre, posts, _ in self.split_items(body, ","):
                self.items += 1
                name = code[0].text if code else "?"
                if not self.documented(pre, posts):
                    self.missing(code[0].line if code else 0, "enum constant %s (in %s)" % (name, owner))
            return
        for code, pre, posts, group in self.split_items(body, ";"):
            # a nested struct / union: check its fields, then the member itself
            brace = next((k for k, t in enumerate(code) if t.text == "{"), None)
            if brace is not None:
                close = self.match(code, brace)
                inner = self.raw_between(code[brace], code[close])
                kind = code[0].text if code[0].text in ("struct", "union", "enum") else "struct"
                names = [t.text for t in code[close + 1:] if t.kind == "id"]
                self.check_members(inner, "%s.%s" % (owner, names[0] if names else "(anonymous)"),
                                   kind == "enum")
                if names:
                    self.items += 1
                    if not self.documented(pre, posts):
                        self.missing(code[0].line, "field %s.%s" % (owner, ", ".join(names)))
                continue
            names = self.declarator_names(code)
            self.items += len(names)
            if len(names) > 1 and not group:
                # As Doxygen reads `float u, v;`: a leading doc documents u only, a
                # trailing one v only; inside a member group (/** @{ */ ... /** @} */,
                # DISTRIBUTE_GROUP_DOC) one doc documents all.
                undocumented = names[1:] if self.has_text(pre) else list(names)
                if any(self.has_text(p) for p in posts):
                    undocumented = [n for n in undocumented if n != names[-1]]
                if undocumented:
                    self.missing(code[0].line, "field %s.%s (one doc comment documents one of `%s`: put them "
                                 "in a /** @{ */ ... /** @} */ group)" % (owner, ", ".join(undocumented),
                                                                          ", ".join(names)))
            elif not self.documented(pre, posts):
                self.missing(code[0].line if code else 0, "field %s.%s" % (owner, ", ".join(names)))

    def raw_between(self, open_tok, close_tok):
        """All tokens (comments included) strictly between two tokens of self.toks."""
        i = self.toks.index(open_tok)
        j = self.toks.index(close_tok, i)
        return self.toks[i + 1:j]

    @staticmethod
    def match(code, k):
        depth = 0
        for j in range(k, len(code)):
            if code[j].text in "({[":
                depth += 1
            elif code[j].text in ")}]":
                depth -= 1
                if depth == 0:
                    return j
        raise SyntaxError("unbalanced brackets near line %d" % code[k].line)

    @staticmethod
    def declarator_names(code):
        """Names declared by `type a, b[3], (*fn)(args)`."""
        names = []
        for part in Checker.split_commas(code):
            # function pointer: the identifier after "(*"
            fp = None
            for k in range(len(part) - 2):
                if part[k].text == "(" and part[k + 1].text == "*" and part[k + 2].kind == "id":
                    fp = part[k + 2].text
                    break
            if fp:
                names.append(fp)
                continue
            ids = []
            depth = 0
            for t in part:
                if t.text in "([":
                    depth += 1
                elif t.text in ")]":
                    depth -= 1
                elif depth == 0 and t.kind == "id":
                    ids.append(t.text)
            if ids:
                names.append(ids[-1])
        return names or ["?"]

    @staticmethod
    def split_commas(code):
        parts, cur, depth = [], [], 0
        for t in code:
            if t.text in "({[":
                depth += 1
            elif t.text in ")}]":
                depth -= 1
            if depth == 0 and t.text == ",":
                parts.append(cur)
                cur = []
                continue
            cur.append(t)
        parts.append(cur)
        return parts

    def run(self):
        toks = self.toks
        guard = None
        file_doc = None
        pending = None  # leading doc waiting for the next declaration
        functions = 0
        i = 0
        n = len(toks)
        while i < n:
            t = toks[i]
            if t.kind == "pre":
                if re.search(r"[@\\]file\b", t.text):
                    file_doc = t
                    pending = None
                else:
                    pending = t
                i += 1
                continue
            if t.kind == "post":
                i += 1
                continue
            if t.kind == "pp":
                m = re.match(r"#\s*(ifndef|define)\s+(\w+)", t.text)
                if m and m.group(1) == "ifndef" and guard is None:
                    guard = m.group(2)
                elif m and m.group(1) == "define" and m.group(2) != guard:
                    # a macro defined in several #if branches counts once
                    name = m.group(2)
                    post = toks[i + 1] if i + 1 < n and toks[i + 1].kind == "post" \
                        and toks[i + 1].line == t.line else None
                    if name not in self.macros_seen:
                        self.items += 1
                        if not (self.has_text(pending) or self.has_text(post) or name in self.explicit_defs):
                            self.missing(t.line, "macro %s" % name)
                    self.macros_seen.add(name)
                pending = None
                i += 1
                continue
            # a declaration: tokens up to ';' at depth 0; a `static inline`
            # function definition ends with its body's closing brace
            j, depth = i, 0
            is_static = t.kind == "id" and t.text == "static"
            while j < n:
                if toks[j].kind in ("id", "punct", "num", "str"):
                    if toks[j].text in "({[":
                        depth += 1
                    elif toks[j].text in ")}]":
                        depth -= 1
                        if is_static and toks[j].text == "}" and depth == 0:
                            break
                    elif toks[j].text == ";" and depth == 0:
                        break
                j += 1
            decl = toks[i:j]
            code = [x for x in decl if x.kind in ("id", "punct", "num", "str")]
            after = toks[j + 1] if j + 1 < n and toks[j + 1].kind == "post" else None
            documented = self.has_text(pending) or self.has_text(after)
            pending_doc, pending = pending, None
            i = j + 1
            if not code:
                continue
            if code[0].text == "MQ_API":
                functions += 1
                paren = next(k for k, x in enumerate(code) if x.text == "(")
                name = code[paren - 1].text
                self.items += 1
                if not documented:
                    self.missing(code[0].line, "function %s" % name)
                else:
                    self.check_params(name, code, paren, (pending_doc, after))
            elif code[0].text == "static" and any(x.text == "inline" for x in code[:3]) \
                    and any(x.text == "{" for x in code):
                # a static inline function defined in the header: part of the API
                paren = next(k for k, x in enumerate(code) if x.text == "(")
                name = code[paren - 1].text
                self.items += 1
                if not documented:
                    self.missing(code[0].line, "function %s" % name)
                else:
                    self.check_params(name, code, paren, (pending_doc, after))
            elif code[0].text == "typedef":
                self.check_typedef(decl, code, documented)
            elif code[0].text in ("struct", "union", "enum") and any(x.text == "{" for x in code):
                # a tagged definition without typedef
                self.check_typedef(decl, code, documented, typedef=False)
            else:
                self.problems.append("%s:%d: unexpected declaration (not MQ_API, not a typedef): %s"
                                     % (self.path, code[0].line, " ".join(x.text for x in code[:8])))
        self.items += 1
        if not self.has_text(file_doc):
            self.problems.append("%s:1: no @file doc block (/** @file ... */) describing the header" % self.path)
        elif functions and not re.search(r"thread", file_doc.text, re.I):
            self.problems.append("%s:%d: the @file block does not state thread safety" % (self.path, file_doc.line))
        return self.problems

    def check_params(self, name, code, paren, docs):
        """When a function's doc uses @param at all, every parameter must have one
        (Doxygen reports the others as undocumented)."""
        text = " ".join(d.text for d in docs if d is not None)
        named = set(re.findall(r"[@\\]param(?:\[[a-z, ]+\])?\s+(\w+)", text))
        if not named:
            return
        close = self.match(code, paren)
        params = [p for p in self.declarator_names(code[paren + 1:close]) if p not in ("void", "?")]
        for extra in sorted(named - set(params)):
            self.problems.append("%s:%d: %s documents a parameter it does not have: %s"
                                 % (self.path, code[0].line, name, extra))
        lacking = [p for p in params if p not in named]
        if lacking:
            self.missing(code[0].line, "parameters of %s (it uses @param, so all need one): %s"
                         % (name, ", ".join(lacking)))

    def check_typedef(self, decl, code, documented, typedef=True):
        brace = next((k for k, x in enumerate(code) if x.text == "{"), None)
        if brace is not None:
            close = self.match(code, brace)
            kind = code[1].text if typedef else code[0].text
            names = [x.text for x in code[close + 1:] if x.kind == "id"]
            tag = code[brace - 1].text if code[brace - 1].kind == "id" and code[brace - 1].text not in (
                "struct", "union", "enum") else None
            name = names[0] if names else (tag or "?")
            self.items += 1
            if not documented:
                self.missing(code[0].line, "%s %s" % (kind, name))
            body = self.raw_between(code[brace], code[close])
            self.check_members(body, name, kind == "enum")
            return
        names = self.declarator_names(code[1:])
        self.items += 1
        if not documented:
            self.missing(code[0].line, "typedef %s" % ", ".join(names))


SELF_TEST_HEADER = """/**
 * @file
 * A header for the checker's self-test. Thread safety: none.
 */
#ifndef SELF_TEST_H
#define SELF_TEST_H
/** documented macro */
#define MQ_GOOD 1
#define MQ_BAD 2
/** @def MQ_EXPLICIT
 *  documented by an explicit block */
#if defined(X)
#define MQ_EXPLICIT 1
#else
#define MQ_EXPLICIT 2
#endif
/** A documented enum. */
typedef enum mq_e {
    MQ_E_A = 0, /**< documented after */
    /** documented before */
    MQ_E_B = 1,
    MQ_E_C = 2
} mq_e;
typedef struct mq_opaque mq_opaque;
/** documented */
typedef struct mq_s {
    /** @{ */
    float a, b; /**< both documented: a member group */
    /** @} */
    float x, y; /**< documents y only, as in Doxygen */
    int c;
    void *(*fn)(int x, int y);
    union {
        int u1; /**< documented */
        float u2;
    } u; /**< documented member */
    struct { int n1; } nested;
} mq_s;
typedef bool (*mq_cb)(int x);
/** documented function */
MQ_API int mq_good(int x);
/** documented with @param for some parameters only
 *  @param[out] x documented */
MQ_API int mq_partial(int *x, int y);
MQ_API int mq_bad(const mq_s *s,
                  int y);
/**   */
MQ_API void mq_empty_doc(void);
MQ_API void mq_trailing(void); /**< documented after */
/** A documented inline function. */
static inline int mq_inline_good(int x)
{
    int y = x;
    return y;
}
static inline int mq_inline_bad(int x)
{
    return x;
}
/** documented after an inline body */
MQ_API void mq_after_inline(void);
#endif
"""

SELF_TEST_EXPECT = {
    "field mq_s.x (one doc comment documents one of `x, y`: put them in a /** @{ */ ... /** @} */ group)",
    "macro MQ_BAD", "enum constant MQ_E_C (in mq_e)", "typedef mq_opaque", "field mq_s.c", "field mq_s.fn",
    "field mq_s.u.u2", "field mq_s.nested.n1", "field mq_s.nested", "typedef mq_cb", "function mq_bad",
    "function mq_empty_doc", "parameters of mq_partial (it uses @param, so all need one): y",
    "function mq_inline_bad",
}


def self_test():
    """Runs the checker on SELF_TEST_HEADER: it must report exactly SELF_TEST_EXPECT."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "self_test.h")
        with open(path, "w", encoding="utf-8") as f:
            f.write(SELF_TEST_HEADER)
        got = {p.split("undocumented ", 1)[1] for p in Checker(path).run() if "undocumented " in p}
        bare = os.path.join(d, "bare.h")
        with open(bare, "w", encoding="utf-8") as f:
            f.write("/* not a doc comment */\n#ifndef B_H\n#define B_H\n/** f */\nMQ_API void mq_f(void);\n#endif\n")
        bare_problems = Checker(bare).run()
    ok = got == SELF_TEST_EXPECT and any("@file" in p for p in bare_problems)
    for item in sorted(SELF_TEST_EXPECT - got):
        print("self-test: NOT reported: %s" % item)
    for item in sorted(got - SELF_TEST_EXPECT):
        print("self-test: wrongly reported: %s" % item)
    if not any("@file" in p for p in bare_problems):
        print("self-test: a header without @file block was not reported")
    print("self-test: %s (%d gaps found as expected)" % ("ok" if ok else "FAILED", len(got & SELF_TEST_EXPECT)))
    return 0 if ok else 1


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    pending, headers = set(), []
    it = iter(argv)
    for a in it:
        if a == "--pending":
            pending.update(x for x in next(it, "").split(",") if x)
        elif a.startswith("-"):
            print(__doc__)
            return 2
        else:
            headers.append(a)
    if not headers:
        print(__doc__)
        return 2
    failed = False
    total = 0
    for h in sorted(headers):
        c = Checker(h)
        problems = c.run()
        total += c.items
        name = os.path.basename(h)
        tag = "pending" if name in pending else "FAIL"
        for p in problems:
            print("%s: %s" % (tag, p))
        if problems and name not in pending:
            failed = True
        print("%-14s %4d items, %3d undocumented%s" % (name, c.items, len(problems),
                                                      " (pending: not failing)" if name in pending and problems else ""))
    print("checked %d headers, %d items" % (len(headers), total))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
