#!/bin/sh
# The Python package (python/, doc/python.md): its pytest suite
# (python/tests) run with the configured interpreter ($PYTHON, by default the
# system's /usr/bin/python3) on the package of the build tree.  A package
# that was not built, a suite that skips a test, collects none or fewer
# than it should, fails: the numbers of Python are checked, not assumed.
set -u
: "${COSA:?}" "${COSA_SRCDIR:?}"
. "$COSA_SRCDIR/tests/harness.sh"
bld=$(cd "$(dirname "$COSA")/.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
if [ "${COSA_PYTHON_WANTED:-1}" = 0 ]; then
    echo "skip - configured with --disable-python"
    exit 77
fi
if ! ls "$bld"/python/cosa/_cosa*.so >/dev/null 2>&1; then
    bad "the Python package was not built (configure found no python3-cffi, python3-numpy, python3-pytest or python3-dev for $PY; or --disable-python)"
    harness_done test_python
    exit 1
fi
log=$tmp/log
PYTHONPATH=$bld/python LD_LIBRARY_PATH=$bld/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    PYTHONDONTWRITEBYTECODE=1 COSA_BUILDDIR=$bld \
    "$PY" -m pytest -q -rs -p no:cacheprovider "$COSA_SRCDIR/python/tests" >"$log" 2>&1
rc=$?
cat "$log"
last=$(tail -1 "$log")
case $last in
*skipped* | *"no tests ran"* | *deselected* | *xfail*)
    bad "the Python suite skipped or left out tests: $last" ;;
*) ok ;;
esac
passed=$(echo "$last" | sed -n 's/^\([0-9][0-9]*\) passed.*/\1/p')
check "pytest exit $rc" [ "$rc" = 0 ]
check "only ${passed:-0} Python tests passed (expected >= 20)" [ "${passed:-0}" -ge 20 ]
echo "pytest: ${passed:-0} passed"
harness_done test_python
