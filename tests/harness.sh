# harness.sh -- the shared helpers of the shell tests, sourced by every
# tests/*.sh script ('. tests/harness.sh' from the build directory, or
# '. "$(dirname "$0")/harness.sh"'):
#   COSA            the command under test (default analysis/cosa)
#   tmp             a scratch directory, removed at exit (trap on EXIT)
#   ok, bad MSG     count a passed / failed check (bad prints "FAIL: MSG")
#   check MSG CMD.. ok if CMD succeeds, else bad MSG
#   expect_exit CODE CMD...
#                   CMD exits CODE; a failure (CODE != 0) prints exactly one
#                   stderr line 'cosa: ...' and nothing on stdout; the
#                   outputs stay in $tmp/out and $tmp/err
#   harness_done NAME
#                   "NAME: N passed, M failed" and the exit status
COSA=${COSA:-analysis/cosa}
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cosa_test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

check() {
    msg=$1
    shift
    if "$@"; then ok; else bad "$msg"; fi
}

expect_exit() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then
        bad "'$*' exited $got, expected $want: $(head -c 300 "$tmp/err")"
        return 1
    fi
    if [ "$want" != 0 ]; then
        if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q '^cosa: ' "$tmp/err"; then
            bad "'$*' should print one 'cosa: ...' line on stderr, got: $(cat "$tmp/err")"
            return 1
        fi
        if [ -s "$tmp/out" ]; then
            bad "'$*' printed to stdout on error"
            return 1
        fi
    fi
    ok
}

harness_done() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}
