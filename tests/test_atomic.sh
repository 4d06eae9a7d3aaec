#!/bin/sh
# test_atomic.sh -- output files are atomic (README "Output files"): SIGINT and
# SIGTERM at many points of `cosa map` (computing, writing, plotting), `cosa
# simulate -o` and `cosa convert` leave every file either complete (byte for
# byte what an uninterrupted run writes, data rows whole, PNGs valid) or the
# earlier run's file unchanged, no temporaries, exit 130/143, and no gnuplot
# child; a full disk (tmpfs, as root) and a file size limit (ulimit -f) give
# one line naming the file, exit 1 and no partial file, and so does an fsync
# that fails when the files are published; an unwritable -o is
# refused before any computation (exit 2); an -o directory a failed run
# created is removed again.
COSA=${COSA:-analysis/cosa}
case $COSA in /*) ;; *) COSA=$(pwd)/$COSA ;; esac
. "$(dirname "$0")/harness.sh"
mounted=""
cleanup() {
    for m in $mounted; do umount "$m" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

# A shell runs background jobs with SIGINT ignored, and cosa keeps an ignored
# SIGINT ignored (as nohup wants); env --default-signal gives it back.
if env --default-signal=INT true 2>/dev/null; then
    sigs="INT TERM"
    bg_env="env --default-signal=INT"
else
    sigs="TERM"
    bg_env=""
    echo "skip: SIGINT cases (env has no --default-signal to undo the shell's SIG_IGN)"
fi

# the exit code a signal must give
want_rc() { [ "$1" = INT ] && echo 130 || echo 143; }

# no_tmp DIR: no temporary or probe file left anywhere under DIR
no_tmp() {
    left=$(find "$1" -name '.*.tmp-*' -o -name '.cosa-probe*' 2>/dev/null)
    [ -z "$left" ] || bad "temporaries left: $left"
}
# interrupt MSG: signal $s to the background job ($!) after $w s; its exit status is
# 0 or the signal's (counted in interrupted), else bad "MSG: exit RC"
interrupt() {
    pid=$!
    sleep $w
    kill -"$s" $pid 2>/dev/null
    wait $pid
    rc=$?
    [ $rc = "$(want_rc "$s")" ] && interrupted=$((interrupted + 1))
    [ $rc = 0 ] || [ $rc = "$(want_rc "$s")" ] || bad "$1: exit $rc"
}

# is_png FILE: the PNG signature and the IEND chunk at the end
is_png() {
    [ "$(od -A n -t x1 -N 8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] &&
        [ "$(tail -c 8 "$1" | od -A n -t x1 | tr -d ' \n')" = 49454e44ae426082 ]
}

# whole_dat FILE NCOL NROW: every record has NCOL numbers and there are NROW
whole_dat() {
    awk -v c="$2" -v r="$3" '/^#/ || NF == 0 { next } { n++; if (NF != c) e++ }
        END { exit !(n == r && !e) }' "$1"
}

# whole_csv FILE: every row has the header's number of fields, the last ends in a newline
whole_csv() {
    [ "$(tail -c 1 "$1" | od -A n -t x1 | tr -d ' ')" = 0a ] &&
        awk -F, '/^#/ { next } !h { h = NF; next } NF != h { e++ } END { exit !(h && !e) }' "$1"
}

# check_dir DIR EARLIER REF WHAT: every entry of DIR is a file of the earlier run
# unchanged or byte for byte what the uninterrupted run REF wrote
check_dir() {
    [ -d "$1" ] || return 0
    no_tmp "$1"
    for f in $(ls -A "$1"); do
        case $f in
        .*) bad "$4: hidden file $f left" ;;
        *.png) is_png "$1/$f" || bad "$4: $f is not a whole PNG" ;;
        *.csv) whole_csv "$1/$f" || bad "$4: $f has a cut row" ;;
        esac
        if ! cmp -s "$1/$f" "$2/$f" && ! cmp -s "$1/$f" "$3/$f"; then
            bad "$4: $f is neither the earlier run's nor a complete new file"
        fi
    done
}

# ---- map: earlier run, reference run, then interrupted runs over the same dir ----
map_new="--x ck=1e3:1e9:log:90 --y dk=1:1e5:log:90 --dt 10^-3,3e-5 --scheme zoh,foh --threads 1"
map_old="--x ck=1e4:1e9:log:9 --y dk=1:1e5:log:9 --dt 10^-3,3e-5 --scheme zoh,foh --threads 1"
plot=""
command -v gnuplot >/dev/null 2>&1 && plot="--plot png"
# shellcheck disable=SC2086
"$COSA" map $map_old $plot -o "$tmp/old" >/dev/null 2>&1 || bad "map (earlier run) failed"
# shellcheck disable=SC2086
"$COSA" map $map_new $plot -o "$tmp/ref" >/dev/null 2>&1 || bad "map (reference run) failed"
whole_dat "$tmp/ref/rho_zoh.dat" 4 16200 || bad "reference map: rho_zoh.dat is not 16200 rows of 4"
[ -z "$plot" ] || is_png "$tmp/ref/rho_all.png" || bad "reference map: rho_all.png is not a PNG"
no_tmp "$tmp/ref"

# run_map SIG WAIT: start the map into a copy of the earlier run, send SIG after
# WAIT (a delay in seconds, or "done" = when the sweep's progress says it is
# computed, i.e. while the files are written and drawn), check what is left.
interrupted=0
run_map() {
    rm -rf "$tmp/m" "$tmp/m.err"
    cp -r "$tmp/old" "$tmp/m"
    # shellcheck disable=SC2086
    $bg_env "$COSA" map $map_new $plot --progress -o "$tmp/m" >/dev/null 2>"$tmp/m.err" &
    pid=$!
    case $2 in
    done:*)
        wait_until 1000 0.01 grep -q 'points in' "$tmp/m.err" 2>/dev/null
        sleep "${2#done:}" ;;
    *) sleep "$2" ;;
    esac
    kill -"$1" $pid 2>/dev/null
    wait $pid
    rc=$?
    if [ $rc = "$(want_rc "$1")" ]; then
        interrupted=$((interrupted + 1))
    elif [ $rc != 0 ]; then
        bad "map, SIG$1 after $2 s: exit $rc ($(cat "$tmp/m.err"))"
    fi
    check_dir "$tmp/m" "$tmp/old" "$tmp/ref" "map, SIG$1 after $2"
    ok
}
for s in $sigs; do
    for w in 0.05 0.15 0.3 done:0 done:0.01 done:0.03 done:0.06 done:0.1 done:0.2; do
        run_map "$s" "$w"
    done
done
[ $interrupted -ge 4 ] && ok || bad "only $interrupted map runs were interrupted: the test proves little"

# a new -o directory of an interrupted run is removed (all levels it created):
# the signal as soon as the directory exists (it is made before the sweep)
# shellcheck disable=SC2086
$bg_env "$COSA" map $map_new -o "$tmp/fresh/a/b" >/dev/null 2>&1 &
pid=$!
wait_until 500 0.005 [ -d "$tmp/fresh/a/b" ]
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] && [ ! -e "$tmp/fresh" ] && ok ||
    bad "SIGTERM: exit $rc, the new -o directory left: $(ls -R "$tmp/fresh" 2>&1)"

# ---- gnuplot killed while it draws: a fake gnuplot that writes half a PNG and waits ----
mkdir -p "$tmp/fake"
cat >"$tmp/fake/gnuplot" <<'EOF'
#!/bin/sh
eval "$2"
printf '\211PNG\r\n\032\n' >"$outfile"
echo $$ >>"$GP_PIDS"
exec sleep 30
EOF
chmod +x "$tmp/fake/gnuplot"
for s in $sigs; do
    rm -rf "$tmp/m" "$tmp/pids"
    cp -r "$tmp/old" "$tmp/m"
    # shellcheck disable=SC2086
    GP_PIDS="$tmp/pids" COSA_GNUPLOT="$tmp/fake/gnuplot" $bg_env "$COSA" map $map_old \
        --plot png -o "$tmp/m" >/dev/null 2>&1 &
    pid=$!
    wait_until 500 0.01 [ -s "$tmp/pids" ]
    sleep 0.05
    kill -"$s" $pid
    wait $pid
    rc=$?
    [ $rc = "$(want_rc "$s")" ] && ok || bad "map --plot, SIG$s while gnuplot draws: exit $rc"
    for p in $(cat "$tmp/pids" 2>/dev/null); do
        if kill -0 "$p" 2>/dev/null; then
            bad "SIG$s: gnuplot $p still runs"
            kill "$p"
        fi
    done
    # the data of this run are published before gnuplot reads them: equal to
    # the earlier run's (same parameters); the earlier run's pictures were
    # removed before (a directory never shows a picture of an older run next
    # to newer data, doc/pictures.md) and no new one was finished
    check_dir "$tmp/m" "$tmp/old" "$tmp/old" "map --plot, SIG$s while gnuplot draws"
    for f in rho_zoh.png rho_foh.png rho_all.png; do
        [ ! -e "$tmp/m/$f" ] || bad "SIG$s: $f of the earlier run stays next to the new data"
    done
done

# ---- simulate -o ----------------------------------------------------------------
sim_new="--model twomass --scheme zoh --dt 1e-5"
sim_old="--model twomass --scheme foh --dt 1e-3 --name twomass_zoh"
# shellcheck disable=SC2086
"$COSA" simulate $sim_old -o "$tmp/sold" >/dev/null 2>&1 || bad "simulate (earlier run) failed"
# shellcheck disable=SC2086
"$COSA" simulate $sim_new -o "$tmp/sref" >/dev/null 2>&1 || bad "simulate (reference run) failed"
whole_csv "$tmp/sref/twomass_zoh.csv" || bad "reference simulate: cut CSV"
interrupted=0
for s in $sigs; do
    for w in 0.02 0.05 0.1 0.2 0.3 0.5; do
        rm -rf "$tmp/s"
        cp -r "$tmp/sold" "$tmp/s"
        # shellcheck disable=SC2086
        $bg_env "$COSA" simulate $sim_new -o "$tmp/s" >/dev/null 2>&1 &
        interrupt "simulate, SIG$s after $w s"
        check_dir "$tmp/s" "$tmp/sold" "$tmp/sref" "simulate, SIG$s after $w s"
        ok
    done
done
[ $interrupted -ge 2 ] && ok || bad "only $interrupted simulate runs were interrupted"

# ---- convert: a large text file to binary and back -------------------------------
# shellcheck disable=SC2086
"$COSA" map $map_new --format text -o "$tmp/c" >/dev/null 2>&1 || bad "map for convert failed"
# a larger input: the header and the two blocks of rho_zoh.dat, ten times (20 blocks)
mkdir -p "$tmp/cref"
grep '^#' "$tmp/c/rho_zoh.dat" >"$tmp/c/big.dat"
grep -v '^#' "$tmp/c/rho_zoh.dat" >"$tmp/c/body"
for b in 1 2 3 4 5 6 7 8 9 10; do
    [ $b = 1 ] || printf '\n\n' >>"$tmp/c/big.dat"
    cat "$tmp/c/body" >>"$tmp/c/big.dat"
done
"$COSA" convert "$tmp/c/big.dat" "$tmp/cref/x.dat" >/dev/null 2>"$tmp/err" ||
    bad "convert (reference) failed: $(cat "$tmp/err")"
mkdir -p "$tmp/cold"
"$COSA" convert "$tmp/old/rho_zoh.dat" "$tmp/cold/x.dat" >/dev/null 2>&1 || bad "convert (earlier) failed"
"$COSA" convert "$tmp/cref/x.dat" "$tmp/cref/back.dat" >/dev/null 2>&1 &&
    cmp -s "$tmp/cref/back.dat" "$tmp/c/big.dat" || bad "convert there and back differs"
cp "$tmp/cold/x.dat" "$tmp/cold/back.dat"
interrupted=0
for s in $sigs; do
    for w in 0.005 0.01 0.02 0.04 0.08; do
        for dir in to_bin to_text; do
            rm -rf "$tmp/cv"
            cp -r "$tmp/cold" "$tmp/cv"
            if [ $dir = to_bin ]; then
                $bg_env "$COSA" convert "$tmp/c/big.dat" "$tmp/cv/x.dat" >/dev/null 2>&1 &
            else
                $bg_env "$COSA" convert "$tmp/cref/x.dat" "$tmp/cv/back.dat" >/dev/null 2>&1 &
            fi
            interrupt "convert $dir, SIG$s"
            # the earlier x.dat + x.bin pair, or the new pair: never one of each
            check_dir "$tmp/cv" "$tmp/cold" "$tmp/cref" "convert $dir, SIG$s after $w s"
            if ! { cmp -s "$tmp/cv/x.bin" "$tmp/cold/x.bin" && cmp -s "$tmp/cv/x.dat" "$tmp/cold/x.dat"; } &&
                ! { cmp -s "$tmp/cv/x.bin" "$tmp/cref/x.bin" && cmp -s "$tmp/cv/x.dat" "$tmp/cref/x.dat"; }; then
                bad "convert $dir, SIG$s after $w s: x.dat and x.bin are of different runs"
            fi
            ok
        done
    done
done
[ $interrupted -ge 2 ] && ok || bad "only $interrupted convert runs were interrupted"

# ---- a file size limit (EFBIG): one line naming the file, exit 1, nothing left ----
(
    ulimit -f 64 # 512-byte blocks: the data files do not fit
    # shellcheck disable=SC2086
    "$COSA" map $map_new -o "$tmp/fbig/new" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
)
[ "$(cat "$tmp/rc")" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "^cosa: map: cannot write '$tmp/fbig/new/rho_zoh.dat': File too large$" "$tmp/err" &&
    [ ! -e "$tmp/fbig" ] && ok ||
    bad "file size limit: exit $(cat "$tmp/rc"), $(cat "$tmp/err"), left: $(ls -R "$tmp/fbig" 2>&1)"

# ---- a full disk (ENOSPC): a small tmpfs, when we may mount one ----------------------
mkdir -p "$tmp/full" "$tmp/ro"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=256k tmpfs "$tmp/full" 2>/dev/null; then
    mounted="$tmp/full"
    # an earlier small run in the directory, then a run whose data do not fit
    # shellcheck disable=SC2086
    "$COSA" map $map_old -o "$tmp/full/d" >/dev/null 2>&1 || bad "map into tmpfs failed"
    cp -r "$tmp/full/d" "$tmp/fullcopy"
    for target in d new/sub; do
        # shellcheck disable=SC2086
        "$COSA" map $map_new -o "$tmp/full/$target" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
            grep -q "^cosa: map: cannot write '$tmp/full/$target/rho_[a-z]*.dat': No space left on device$" "$tmp/err" &&
            ok || bad "full disk ($target): exit $rc, stderr: $(cat "$tmp/err")"
        no_tmp "$tmp/full"
    done
    [ ! -e "$tmp/full/new" ] && ok || bad "full disk: the new -o directory was left"
    for f in $(ls -A "$tmp/fullcopy"); do
        cmp -s "$tmp/full/d/$f" "$tmp/fullcopy/$f" || bad "full disk: the earlier $f changed"
    done
    # shellcheck disable=SC2086
    "$COSA" simulate $sim_new -o "$tmp/full/s" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: simulate: cannot write '$tmp/full/s/twomass_zoh.csv': No space left on device$" "$tmp/err" &&
        [ ! -e "$tmp/full/s" ] && ok || bad "full disk (simulate): exit $rc, stderr: $(cat "$tmp/err")"
    no_tmp "$tmp/full"
    # a read-only file system: -o refused before the computation
    if mount -t tmpfs -o ro,size=64k tmpfs "$tmp/ro" 2>/dev/null; then
        mounted="$mounted $tmp/ro"
        for target in "$tmp/ro" "$tmp/ro/new"; do
            # shellcheck disable=SC2086
            "$COSA" map $map_new -o "$target" >"$tmp/out" 2>"$tmp/err"
            rc=$?
            [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
                grep -q "Read-only file system" "$tmp/err" && ok ||
                bad "read-only -o $target: exit $rc, $(cat "$tmp/err") $(cat "$tmp/out")"
        done
    else
        echo "skip: read-only -o (cannot mount a read-only tmpfs)"
    fi
else
    echo "skip: full disk and read-only -o (needs root and 'mount -t tmpfs')"
fi

# ---- -o probed before any computation: a path under a regular file ----------------
: >"$tmp/plainfile"
for target in "$tmp/plainfile/sub" "$tmp/plainfile/a/b"; do
    # shellcheck disable=SC2086
    "$COSA" map $map_new -o "$target" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^cosa: map: cannot create output directory '$target': Not a directory$" "$tmp/err" &&
        ok || bad "-o $target: exit $rc, $(cat "$tmp/err") $(cat "$tmp/out")"
done
# shellcheck disable=SC2086
"$COSA" simulate $sim_new -o "$tmp/plainfile/sub" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && ok ||
    bad "simulate -o under a file: exit $rc, $(cat "$tmp/err") $(cat "$tmp/out")"

# ---- an fsync that fails when the files are published --------------------------
# The data reach the disk at the end (outfile.h): every staged file is
# fsync()ed before any is renamed.  A shim (compiled here, skipped without a C
# compiler) fails fsync with EIO for rho_foh.dat's temporary: one line naming
# that file, exit 1, none of the new files in place (rho_zoh.dat, fsync()ed
# before it, included), the earlier run's files unchanged, no temporaries.
cat >"$tmp/eio.c" <<'EOF_C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int fsync(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, path, sizeof path - 1);
    if (n > 0 && (path[n] = '\0', strstr(path, ".rho_foh.dat.tmp-"))) {
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_fsync, fd);
}
EOF_C
if ${CC:-cc} -shared -fPIC -o "$tmp/eio.so" "$tmp/eio.c" 2>/dev/null; then
    mkdir -p "$tmp/eio"
    # shellcheck disable=SC2086
    "$COSA" map $map_old -o "$tmp/eio/d" >/dev/null 2>&1 || bad "map before the EIO case failed"
    cp -r "$tmp/eio/d" "$tmp/eiocopy"
    # shellcheck disable=SC2086
    LD_PRELOAD="$tmp/eio.so" "$COSA" map $map_new -o "$tmp/eio/d" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q "^cosa: map: cannot write '$tmp/eio/d/rho_foh.dat': Input/output error$" "$tmp/err" &&
        ok || bad "fsync EIO: exit $rc, stderr: $(cat "$tmp/err")"
    for f in $(ls -A "$tmp/eiocopy"); do
        cmp -s "$tmp/eio/d/$f" "$tmp/eiocopy/$f" || bad "fsync EIO: the earlier $f changed"
    done
    [ "$(ls -A "$tmp/eio/d" | wc -l)" = "$(ls -A "$tmp/eiocopy" | wc -l)" ] && ok ||
        bad "fsync EIO: files added: $(ls -A "$tmp/eio/d")"
    no_tmp "$tmp/eio"
else
    echo "skip: fsync failure (no C compiler for the shim)"
fi

# ---- the writing loop of map with far more threads than files --------------------
# shellcheck disable=SC2086
"$COSA" map $map_old --threads 100000 -o "$tmp/many" >/dev/null 2>"$tmp/err"
rc=$?
{ [ $rc = 0 ] || { [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ]; }; } && ok ||
    bad "map --threads 100000: exit $rc, $(cat "$tmp/err")"
if [ $rc = 0 ]; then
    for f in rho_zoh.dat rho_foh.dat; do
        cmp -s "$tmp/many/$f" "$tmp/old/$f" || bad "map --threads 100000: $f differs"
    done
fi

harness_done test_atomic.sh
