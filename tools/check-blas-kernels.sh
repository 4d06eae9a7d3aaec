#!/usr/bin/env bash
# check-blas-kernels.sh -- run the compiled test suite again under every
# OpenBLAS kernel this CPU supports (Prescott, Haswell, Zen, SkylakeX) and
# once against the reference BLAS/LAPACK, so that no tolerance rests on the
# rounding of one BLAS kernel.
#
# Run it from the build directory after `make check` has built the test
# programs:  tools/check-blas-kernels.sh [-S] [-k "KERNEL ..."]
#   -k LIST   OpenBLAS kernels to try (default "Prescott Haswell Zen SkylakeX")
#   -S        Criterion programs only, not the shell tests (tests/test_*.sh)
# Environment: REF_BLAS, REF_LAPACK override the reference libraries
# (default /usr/lib/<multiarch>/blas/libblas.so.3 and
# /usr/lib/<multiarch>/lapack/liblapack.so.3, Debian's libblas3 and
# liblapack3).  The reference libraries are put in front of OpenBLAS with
# LD_PRELOAD (the programs link libopenblas.so.0 directly, so the
# alternatives system cannot switch them); that this took effect is checked
# with LD_DEBUG=bindings before the run.
#
# One summary line per configuration, the failing tests of a failed
# program, and a last line "N passed, M failed" counting configurations x
# programs.  Exit status 0 if everything passed, 1 otherwise, 2 on bad usage.
set -u

kernels="Prescott Haswell Zen SkylakeX"
shell_tests=1
while getopts "k:Sh" opt; do
    case $opt in
    k) kernels=$OPTARG ;;
    S) shell_tests=0 ;;
    h)
        sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
        exit 0
        ;;
    *) exit 2 ;;
    esac
done

builddir=$(pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
cosa=$builddir/analysis/cosa

progs=()
for f in "$builddir"/tests/test_*; do
    case $(basename "$f") in *.*) continue ;; esac
    [ -f "$f" ] && [ -x "$f" ] && progs+=("$f")
done
if [ "${#progs[@]}" = 0 ] || [ ! -x "$cosa" ]; then
    echo "check-blas-kernels: no test programs in $builddir/tests (run 'make check' first)" >&2
    exit 2
fi
if [ "$shell_tests" = 1 ]; then
    for f in "$srcdir"/tests/test_*.sh; do
        # test_mpi.sh needs an MPI build (.ci/run makes one after this script)
        case $(basename "$f") in test_mpi.sh) continue ;; esac
        [ -f "$f" ] && progs+=("$f")
    done
fi

# the same environment as make check (Makefile.am, AM_TESTS_ENVIRONMENT)
export COSA="$cosa" COSA_SRCDIR="$srcdir" OPENBLAS_NUM_THREADS=1 COSA_FMUDIR="$builddir/tests/fmu"
# the command-line fuzzer (test_fuzz_cli.sh) judges exits and messages, not
# digits: 100 vectors per configuration here, 600 in make check
export FUZZ_RUNS=100
unset OPENBLAS_CORETYPE OPENBLAS_VERBOSE LD_PRELOAD

limit=()
command -v timeout >/dev/null 2>&1 && limit=(timeout 600)
logdir=$(mktemp -d "${TMPDIR:-/tmp}/cosa-blas.XXXXXX")
trap 'rm -rf "$logdir"' EXIT

total_pass=0
total_fail=0

# run_config NAME NOTE ENV-ASSIGNMENT...: every program with the given environment.
run_config() {
    local name=$1 note=$2 p base log pass=0 fail=0 failed="" run
    shift 2
    for p in "${progs[@]}"; do
        base=$(basename "$p")
        log=$logdir/$name.$base.log
        run=("$p")
        [ -x "$p" ] || run=(sh "$p")
        if env "$@" ${limit[@]+"${limit[@]}"} "${run[@]}" >"$log" 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            failed="$failed $base"
        fi
    done
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    printf '%-10s %d passed, %d failed (%s)%s\n' "$name:" "$pass" "$fail" "$note" \
        "${failed:+; failed:$failed}"
    for base in $failed; do
        log=$logdir/$name.$base.log
        # Criterion: "[FAIL] suite::test" and the assertion lines; shell tests: "FAIL: ..."
        grep -E '^\[FAIL\]|^FAIL' "$log" | sed "s|^|  FAIL $name tests/$base: |" | head -n 20
        grep -E '^\[----\] .*(Assertion|[^ ]:[0-9]+:)|^\[----\]   [^ ]' "$log" | head -n 20 |
            sed 's/^/    /'
    done
}

