#!/bin/sh
# tools/count-prototypes.sh -- count the function prototypes of C headers.
#
# Usage: tools/count-prototypes.sh [-l] HEADER...
# Prints "COUNT LINES HEADER" per header and "COUNT LINES total"; with -l, it
# prints the name of every prototype instead ("HEADER NAME").
# A prototype is a declaration at file scope (outside braces) that ends in ';',
# is not a typedef and has a parameter list: comments, preprocessor lines and
# the C++ guard (extern "C" { ... }) are skipped; struct, union and enum bodies
# are skipped with their braces, so their function-pointer members do not count.
list=0
if [ "$1" = "-l" ]; then list=1; shift; fi
[ $# -ge 1 ] || { echo "usage: count-prototypes.sh [-l] HEADER..." >&2; exit 2; }
for h in "$@"; do
    [ -r "$h" ] || { echo "count-prototypes.sh: cannot read $h" >&2; exit 2; }
done
awk -v list="$list" '
function flush_file(   n) {
    if (FNR_file == "") return
    if (!list) printf "%d %d %s\n", cnt, lines, FNR_file
    total += cnt; tlines += lines
}
function stmt_end(s,   name) {
    gsub(/[ \t\n]+/, " ", s); sub(/^ /, "", s)
    if (s ~ /^typedef[ ]/ || s !~ /\(/) return
    # the name: the identifier right before the first "(" that is not "(*"
    name = s; sub(/[ ]*\(.*/, "", name); sub(/.*[ *]/, "", name)
    if (name == "" || name == "__attribute__") return
    cnt++
    if (list) printf "%s %s\n", FNR_file, name
}
FNR == 1 { flush_file(); FNR_file = FILENAME; cnt = 0; lines = 0; depth = 0; cmt = 0; stmt = ""; cxx = 0 }
{
    lines++
    line = $0
    # comments (block comments may span lines)
    out = ""
    while (line != "") {
        if (cmt) {
            i = index(line, "*/"); if (!i) { line = ""; break }
            line = substr(line, i + 2); cmt = 0; continue
        }
        i = index(line, "/*"); j = index(line, "//")
        if (j && (!i || j < i)) { out = out substr(line, 1, j - 1); line = ""; break }
        if (!i) { out = out line; line = ""; break }
        out = out substr(line, 1, i - 1) " "; line = substr(line, i + 2); cmt = 1
    }
    line = out
    if (line ~ /^[ \t]*#[ \t]*if(def)?[ \t]+(defined[ \t]*\(?)?__cplusplus/) { cxx = 1; next }
    if (cxx) { if (line ~ /^[ \t]*#[ \t]*endif/) cxx = 0; next }
    if (line ~ /^[ \t]*#/) next
    n = length(line)
    for (k = 1; k <= n; k++) {
        c = substr(line, k, 1)
        if (c == "{") { depth++; continue }
        if (c == "}") { depth--; continue }
        if (depth > 0) continue
        if (c == ";") { stmt_end(stmt); stmt = ""; continue }
        stmt = stmt c
    }
    stmt = stmt "\n"
}
END {
    flush_file()
    if (!list) printf "%d %d total\n", total, tlines
}' "$@"
