#!/bin/sh
# paper.sh COSA OUTDIR -- `make paper`: regenerate the figures and tables of
# the MBCorr paper (sections 4.1-4.3) into OUTDIR as data, gnuplot scripts and
# PNG pictures, and say how long each step took.
#   Fig 4  stability maps  rho = 1,      ZOH/FOH/SOH +- MBCorr, 256 x 256 x 8 dT
#   Fig 6  accuracy maps   e_global = 0.01, the same grid
#          (both adaptive: only cells near the contour evaluated; FULL=1: all)
#   Fig 5  rho vs dT, FOH at ck = 1e9, dk = 3.6e5
#   Fig 7  e_global vs ck, SOH+MBCorr at dk = 40, dT = 10^-3.5
#   Fig 8  e_local vs dT, p = 0..4 +- MBCorr at ck = 2e5, dk = 5e2
#   Fig 9  s1 of the nonlinear two-mass oscillator (section 5), ZOH +- MBCorr
#   Tables 1-4
#   robustness of MBCorr to a wrong c_k: rho and e_global over (assumed c_k, dT)
#   cosa advise at tol 1e-2 and 1e-3 for the (c_k, d_k) pairs of Table 1 (issue 16)
#   the defect paper's Figs 4-10 (cosa defect --paper, into OUTDIR/defect; make paper-defect)
#   the energy paper's figures (tools/paper-energy.sh, into OUTDIR/energy; make paper-energy)
#   the variable-order paper's examples (tools/paper-varorder.sh, into OUTDIR/varorder;
#   make paper-varorder)
#   the section "Iterative coupling" (tools/paper-iter.sh, into OUTDIR/iter; make paper-iter)
#   black boxes: predictions that hold (tools/paper-blackbox.sh, into OUTDIR/blackbox;
#   make paper-blackbox)
set -e
cosa=${1:?usage: paper.sh COSA OUTDIR}
out=${2:?usage: paper.sh COSA OUTDIR}
mkdir -p "$out/logs"
# the section times also go into logs/times.txt (make bench prints them)
times="$out/logs/times.txt"
rm -f "$times".*
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%6.1f", b - a }'; }
# CPU seconds (user + sys) of the children ended so far into $cpu: the
# shell's `times` (second line, "XmY.YYYs XmY.YYYs"), called in this shell
# (a function, not a $(...) subshell, which has no children yet).  On a
# shared machine the wall times mean little; the CPU times are what a
# section costs.
part=main # the part of make paper this shell runs (its own files below)
cpu_now() {
    times >"$out/logs/.times.$part"
    cpu=$(awk 'NR == 2 { c = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); c += a[1] * 60 + a[2] }
                         printf "%.2f", c }' "$out/logs/.times.$part")
}
t0=$(now)
cpu_now
c0=$cpu
step() {
    name=$1
    shift
    ts=$(now)
    cpu_now
    cs=$cpu
    log=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_' | tr -s '_')
    "$@" >"$out/logs/$log.log"
    report "$name" "$(since "$ts")" "$cs"
}
# NAME WALL CPU0: "NAME  WALL s  (cpu C s)", C the CPU seconds since CPU0
report() {
    cpu_now
    printf '%-28s %s s  (cpu %s s)\n' "$1" "$2" \
        "$(awk -v a="$3" -v b="$cpu" 'BEGIN { printf "%6.1f", b - a }')" | tee -a "$times.$part"
}

ranges="--x ck=1:1e10:log:256 --y dk=1:1e7:log:256"
dts=10^-2.5,10^-3,10^-3.5,10^-4,10^-4.5,10^-5,10^-5.5,10^-6
six=zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr
progress=
[ -t 2 ] && progress=--progress
# Figs 4 and 6 draw contours only: adaptive maps give the same contours
# (README "Adaptive maps"); FULL=1 (make paper FULL=1) evaluates every point
adaptive=--adaptive
[ "${FULL:-0}" = 1 ] && adaptive=