# A kernel the CPU lacks would crash (illegal instruction): skip it.
flags=" $(grep -m1 -E '^(flags|Features)[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
needs() {
    case $1 in
    Prescott) echo "pni" ;;
    Haswell) echo "avx2 fma" ;;
    Zen) echo "avx2 fma" ;;
    SkylakeX) echo "avx512f avx512bw avx512dq avx512vl avx512cd" ;;
    *) echo "" ;; # not known here: OpenBLAS's Core: report decides
    esac
}

for k in $kernels; do
    missing=""
    for f in $(needs "$k"); do
        case $flags in *" $f "*) ;; *) missing="$missing $f" ;; esac
    done
    if [ -n "$missing" ]; then
        printf '%-10s skipped: the CPU lacks%s\n' "$k:" "$missing"
        continue
    fi
    # OPENBLAS_CORETYPE is only honoured by a DYNAMIC_ARCH build: check the
    # kernel OpenBLAS reports at start-up.
    core=$(OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=$k "$cosa" --version 2>&1 |
        sed -n 's/^Core: *//p' | head -n 1)
    if [ "$core" != "$k" ]; then
        printf '%-10s %d passed, %d failed (OpenBLAS did not select the kernel: Core: %s)\n' \
            "$k:" 0 "${#progs[@]}" "${core:-none reported}"
        total_fail=$((total_fail + ${#progs[@]}))
        continue
    fi
    run_config "$k" "OpenBLAS, Core: $core" OPENBLAS_CORETYPE="$k"
done

# Reference BLAS/LAPACK (Debian libblas3, liblapack3).
multi=""
command -v gcc >/dev/null 2>&1 && multi=$(gcc -print-multiarch 2>/dev/null)
ref_blas=${REF_BLAS:-/usr/lib/${multi:-x86_64-linux-gnu}/blas/libblas.so.3}
ref_lapack=${REF_LAPACK:-/usr/lib/${multi:-x86_64-linux-gnu}/lapack/liblapack.so.3}
if [ ! -f "$ref_blas" ] || [ ! -f "$ref_lapack" ]; then
    printf '%-10s %d passed, %d failed (not installed: %s %s; apt-get install libblas3 liblapack3)\n' \
        "reference:" 0 "${#progs[@]}" "$ref_blas" "$ref_lapack"
    total_fail=$((total_fail + ${#progs[@]}))
else
    # the preload must win symbol resolution: dgeev_ (called by LAPACKE) from
    # the reference LAPACK, the CBLAS calls of cosa from the reference BLAS
    b=$(LD_DEBUG=bindings LD_PRELOAD="$ref_blas $ref_lapack" "$cosa" point --scheme zoh \
        --dt 1e-4 2>&1 >/dev/null)
    if printf '%s\n' "$b" | grep -q "to $ref_lapack \[0\]: normal symbol \`dgeev_'" &&
        printf '%s\n' "$b" | grep -q "to $ref_blas \[0\]: normal symbol \`cblas_"; then
        ver=""
        [ -z "${REF_BLAS:-}${REF_LAPACK:-}" ] && command -v dpkg-query >/dev/null 2>&1 &&
            ver=$(dpkg-query -W -f '${Version}' liblapack3 2>/dev/null)
        run_config reference "BLAS/LAPACK${ver:+ $ver}, LD_PRELOAD $ref_blas $ref_lapack" \
            LD_PRELOAD="$ref_blas $ref_lapack"
    else
        printf '%-10s %d passed, %d failed (LD_PRELOAD of %s %s did not take effect)\n' \
            "reference:" 0 "${#progs[@]}" "$ref_blas" "$ref_lapack"
        total_fail=$((total_fail + ${#progs[@]}))
    fi
fi

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
