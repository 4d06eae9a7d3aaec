#!/bin/sh
# test_fuzz_cli.sh -- random argument vectors over every subcommand (tests/fuzz_cli.c):
# 0 crashes, 0 hangs, 0 exit-0 runs with an error on stderr, 0 non-zero exits
# without a 'cosa: ...' line, no file left behind by a failed run.  A fixed
# seed and 600 runs here (about 20 s on a quiet machine); 'make fuzz' runs 20000 with a new seed.
# First the fuzzer must catch each kind of failure in a fake cosa that
# commits them (a fuzzer that cannot fail proves nothing).
: "${COSA:?}" "${COSA_SRCDIR:?}"
. "$COSA_SRCDIR/tests/harness.sh"
fuzz=$(dirname "$COSA")/../tests/fuzz_cli
cat >"$tmp/cosa" <<'EOS'
#!/bin/sh
if [ "$1" = "--help" ]; then
    printf 'Subcommands:\n'
    for s in err quiet segv leave noline code loop ok1 ok2 ok3; do printf '  %s  x\n' $s; done
    printf '\n'
    exit 0
fi
[ "$2" = "--help" ] && { printf '  --dt DT              x\n'; exit 0; }
case "$1" in
err) echo "cosa: err: something failed" >&2; exit 0 ;;
quiet) exit 2 ;;
segv) kill -SEGV $$ ;;
leave) echo "cosa: leave: failed" >&2; : >partial.dat; exit 1 ;;
noline) echo "progress only" >&2; exit 1 ;;
code) exit 3 ;;
loop) while :; do :; done ;;
*) exit 0 ;;
esac
EOS
chmod +x "$tmp/cosa"
"$fuzz" --runs 60 --seed 7 --timeout 1 "$tmp/cosa" "$COSA_SRCDIR" >"$tmp/self" 2>&1
self=$?
missing=
for v in "exit 0 with an error on stderr" "non-zero exit with an empty stderr" "crash (signal" \
    "non-zero exit left a file" "without a 'cosa: ...' line" "exit status 3" "hang (time limit"; do
    grep -qF "$v" "$tmp/self" || missing="$missing [$v]"
done
if [ "$self" != 1 ] || [ -n "$missing" ]; then
    bad "the fuzzer missed a failure of the fake cosa (exit $self):$missing"
    cat "$tmp/self"
    harness_done test_fuzz_cli
    exit 1
fi
ok
echo "ok - the fuzzer catches every kind of failure of a misbehaving fake cosa"
"$fuzz" --runs "${FUZZ_RUNS:-600}" --seed "${FUZZ_SEED:-1}" --timeout 20 "$COSA" "$COSA_SRCDIR"
rc=$?
check "the fuzzer found faults of cosa (exit $rc; the runs above say which)" [ "$rc" = 0 ]
harness_done test_fuzz_cli
