#!/bin/sh
# test_public_api.sh -- the budget of the installed headers (issue 33 item 4,
# doc/architecture.md "Public and internal headers"):
#   - at most 220 function prototypes in lib/cosa.h and lib/cosa/*.h (the
#     headers `make install` installs), none of them over 700 lines;
#   - tools/count-prototypes.sh, which counts them, is right: on a header
#     written here with a known answer, and, where the compiler is GCC, equal
#     to the compiler's own list of the declarations (-aux-info) of the public
#     view (cosa.h) and of the internal view (COSA_INTERNAL);
#   - the internal headers (lib/cosa/internal/*.h) are not installed and
#     declare no name a public header declares;
#   - the per-paper run entry points (cosa_cosim_run, cosa_defect_run,
#     cosa_vo_run) are not public: the public run API is cosa_run;
#   - no section title without anything under it, and no cosa_ name in a
#     public header (comments included) that the sources do not have.
# COSA_API_MAX / COSA_API_MAXLINES override the limits (a test of the check).
src=${COSA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$src/tests/harness.sh"
count="$src/tools/count-prototypes.sh"
max=${COSA_API_MAX:-220}
maxlines=${COSA_API_MAXLINES:-700}
pub="$src/lib/cosa.h $(ls "$src"/lib/cosa/*.h)"
internal=$(ls "$src"/lib/cosa/internal/*.h)

# 1. the counter on a header with a known answer: 4 prototypes (one over
# three lines, one with a trailing comment, one returning a function
# pointer's typedef name); not counted: a struct's function-pointer member, a
# function-pointer typedef, a prototype inside a comment, a macro, an extern
# variable, the C++ guard.
cat >"$tmp/known.h" <<'EOF'
#ifndef KNOWN_H
#define KNOWN_H
#ifdef __cplusplus
extern "C" {
#endif
#define KNOWN_MAX(a, b) ((a) > (b) ? (a) : (b))
typedef int (*known_fn)(double x, void *ctx);
typedef struct known {
    int (*step)(struct known *k, double h);
    double t;
} known;
/* known_fake(int a); is a comment, not a prototype */
int known_create(known **out);
void known_free(known *k); /* NULL is fine */
const double *known_values(const known *k,
                           size_t n,
                           double *work);
known_fn known_callback(const known *k);
extern const known known_default;
#ifdef __cplusplus
}
#endif
#endif
EOF
got=$("$count" "$tmp/known.h" | awk 'NR == 1 {print $1 " " $2}')
check "count-prototypes.sh on known.h: '$got', expected '4 23'" [ "$got" = "4 23" ]
names=$("$count" -l "$tmp/known.h" | awk '{print $2}' | tr '\n' ' ')
check "count-prototypes.sh -l on known.h: '$names'" \
    [ "$names" = "known_create known_free known_values known_callback " ]

# 2. the budget
# shellcheck disable=SC2086 # one word per header
"$count" $pub >"$tmp/pub" || bad "count-prototypes.sh failed on the public headers"
total=$(awk '$3 == "total" {print $1}' "$tmp/pub")
echo "public prototypes: $total (limit $max)"
check "public headers declare $total prototypes, more than $max" [ "${total:-999999}" -le "$max" ]
over=$(awk -v m="$maxlines" '$3 != "total" && $2 > m {print $3 " (" $2 " lines)"}' "$tmp/pub")
check "public headers over $maxlines lines: $over" [ -z "$over" ]

# 3. the counter against the compiler's list of declarations (GCC only)
cc=${CC:-cc}
printf '#include "cosa.h"\n' >"$tmp/view.c"
aux() { # aux OUT CPPFLAGS...: prototypes declared in lib/cosa*.h, sorted
    out=$1
    shift
    "$cc" -std=c11 "$@" -I"$src/lib" -aux-info "$tmp/aux" -fsyntax-only "$tmp/view.c" \
        >/dev/null 2>&1 || return 1
    grep '^/\* [^ ]*lib/cosa' "$tmp/aux" | sed 's/.*\*\/ *//; s/ *(.*//; s/.*[ *]//' | sort >"$out"
}
if aux "$tmp/aux_pub"; then
    # shellcheck disable=SC2086
    "$count" -l $pub | awk '{print $2}' | sort >"$tmp/mine_pub"
    check "count-prototypes.sh and $cc -aux-info differ on the public view: $(diff "$tmp/mine_pub" "$tmp/aux_pub" | head -5 | tr '\n' ' ')" \
        cmp -s "$tmp/mine_pub" "$tmp/aux_pub"
    aux "$tmp/aux_all" -DCOSA_INTERNAL || bad "the internal view (COSA_INTERNAL) does not compile"
    # shellcheck disable=SC2086
    "$count" -l $pub $internal | awk '{print $2}' | sort >"$tmp/mine_all"
    check "count-prototypes.sh and $cc -aux-info differ on the internal view: $(diff "$tmp/mine_all" "$tmp/aux_all" | head -5 | tr '\n' ' ')" \
        cmp -s "$tmp/mine_all" "$tmp/aux_all"
else
    echo "($cc has no -aux-info: the cross-check with the compiler is skipped)"
fi

# 4. internal headers: not installed, no name twice
# shellcheck disable=SC2086
"$count" -l $pub $internal | awk '{print $2}' | sort | uniq -d >"$tmp/dup"
check "declared twice (public and internal): $(tr '\n' ' ' <"$tmp/dup")" [ ! -s "$tmp/dup" ]
inst=$(sed -n '/^cosainclude_HEADERS/,/[^\\]$/p' "$src/Makefile.am")
case $inst in *internal*) bad "an internal header is installed (cosainclude_HEADERS)" ;; *) ok ;; esac
for f in $internal; do
    rel=${f#"$src"/}
    check "$rel is not in noinst_HEADERS" grep -q "$rel" "$src/Makefile.am"
done

# 5. the run API: cosa_run, not the per-paper entry points
for n in cosa_cosim_run cosa_defect_run cosa_vo_run; do
    # shellcheck disable=SC2086
    if "$count" -l $pub | awk '{print $2}' | grep -qx "$n"; then
        bad "$n is declared in a public header"
    else
        ok
    fi
done

# 6. the headers' text against the code: every section title ('/* ---- ')
# has something under it (not just the next title or the end), and every
# cosa_ name a public header mentions, comments included, is a name of the
# library's code (lib/, api/, models/ *.c, the headers without their
# comments) -- no stale or invented names
for f in $pub; do
    empty=$(awk '/^\/\* ----/ { if (t != "") print t; t = FNR; next }
                 /^[ \t]*$/ || /^#(endif|ifdef __cplusplus)/ || /^}$/ { next }
                 { t = "" }
                 END { if (t != "") print t }' "$f" | tr '\n' ' ')
    check "${f#"$src"/}: empty section(s) at line(s) $empty" [ -z "$empty" ]
done
# shellcheck disable=SC2086
grep -oh 'cosa_[a-z0-9_]*[a-z0-9]' $pub | sort -u >"$tmp/names"
find "$src/lib" "$src/api" "$src/models" -name '*.c' -exec cat {} + >"$tmp/code"
# and the headers' declarations without their comments (the preprocessor strips them)
for f in $pub $internal; do
    ${CC:-cc} -fpreprocessed -dD -E -P "$f" 2>/dev/null >>"$tmp/code" || cat "$f" >>"$tmp/code"
done
stale=$(while read -r n; do grep -qw "$n" "$tmp/code" || printf '%s ' "$n"; done <"$tmp/names")
check "public headers name what the code does not have: $stale" [ -z "$stale" ]

harness_done test_public_api