echo "make paper: figures and tables of the MBCorr paper into $out/"
# Three parts: A, the MBCorr paper (Figs 4-9, tables, robustness, advise) and
# the defect paper; B, the energy paper, iterative coupling and the black
# boxes; C, the variable-order paper.  A and B run side by side, each as two
# lanes (A1: Figs 4-9; A2: tables, robustness, advise, the defect paper; B1:
# advise at tol 1e-3 and the energy paper; B2: iterative coupling and the
# black boxes), so that both cores stay busy to their end: their processes
# are independent, their lines interleave, logs/times.txt lists A's then B's.
# C runs after them, alone, because its tables report each run's wall clock
# next to PAPER_JOBS - 1 other runs (tools/paper-varorder.sh).  PAPER_JOBS=1
# runs the lanes one after the other.
jobs=${PAPER_JOBS:-2}
advise_tol() { # TOL: advise at the (c_k, d_k) pairs of Table 1 into advise_tolTOL.md
    tol=$1
    ts=$(now) && cpu_now && cs=$cpu
    f="$out/advise_tol$tol.md"
    {
        echo "# cosa advise --tol $tol for the (c_k, d_k) pairs of Table 1 (two-mass oscillator)"
        echo
        for p in 1e3:1e1 1e5:1e2 2e5:5e2 1e7:1e3 1e9:3.6e5 1e10:1e7; do
            echo "## c_k = ${p%:*}, d_k = ${p#*:}"
            echo
            "$cosa" advise --tol "$tol" --set ck="${p%:*}" --set dk="${p#*:}" |
                awk '/^\|/ { print; next } /^(note|recommend)/ { print ""; print "    " $0 }'
            echo
        done
    } >"$f"
    report "advise (tol $tol)" "$(since "$ts")" "$cs"
}
part_a1() {
# shellcheck disable=SC2086
step "fig4 (stability maps)" "$cosa" map $ranges --dt "$dts" --scheme "$six" --metric rho \
    --name fig4 -o "$out" --plot png --format bin $progress $adaptive
# shellcheck disable=SC2086
step "fig6 (accuracy maps)" "$cosa" map $ranges --dt "$dts" --scheme "$six" --metric e_global \
    --level 0.01 --name fig6 -o "$out" --plot png --format bin $progress $adaptive
step "fig5 (rho vs dT)" "$cosa" curve --set ck=1e9 --set dk=3.6e5 --x dt=1e-6:10^-2.5:log:500 \
    --scheme foh --metric rho --name fig5 -o "$out" --plot png
step "fig7 (e_g vs ck)" "$cosa" curve --set dk=40 --dt 10^-3.5 --x ck=1:1e10:log:500 \
    --scheme soh+mbcorr --metric e_global --level 0.01 --name fig7 -o "$out" --plot png
step "fig8 (e_l vs dT)" "$cosa" curve --x dt=1e-6:3e-3:log:120 \
    --scheme p0,p0+mbcorr,p1,p1+mbcorr,p2,p2+mbcorr,p3,p3+mbcorr,p4,p4+mbcorr \
    --metric e_local --level 1e-3 --name fig8 -o "$out" --plot png
# Fig 9 (section 5): s1 of twomass-nl, co-simulation vs reference, ZOH +- MBCorr
for nd in 1 1.5 2; do
    for s in zoh zoh+mbcorr; do
        step "fig9 (n_d = $nd, $s)" "$cosa" simulate --model twomass-nl --set nd=$nd \
            --scheme $s --dt 1e-3 --name "fig9_nd${nd}_$(echo $s | tr + _)" -o "$out" --plot png
    done
done
}
part_a2() {
for t in 1 2 3 4; do
    ts=$(now) && cpu_now && cs=$cpu
    "$cosa" table --paper mbcorr --table $t >"$out/table$t.md"
    report "table $t" "$(since "$ts")" "$cs"
done
# robustness of MBCorr to a wrong model (issue 16): rho and e_global over the
# assumed c_k (0.25 .. 4 x the true 2e5) and dT, c_k = 2e5, d_k = 5e2
rob="--set ck=2e5 --set dk=5e2 --x assume.ck=5e4:8e5:log:64 --y dt=1e-5:1e-2:log:64"
rob="$rob --scheme zoh+mbcorr,foh+mbcorr,soh+mbcorr"
# shellcheck disable=SC2086
step "robustness (rho)" "$cosa" map $rob --metric rho --name robust_rho -o "$out" --plot png
# shellcheck disable=SC2086
step "robustness (e_global)" "$cosa" map $rob --metric e_global --level 0.01 --name robust_eg \
    -o "$out" --plot png
ts=$(now) && cpu_now && cs=$cpu
"$cosa" advise --tol 1e-2 --set ck=2e5 --set dk=5e2 --robust ck=0.25:4 \
    --schemes zoh,zoh+mbcorr,foh,foh+mbcorr,soh,soh+mbcorr >"$out/advise_robust.md"
report "robustness (advise)" "$(since "$ts")" "$cs"
# cosa advise for the (c_k, d_k) pairs of Table 1, at two tolerances
advise_tol 1e-2
# the defect paper (issue 12): Figs 4-10 for euler and exact units into $out/defect
step "defect paper (Figs 4-10)" "$cosa" defect --paper -o "$out/defect" --plot png
}
part_b1() {
advise_tol 1e-3
# the energy paper (issue 10): its figures into $out/energy (make paper-energy)
step "energy paper" sh "$(dirname "$0")/paper-energy.sh" "$cosa" "$out/energy"
}
part_b2() {
# iterative coupling (issue 26): rho_iter maps, explicit p = 0..4, sweeps, orders
step "iterative coupling" sh "$(dirname "$0")/paper-iter.sh" "$cosa" "$out/iter"
# black boxes (issue 31): the predicted limit against the FMUs' own runs (make paper-blackbox;
# the test FMUs from the build tree, next to the cosa binary's directory)
step "black boxes" sh "$(dirname "$0")/paper-blackbox.sh" "$cosa" "$(dirname "$cosa")/../tests/fmu" \
    "$out/blackbox"
}
run_part() { # NAME: run part_NAME, its status into logs/.rc.NAME
    part=$1
    set +e
    (
        set -e
        "part_$1"
    )
    echo "$?" >"$out/logs/.rc.$1"
    set -e
}
case $jobs in
'' | *[!0-9]* | 0)
    echo "paper.sh: PAPER_JOBS must be a positive integer, not '$jobs'" >&2
    exit 2
    ;;
