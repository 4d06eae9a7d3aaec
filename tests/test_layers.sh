#!/bin/sh
# test_layers.sh -- the dependency rule of the library's modules (README
# "Architecture"), checked on the #include lines of the sources:
#   lib/core   includes only core (cosa/core.h, core/*.h);
#   lib/phi    includes core, phi and the public cosa/models.h, never td;
#   lib/td     includes core and td, never phi;
#   lib/check  includes core and check only;
#   lib/cosa/  public headers: core.h includes no module; phi.h, td.h,
#              check.h include only cosa/core.h; models.h only cosa/core.h;
#   models/, analysis/ include only public headers (cosa.h, cosa/*.h) and
#              their own directory's headers.
# Prints one line per violation and "N passed, M failed" (files checked).
src=${COSA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
pass=0
fail=0
# allowed FILE PATTERN...: every quoted include of FILE must match a pattern
# (shell patterns; LOCAL = a name without a directory)
allowed() {
    f=$1
    shift
    bad=0
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        ok=0
        for pat in "$@"; do
            if [ "$pat" = LOCAL ]; then
                # a header of the file's own directory: no path
                case $inc in */*) ;; *) ok=1 ;; esac
            else
                case $inc in $pat) ok=1 ;; esac
            fi
        done
        if [ $ok = 0 ]; then
            echo "layer violation: $f includes \"$inc\""
            bad=1
        fi
    done
    if [ $bad = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}
for f in lib/core/*.[ch]; do allowed "$f" 'cosa/core.h' 'core/*.h' 'config.h'; done
for f in lib/phi/*.[ch]; do allowed "$f" 'cosa/core.h' 'cosa/phi.h' 'cosa/models.h' 'core/*.h' 'phi/*.h'; done
for f in lib/td/*.[ch]; do allowed "$f" 'cosa/core.h' 'cosa/td.h' 'core/*.h' 'td/*.h'; done
for f in lib/check/*.[ch]; do allowed "$f" 'cosa/core.h' 'cosa/check.h' 'core/*.h'; done
allowed lib/cosa/core.h
for h in phi td check models; do allowed "lib/cosa/$h.h" 'cosa/core.h'; done
allowed lib/cosa.h 'cosa/*.h'
for f in models/*.[ch]; do allowed "$f" 'cosa.h' 'cosa/*.h' LOCAL; done
for f in analysis/*.[ch]; do allowed "$f" 'cosa.h' 'cosa/*.h' LOCAL; done
# every library source file sits in a module directory
for f in lib/*.c; do
    [ -e "$f" ] || continue
    echo "layer violation: $f is outside lib/core, lib/phi, lib/td, lib/check"
    fail=$((fail + 1))
done
echo "layers: $pass passed, $fail failed"
[ $fail = 0 ]
