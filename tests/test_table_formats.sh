#!/bin/sh
# test_table_formats.sh -- `cosa table` in its two forms, both written by the table
# writer (analysis/table_writer.c: markdown and CSV styles): every markdown cell is the
# CSV's full-precision number in the digits the markdown form shows (formatted here by
# awk's printf, a route of its own), markers included ('*' not monotone, '<' not reached
# at --dt-min, '>=' never lost), the markdown table is well formed (a separator of as
# many columns as the header), and --assume is a CSV column and a markdown caption.
. "$(dirname "$0")/harness.sh"

pairs=2e5:5e2,1e9:3.6e5
for t in 1 2; do
    "$COSA" table --paper mbcorr --table $t --pairs $pairs --dt-min 1e-7 --format csv >"$tmp/c$t" 2>"$tmp/err" &&
        "$COSA" table --paper mbcorr --table $t --pairs $pairs --dt-min 1e-7 >"$tmp/m$t" 2>>"$tmp/err" &&
        ok || bad "table $t: $(cat "$tmp/err")"
    # the markdown cells from the CSV rows: scheme -> cell per pair, in pair order
    awk -F, 'NR > 1 {
            if ($7 == "no") c = sprintf("<%.3g", $4)
            else if ($6 == "yes") c = sprintf(">=%.3g", $4)
            else c = sprintf("%.4g", $4)
            if ($5 == "no") c = c "*"
            row[$1] = row[$1] " " c " |"
            if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
        }
        END { for (i = 1; i <= n; i++) print "| " order[i] " |" row[order[i]] }' "$tmp/c$t" >"$tmp/want$t"
    grep '^| [A-Z]' "$tmp/m$t" >"$tmp/got$t"
    [ -s "$tmp/got$t" ] && cmp -s "$tmp/want$t" "$tmp/got$t" && ok ||
        bad "table $t: markdown cells are not the CSV's numbers: $(diff "$tmp/want$t" "$tmp/got$t" | head -4)"
    [ "$(sed -n 1p "$tmp/m$t")" = "| scheme | c_k=200000, d_k=500 | c_k=1e+09, d_k=360000 |" ] &&
        [ "$(sed -n 2p "$tmp/m$t")" = "|---|---|---|" ] && ok ||
        bad "table $t: markdown header: $(sed -n 1,2p "$tmp/m$t")"
done
grep -q '^Largest stable macro step in s, scanning upward from 1e-07 to 0.01\.$' "$tmp/m1" &&
    grep -q '^Largest accurate macro step in s, scanning upward from 1e-07 to 0.01 (e_global <= 0.01, horizon 0.3 s)\.$' "$tmp/m2" &&
    ok || bad "table 1/2 captions: $(tail -3 "$tmp/m1" "$tmp/m2")"

# --assume: a column 'assume' in CSV (every row), a caption in markdown
"$COSA" table --paper mbcorr --table 1 --pairs 2e5:5e2 --assume ck=3e5 --format csv >"$tmp/ac" &&
    "$COSA" table --paper mbcorr --table 1 --pairs 2e5:5e2 --assume ck=3e5 >"$tmp/am" && ok ||
    bad "table 1 --assume failed"
head -1 "$tmp/ac" | grep -q ',assume$' && [ "$(grep -c ',ck=300000$' "$tmp/ac")" = 6 ] && ok ||
    bad "table 1 --assume: csv column: $(cat "$tmp/ac")"
grep -q '^Imperfect model knowledge (README): .* the true parameters with ck = 300000; ' "$tmp/am" && ok ||
    bad "table 1 --assume: markdown caption: $(tail -2 "$tmp/am")"

# the energy paper's mu table: eqs 20-21 with %.4g, the measured and modal mu with %.4f;
# R as a fraction in markdown, a number in CSV
"$COSA" table --paper energy --table mu --format csv >"$tmp/ec" &&
    "$COSA" table --paper energy --table mu >"$tmp/em" && ok || bad "table --paper energy failed"
awk -F, 'NR > 1 {
        r = $1 + 0 < 1 ? "1/" sprintf("%.0f", 1 / $1) : $1
        printf "| %s | %s | %.4g | %.4f | %.4f | %.4f |\n", r, $2, $3, $4, $5, $6 }' "$tmp/ec" >"$tmp/ewant"
grep '^| [0-9]' "$tmp/em" >"$tmp/egot"
[ "$(wc -l <"$tmp/egot")" = 24 ] && cmp -s "$tmp/ewant" "$tmp/egot" && ok ||
    bad "mu table: markdown cells are not the CSV's numbers: $(diff "$tmp/ewant" "$tmp/egot" | head -4)"
[ "$(sed -n 2p "$tmp/em")" = "|---|---|---|---|---|---|" ] && [ "$(head -1 "$tmp/ec" | tr ',' '\n' | wc -l)" = 7 ] &&
    ok || bad "mu table: header/separator"

harness_done test_table_formats.sh