1) run_part a1 && run_part a2 && run_part b1 && run_part b2 ;;
*)
    run_part a1 &
    run_part a2 &
    run_part b1 &
    run_part b2 &
    wait
    ;;
esac
part=main
for p in a1 a2 b1 b2; do
    cat "$times.$p" >>"$times.main" 2>/dev/null || true
    if [ "$(cat "$out/logs/.rc.$p")" != 0 ]; then
        echo "paper.sh: part $p failed (exit $(cat "$out/logs/.rc.$p")); see $out/logs/" >&2
        exit 1
    fi
done
# the variable-order paper (issue 11): its examples into $out/varorder (make paper-varorder)
step "variable-order paper" sh "$(dirname "$0")/paper-varorder.sh" "$cosa" "$out/varorder"
report "make paper total" "$(since "$t0")" "$c0"
mv "$times.main" "$times"
rm -f "$out/logs/.times".* "$out/logs/.rc".*
echo "pictures: $out/fig4_all.png (Fig 4), $out/fig6_all.png (Fig 6), $out/fig5.png," \
    "$out/fig7.png, $out/fig8.png, $out/fig9_*.png; tables: $out/table1.md .. table4.md," \
    "$out/advise_tol1e-2.md, $out/advise_tol1e-3.md; robustness: $out/robust_rho_all.png," \
    "$out/robust_eg_all.png, $out/advise_robust.md; defect paper: $out/defect/fig4a_*.png .." \
    "$out/defect/fig10_*.png; energy paper: $out/energy/summary.md, $out/energy/fig*.png;" \
    "variable-order paper: $out/varorder/summary.md, $out/varorder/ex*.png;" \
    "iterative coupling: $out/iter/summary.md, $out/iter/*.png;" \
    "black boxes: $out/blackbox/summary.md, $out/blackbox/blackbox.png"
