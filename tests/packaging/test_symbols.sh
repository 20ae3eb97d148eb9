#!/usr/bin/env bash
# ABI hygiene of the shared library (docs/abi.md):
#  - every dynamic symbol it defines is a public `mq_` function (no internals,
#    no cglm inlines, no helpers from static archives);
#  - its soname is libmeshquery.so.<SOVERSION>;
#  - every MQ_API function declared in the public headers is exported (no
#    declaration without a definition).
# usage: test_symbols.sh LIBMESHQUERY.so SOVERSION INCLUDE_DIR
set -euo pipefail
lib=$1 soversion=$2 include=$3
fail() { echo "FAIL: $*" >&2; exit 1; }

exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $3}' | sed 's/@.*//' | sort -u)
[ -n "$exported" ] || fail "no exported symbols in $lib"
bad=$(echo "$exported" | grep -v '^mq_' || true)
if [ -n "$bad" ]; then
    echo "$bad" | sed 's/^/  not mq_: /'
    fail "$(echo "$bad" | wc -l) exported symbols do not start with mq_"
fi
kinds=$(nm -D --defined-only "$lib" | awk 'NF >= 3 {print $2}' | sort -u | tr -d '\n')
[ "$kinds" = "T" ] || echo "note: symbol kinds exported: $kinds (only T, functions, expected)"
echo "exported: $(echo "$exported" | wc -l) symbols, all mq_"

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libmeshquery.so.$soversion" ] || fail "soname is '$soname', expected libmeshquery.so.$soversion"
echo "soname: $soname"

declared=$(cat "$include"/meshquery/*.h | grep -E '^MQ_API ' | sed -E 's/\(.*//; s/.*[ *]//' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
echo "declared: $(echo "$declared" | wc -l) MQ_API functions"
if [ -n "$missing" ]; then
    echo "$missing" | sed 's/^/  declared, not exported: /'
    fail "$(echo "$missing" | wc -l) declared functions are not in the library"
fi
echo "PASS"
