#!/bin/sh
# test_layers.sh -- the dependency rule of the library's modules (README
# "Architecture"), checked on the #include lines of the sources:
#   lib/core   includes only core (cosa/core.h, core/*.h);
#   lib/phi    includes core and phi, never td (the model descriptor its
#              sweeps use is core's);
#   lib/td     includes core and td, never phi;
#   lib/check  includes core and check only;
#   lib/cosa/  public headers: core.h includes no module; phi.h and its
#              part sweep.h include only cosa/core.h and each other;
#              check.h includes only cosa/core.h; models.h only cosa/core.h; td.h
#              and its parts by concept (units.h, reference.h, stepping.h,
#              control.h, run.h, fmu.h) include only cosa/core.h and
#              each other;
#   lib/cosa/internal/NAME.h (not installed: what lib/, models/, api/,
#              analysis/ and tests/ see besides the API) includes only
#              cosa/NAME.h, which includes it under COSA_INTERNAL;
#   lib/cosa/api.h, the one-call API, includes public headers only;
#   models/, api/, analysis/ include only public headers (cosa.h, cosa/*.h)
#              and their own directory's headers (api/, the one-call API,
#              is a layer above models/ and the engine, in libcosa).
# and on the calls of the compiled objects (nm): no name a lib/ object
# uses (an undefined symbol of lib/*/*.o) may be defined in models/ or
# analysis/ -- the library's modules never call up into the models or the
# command (a call the include rule does not see: a prototype written in
# place, or a public header that declares a name models/ defines); and no
# analysis/ object calls cosa_cosim_run, cosa_defect_run or cosa_vo_run:
# the command line runs through the one entry point cosa_run.  The
# workspace carving macro is defined once (lib/core/carve.h).
# Prints one FAIL line per violation and "layers: N passed, M failed" (files
# checked; tests/harness.sh's counters).
src=${COSA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cosa_bin=${COSA:-$src/analysis/cosa} # (before the harness's default)
cd "$src" || exit 2
. "$src/tests/harness.sh"
# allowed FILE PATTERN...: every quoted include of FILE must match a pattern
# (shell patterns; LOCAL = a name without a directory)
allowed() {
    f=$1
    shift
    wrong=0
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        hit=0
        for pat in "$@"; do
            if [ "$pat" = LOCAL ]; then
                # a header of the file's own directory: no path
                case $inc in */*) ;; *) hit=1 ;; esac
            else
                case $inc in $pat) hit=1 ;; esac
            fi
        done
        if [ $hit = 0 ]; then
            echo "layer violation: $f includes \"$inc\""
            wrong=1
        fi
    done
    if [ $wrong = 0 ]; then ok; else bad "$f: an include outside its layer (above)"; fi
}
for f in lib/core/*.[ch]; do allowed "$f" 'cosa/core.h' 'core/*.h' 'config.h'; done
for f in lib/phi/*.[ch]; do allowed "$f" 'cosa/core.h' 'cosa/phi.h' 'cosa/sweep.h' 'core/*.h' 'phi/*.h'; done
TD_H="cosa/td.h cosa/units.h cosa/reference.h cosa/stepping.h cosa/control.h cosa/run.h cosa/fmu.h"
# shellcheck disable=SC2086 # TD_H: one pattern per word
for f in lib/td/*.[ch]; do allowed "$f" 'cosa/core.h' $TD_H 'core/*.h' 'td/*.h'; done
for f in lib/check/*.[ch]; do allowed "$f" 'cosa/core.h' 'cosa/check.h' 'core/*.h'; done
# a public header may include its internal part (cosa/internal/NAME.h, the
# build tree's view, not installed); an internal part includes its public header
allowed lib/cosa/core.h 'cosa/internal/core.h'
for h in check models; do allowed "lib/cosa/$h.h" 'cosa/core.h' "cosa/internal/$h.h"; done
for h in phi sweep; do allowed "lib/cosa/$h.h" 'cosa/core.h' 'cosa/phi.h' 'cosa/sweep.h' "cosa/internal/$h.h"; done
# shellcheck disable=SC2086
for h in $TD_H; do allowed "lib/$h" 'cosa/core.h' $TD_H "cosa/internal/${h#cosa/}"; done
for f in lib/cosa/internal/*.h; do allowed "$f" "cosa/${f#lib/cosa/internal/}"; done
allowed lib/cosa.h 'cosa/*.h'
allowed lib/cosa/api.h 'cosa/*.h'
for f in models/*.[ch]; do allowed "$f" 'cosa.h' 'cosa/*.h' LOCAL; done
for f in api/*.[ch]; do allowed "$f" 'cosa.h' 'cosa/*.h' LOCAL; done
for f in analysis/*.[ch]; do allowed "$f" 'cosa.h' 'cosa/*.h' LOCAL; done
# every library source file sits in a module directory
for f in lib/*.c; do
    [ -e "$f" ] || continue
    bad "layer violation: $f is outside lib/core, lib/phi, lib/td, lib/check"
done
# the workspace carving macro is written once (lib/core/carve.h, COSA_CARVE):
# no other source defines its own
for f in $(grep -lE '#[[:space:]]*define[[:space:]]+[A-Z_]*CARVE' lib/*/*.[ch] models/*.[ch] api/*.[ch] analysis/*.[ch] 2>/dev/null); do
    [ "$f" = lib/core/carve.h ] && continue
    bad "carving: $f defines its own workspace carving macro (use COSA_CARVE, lib/core/carve.h)"
done
# calls: the objects of the build tree (next to analysis/cosa, $COSA)
bld=$(cd "$(dirname "$cosa_bin")/.." 2>/dev/null && pwd)
if command -v nm >/dev/null 2>&1 && [ -n "$bld" ] && ls "$bld"/lib/core/*.o >/dev/null 2>&1; then
    up=$tmp/up
    # every global name defined (code or data) in models/ and analysis/
    # (objects of today's sources only: analysis/cosa-NAME.o is NAME.c)
    for o in "$bld"/models/*.o "$bld"/analysis/*.o; do
        d=$(basename "$(dirname "$o")")
        c=$(basename "$o" .o)
        c=${c#cosa-}
        [ -e "$o" ] && [ -e "$src/$d/$c.c" ] && nm -g --defined-only "$o" 2>/dev/null
    done | awk 'NF == 3 && $2 ~ /^[TDBRC]$/ { print $3 }' | sort -u >"$up"
    for o in "$bld"/lib/*/*.o; do
        c=$(basename "$o" .o)
        [ -e "$src/$(dirname "${o#"$bld"/}")/$c.c" ] || continue
        up_calls=$(nm -u "$o" 2>/dev/null | awk '{ print $NF }' | grep -xF -f "$up")
        check "layer violation: ${o#"$bld"/} calls $(echo $up_calls) (defined in models/ or analysis/)" \
            [ -z "$up_calls" ]
    done
    # the command line's single call path (README "The one run description"):
    # no object of analysis/ calls a configuration's entry point, every run
    # goes through cosa_run
    for o in "$bld"/analysis/*.o; do
        c=$(basename "$o" .o)
        c=${c#cosa-}
        [ -e "$src/analysis/$c.c" ] || continue
        presets=$(nm -u "$o" 2>/dev/null | awk '{ print $NF }' |
              grep -xE 'cosa_cosim_run|cosa_defect_run|cosa_vo_run')
        check "call path: analysis/$c.c calls $(echo $presets) (runs go through cosa_run)" \
            [ -z "$presets" ]
    done
else
    echo "layers: calls not checked (no nm, or no objects under ${bld:-the build tree})"
fi
harness_done layers
