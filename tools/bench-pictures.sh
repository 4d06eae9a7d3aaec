#!/bin/sh
# bench-pictures.sh COSA [DIR] -- part of `make bench` (a benchmark, not a
# test): the Fig 4 set (6 schemes x 8 dT x 256^2, adaptive, binary files,
# 2 threads) as whole processes, without and with pictures, split into
# computing (the `seconds` cosa prints), writing the data (the rest of the
# run without pictures) and drawing (the difference the pictures make), as
# seconds and as ratios, in wall time and in CPU time (user + sys of the
# process and its gnuplot children: what counts on a shared machine); then
# the same set on the full grid (BENCH_FULL=0 skips it: about 16 s on 2
# cores) and the adaptive process's speed-up over it, whole process against
# whole process; then the section times of the last `make paper`
# (out/paper/logs/times.txt) if there is one.  Each timed run writes into a
# directory removed just before, after a sync; the adaptive set without
# pictures runs BENCH_RUNS times (default 3) and its medians are reported.
cosa=${1:?usage: bench-pictures.sh COSA [DIR]}
dir=${2:-out/bench}
mkdir -p "$dir"
set -- map --adaptive --x ck=1:1e10:log:256 --y dk=1:1e7:log:256 \
    --dt 10^-2.5,10^-3,10^-3.5,10^-4,10^-4.5,10^-5,10^-5.5,10^-6 \
    --scheme zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr --metric rho --name fig4 \
    --format bin --threads 2
now() { date +%s.%N; }
# fresh DIR/NAME for a timed run: the files of the bench before removed and
# everything on disk (sync), so that no run pays for the writeback of the
# one before it (120 MB per run) or finds old files in its way
fresh() {
    rm -rf "${dir:?}/$1"
    sync
}
# CPU seconds (user + sys) of the children ended so far into $cpu (the
# shell's `times`, called in this shell; tools/paper.sh does the same)
cpu_now() {
    times >"$dir/.times"
    cpu=$(awk 'NR == 2 { c = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); c += a[1] * 60 + a[2] }
                         printf "%.3f", c }' "$dir/.times")
}
# the run without pictures three times (its wall time spreads by about 10 %
# on a shared virtual machine): the median of each number
runs=${BENCH_RUNS:-3}
: >"$dir/nopic.runs"
k=0
while [ "$k" -lt "$runs" ]; do
    fresh nopic
    cpu_now
    c0=$cpu t0=$(now)
    "$cosa" "$@" -o "$dir/nopic" >"$dir/nopic.txt" || exit 1
    cpu_now
    c1=$cpu t1=$(now)
    awk -v a="$t0" -v b="$t1" -v ca="$c0" -v cb="$c1" '$1 == "seconds" {
        printf "%.4f %.4f %s\n", b - a, cb - ca, $2 }' "$dir/nopic.txt" >>"$dir/nopic.runs"
    k=$((k + 1))
done
# median WALL CPU SECONDS of the runs (each column on its own)
med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
nopic=$(cut -d' ' -f1 "$dir/nopic.runs" | med)
cnopic=$(cut -d' ' -f2 "$dir/nopic.runs" | med)
comp=$(cut -d' ' -f3 "$dir/nopic.runs" | med)
fresh pic
cpu_now
c1s=$cpu t1s=$(now)
"$cosa" "$@" -o "$dir/pic" --plot png >"$dir/pic.txt" || exit 1
cpu_now
c2=$cpu t2=$(now)
awk -v nopic="$nopic" -v cnopic="$cnopic" -v comp="$comp" -v bs="$t1s" -v c="$t2" \
    -v cbs="$c1s" -v cc="$c2" -v runs="$runs" '
BEGIN {
    pic = c - bs; write = nopic - comp; draw = pic - nopic
    printf "# Fig 4 set, adaptive, --format bin, 2 threads, whole processes (wall seconds;\n"
    printf "# without pictures: the median of %d runs)\n", runs
    printf "fig4 compute %.2f write %.2f draw %.2f\n", comp, write, draw
    printf "fig4 without_pictures %.2f with_pictures %.2f ratio %.2f\n", nopic, pic, pic / nopic
    printf "fig4 write/compute %.2f draw/compute %.2f\n", write / comp, draw / comp
    cpic = cc - cbs
    print "# the same processes in CPU seconds (user + sys, gnuplot included)"
    printf "fig4 cpu without_pictures %.2f with_pictures %.2f draw %.2f ratio %.2f\n",
        cnopic, cpic, cpic - cnopic, cpic / cnopic
}'
if [ "${BENCH_FULL:-1}" != 0 ]; then
    # the same command without --adaptive (the full grid), no pictures
    shift 2 # map --adaptive
    set -- map "$@"
    fresh full
    cpu_now
    c3=$cpu t3=$(now)
    "$cosa" "$@" -o "$dir/full" >"$dir/full.txt" || exit 1
    cpu_now
    c4=$cpu t4=$(now)
    awk -v nopic="$nopic" -v cnopic="$cnopic" -v f="$t3" -v g="$t4" -v cf="$c3" -v cg="$c4" '
    BEGIN {
        print "# the full grid (no --adaptive, one run) against the adaptive set (the median),"
        print "# both without pictures"
        printf "fig4 full wall %.2f cpu %.2f adaptive wall %.2f cpu %.2f speedup wall %.1f cpu %.1f\n",
            g - f, cg - cf, nopic, cnopic, (g - f) / nopic, (cg - cf) / cnopic
    }'
fi
rm -f "$dir/.times" "$dir/nopic.runs"
if [ -s out/paper/logs/times.txt ]; then
    echo "# make paper, its last run (out/paper/logs/times.txt): seconds per section"
    cat out/paper/logs/times.txt
fi
