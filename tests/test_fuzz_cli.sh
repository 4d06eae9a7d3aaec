#!/bin/sh
# test_fuzz_cli.sh -- random argument vectors over every subcommand (tests/fuzz_cli.c):
# 0 crashes, 0 hangs, 0 exit-0 runs with an error on stderr, 0 non-zero exits
# without a 'cosa: ...' line, no file left behind by a failed run.  A fixed
# seed and 600 runs here (about 20 s); 'make fuzz' runs 20000 with a new seed.
: "${COSA:?}" "${COSA_SRCDIR:?}"
fuzz=$(dirname "$COSA")/../tests/fuzz_cli
exec "$fuzz" --runs "${FUZZ_RUNS:-600}" --seed "${FUZZ_SEED:-1}" --timeout 20 "$COSA" "$COSA_SRCDIR"
