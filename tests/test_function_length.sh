#!/bin/sh
# test_function_length.sh -- no function in lib/, models/ or analysis/ is
# longer than 150 lines (README "Architecture"; issue 23 item 8).
#
# A function's length is counted from the first line of its signature to its
# closing brace, both included.  A definition is a "{" at column 0 (or a line
# at column 0 ending in ") {"); its signature is the block of lines just
# above it, back to a blank line, a comment, a preprocessor line or a line
# ending in ";" or "}", so return types on their own line and parameter lists
# over several lines count.  The body ends where the brace depth, counted
# outside comments, strings and character constants, returns to 0.
#
# Prints one FAIL line per function over the limit ("FILE: NAME: N lines
# (limit 150)"), one per stale allow-list entry, and "function length: N
# passed, M failed" (functions checked; tests/harness.sh's counters).
# COSA_FUNCLEN_LIMIT overrides the limit (a test of the check itself).
src=${COSA_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
. "$src/tests/harness.sh"
limit=${COSA_FUNCLEN_LIMIT:-150}

# Allow-list, FILE:FUNCTION, for a function that must stay long for a while
# (empty now: every function is within the limit).  An entry fails the check
# as soon as its function is no longer over the limit (or is gone), so the
# list cannot outlive its reason.
allow=''

files=$(ls lib/*/*.[ch] lib/*.h models/*.[ch] analysis/*.[ch] 2>/dev/null)
[ -n "$files" ] || { echo "function length: no sources under $src"; exit 2; }

# measure FILE...: one line per function, FILE NAME LENGTH
measure() {
    awk '
# code of a line without comments, strings and character constants
function strip(s,    out, i, c, n) {
    out = ""
    n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (incomment) {
            if (c == "*" && substr(s, i + 1, 1) == "/") { incomment = 0; i++ }
            continue
        }
        if (quote != "") {
            if (c == "\\") { i++; continue }
            if (c == quote) quote = ""
            continue
        }
        if (c == "/" && substr(s, i + 1, 1) == "*") { incomment = 1; i++; continue }
        if (c == "/" && substr(s, i + 1, 1) == "/") break
        if (c == "\"" || c == "'"'"'") { quote = c; continue }
        out = out c
    }
    return out
}
function count(s, ch,    t) { t = s; return gsub(ch, "", t) }
FNR == 1 { nsig = 0; depth = 0; incomment = 0; quote = "" }
{
    raw = $0
    wascomment = incomment
    code = strip(raw)
    if (depth == 0) {
        opens = (raw ~ /^\{/) || (raw ~ /^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && !wascomment)
        if (opens) {
            if (raw ~ /^\{/) first = FNR - nsig; else { first = FNR; sig[1] = raw; nsig = 1 }
            text = ""
            for (k = 1; k <= nsig; k++) text = text " " sig[k]
            name = text
            sub(/\(.*/, "", name)
            sub(/.*[^A-Za-z0-9_]/, "", name)
            depth = count(code, "{") - count(code, "}")
            if (name == "" || text !~ /\(/) name = ""
            nsig = 0
            next
        }
        # the signature block above a definition
        if (wascomment || raw ~ /^[ \t]*$/ || raw ~ /^#/ || raw ~ /^[ \t]*\/[*\/]/ || raw ~ /^[ \t]*\*/ \
            || raw ~ /[;}][ \t]*$/ || raw ~ /\*\/[ \t]*$/ || incomment)
            nsig = 0
        else
            sig[++nsig] = raw
        next
    }
    depth += count(code, "{") - count(code, "}")
    if (depth == 0 && name != "")
        print FILENAME, name, FNR - first + 1
}' "$@"
}

# The scanner on a file of known lengths first (so a broken scanner cannot
# pass everything): a signature over three lines (return type on its own
# line), braces in comments, strings and character constants, a "{" at the
# end of the signature line, and a struct initialiser that is no function.
{
    printf 'static const int table[] = {\n    1,\n};\n\n'
    printf '/* a comment } { */\nstatic int\nthree_lines(int a,\n            int b)\n{\n'
    i=0
    while [ $i -lt 145 ]; do echo "    a += b; /* } */"; i=$((i + 1)); done
    printf '    return a + (int)'"'"'}'"'"' + (int)sizeof "{";\n}\n\n'
    printf 'int same_line(void) {\n    return 0;\n}\n'
} >"$tmp/known.c"
want="$tmp/known.c three_lines 151
$tmp/known.c same_line 3"
got=$(measure "$tmp/known.c")
if [ "$got" != "$want" ]; then
    bad "function length: the scanner measured the test file wrongly: '$got', expected '$want'"
    harness_done "function length"
    exit 1
fi

lengths=$(measure $files)

allowed_long=""
while read -r f name n; do
    [ -n "$f" ] || continue
    listed=0
    case $allow in *"
$f:$name
"*) listed=1 ;; esac
    if [ "$n" -gt "$limit" ]; then
        if [ $listed = 1 ]; then
            allowed_long="$allowed_long $f:$name"
            ok
        else
            bad "$f: $name: $n lines (limit $limit)"
        fi
    else
        ok
    fi
done <<EOF
$lengths
EOF
for entry in $allow; do
    case " $allowed_long " in
    *" $entry "*) ;;
    *)
        bad "$entry: on the allow-list but not over $limit lines (or gone): remove it from $0"
        ;;
    esac
done
harness_done "function length"
