# Shared by the tests/cli scripts (sourced): a scratch directory $tmp removed
# on exit, check NAME COMMAND... counting passes and failures, and finish,
# which prints the counts and fails when any check did.
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME COMMAND...
    local name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    test "$failed" -eq 0
}
