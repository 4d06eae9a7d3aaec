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
#   usage_error [-x] WANT ARGS...
#                   cosa ARGS exits 2 as expect_exit says, and its line
#                   holds WANT (-x: is WANT)
#   harness_done NAME
#                   "NAME: N passed, M failed" and the exit status
#   fmu_twomass FILE NAME TEND I II
#                   the model file "model NAME" (horizon TEND) of the
#                   two-mass network of the FMU files I and II in $FMU;
#                   FILE - writes it to stdout
COSA=${COSA:-analysis/cosa}
FMU=${FMU:-${COSA_FMUDIR:-tests/fmu}}
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

fmu_twomass() {
    if [ "$1" = - ]; then
        shift
        fmu_twomass_text "$@"
    else
        harness_file=$1
        shift
        fmu_twomass_text "$@" >"$harness_file"
    fi
}
fmu_twomass_text() { # NAME TEND I II
    cat <<END
model $1
tend $2
fmu I = $FMU/$3
fmu II = $FMU/$4
connect I.s1 -> II.s1
connect I.v1 -> II.v1
connect II.Fk -> I.Fk
END
}

usage_error() {
    harness_x=
    if [ "$1" = -x ]; then
        harness_x=x
        shift
    fi
    harness_want=$1
    shift
    expect_exit 2 "$COSA" "$@" || return 0
    grep -q${harness_x}F -- "$harness_want" "$tmp/err" && ok ||
        bad "want '$harness_want', got: $(cat "$tmp/err")"
}

harness_done() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" = 0 ]
}
