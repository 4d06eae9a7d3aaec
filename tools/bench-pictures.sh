#!/bin/sh
# bench-pictures.sh COSA [DIR] -- part of `make bench` (a benchmark, not a
# test): the Fig 4 set (6 schemes x 8 dT x 256^2, adaptive, binary files,
# 2 threads) as whole processes, without and with pictures, split into
# computing (the `seconds` cosa prints), writing the data (the rest of the
# run without pictures) and drawing (the difference the pictures make), as
# seconds and as ratios; then the section times of the last `make paper`
# (out/paper/logs/times.txt) if there is one.
cosa=${1:?usage: bench-pictures.sh COSA [DIR]}
dir=${2:-out/bench}
mkdir -p "$dir"
set -- map --x ck=1:1e10:log:256 --y dk=1:1e7:log:256 \
    --dt 10^-2.5,10^-3,10^-3.5,10^-4,10^-4.5,10^-5,10^-5.5,10^-6 \
    --scheme zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr --metric rho --name fig4 \
    --adaptive --format bin --threads 2
now() { date +%s.%N; }
t0=$(now)
"$cosa" "$@" -o "$dir/nopic" >"$dir/nopic.txt" || exit 1
t1=$(now)
"$cosa" "$@" -o "$dir/pic" --plot png >"$dir/pic.txt" || exit 1
t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v comp="$(awk '$1 == "seconds" { print $2 }' "$dir/nopic.txt")" '
BEGIN {
    nopic = b - a; pic = c - b; write = nopic - comp; draw = pic - nopic
    print "# Fig 4 set, adaptive, --format bin, 2 threads, whole processes (wall seconds)"
    printf "fig4 compute %.2f write %.2f draw %.2f\n", comp, write, draw
    printf "fig4 without_pictures %.2f with_pictures %.2f ratio %.2f\n", nopic, pic, pic / nopic
    printf "fig4 write/compute %.2f draw/compute %.2f\n", write / comp, draw / comp
}'
if [ -s out/paper/logs/times.txt ]; then
    echo "# make paper, its last run (out/paper/logs/times.txt): seconds per section"
    cat out/paper/logs/times.txt
fi
