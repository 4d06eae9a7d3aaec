#!/bin/sh
# make installcheck: the installed library, header, pkg-config file, command
# and man page work together from outside the build tree.
#   installcheck.sh SRCDIR PREFIX-LIBDIR BINDIR MANDIR CC [PYTHON PYEXECDIR]
# Compiles README's example (tests/install/rho.c) with
# 'cc rho.c $(pkg-config --cflags --libs cosa)' against the shared library,
# and once more against the static one with Libs.private, runs both, and
# checks their rho against the installed 'cosa point' of the same case;
# with PYTHON and PYEXECDIR (the Python package was installed there) also
# 'import cosa' and its cosa.point of the case.
set -eu
srcdir=$1 libdir=$2 bindir=$3 mandir=$4 cc=${5:-cc} py=${6:-} pydir=${7:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
pkg-config --exists cosa || { echo "installcheck: pkg-config finds no cosa.pc in $libdir/pkgconfig" >&2; exit 1; }
# shellcheck disable=SC2046
$cc -o "$tmp/rho" "$srcdir/tests/install/rho.c" $(pkg-config --cflags --libs cosa)
# shellcheck disable=SC2046
$cc -o "$tmp/rho_static" "$srcdir/tests/install/rho.c" $(pkg-config --cflags cosa) \
    "$libdir/libcosa.a" $(pkg-config --static --libs cosa | sed 's/-lcosa\b//')
shared=$(LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/rho" | awk '{ print $2 }')
static=$("$tmp/rho_static" | awk '{ print $2 }')
cli=$("$bindir/cosa" point --model twomass --scheme foh+mbcorr --dt 1e-3 | awk '$1 == "rho" { print $2 }')
echo "rho: shared library $shared, static library $static, cosa point $cli"
# The same computation through the same code, compiled once position-
# independent (shared) and once not: allow 8 ulps (the expm and eigenvalue
# kernels may be scheduled differently), far below any real discrepancy.
awk -v a="$shared" -v b="$static" -v c="$cli" 'function ad(x) { return x < 0 ? -x : x }
    BEGIN { tol = 8 * 2.220446049250313e-16 * ad(c);
            if (!(c > 0 && ad(a - c) <= tol && ad(b - c) <= tol)) { print "installcheck: rho differs" > "/dev/stderr"; exit 1 } }'
[ -f "$mandir/man1/cosa.1" ] || { echo "installcheck: no man page $mandir/man1/cosa.1" >&2; exit 1; }
# the model-file format that the --help texts name (man 5 cosa-model)
[ -f "$mandir/man5/cosa-model.5" ] || { echo "installcheck: no man page $mandir/man5/cosa-model.5" >&2; exit 1; }
# the Python package, imported from outside the build tree by the configured
# interpreter (PYTHONPATH only for a prefix outside its path): the same rho
# to the last bit (the same library call as cosa point)
if [ -n "$py" ] && [ "$py" != : ] && [ -f "$pydir/cosa/__init__.py" ]; then
    pyrho=$(cd "$tmp" && PYTHONPATH="$pydir" \
        LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$py" -c \
        "import cosa; print('%.17g' % cosa.point(cosa.Model('twomass'), 'foh+mbcorr', 1e-3).rho)")
    echo "rho: Python package $pyrho"
    [ "$pyrho" = "$cli" ] || { echo "installcheck: the Python package's rho differs" >&2; exit 1; }
fi
echo "installcheck: libcosa (shared, static), cosa.pc, cosa.h, cosa, cosa.1 and cosa-model.5 work from $libdir"
