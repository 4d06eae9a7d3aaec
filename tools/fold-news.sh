#!/bin/sh
# fold-news.sh [SRCDIR] -- fold the branches' news/*.md files into NEWS.
# Each branch of a release writes its user-visible changes of outputs and
# options to news/BRANCH.md (a bullet list).  This inserts every such file
# into NEWS, newest release first, under the heading of the unreleased
# section "## This release's changes from every branch", as "### BRANCH"
# with the file's lines, and removes the files (git rm them with the
# commit).  NEWS is written to a temporary file and renamed.
set -eu
src=${1:-.}
news=$src/NEWS
marker="## This release's changes from every branch"
grep -qxF "$marker" "$news" || { echo "fold-news.sh: no line '$marker' in $news" >&2; exit 2; }
set -- "$src"/news/*.md
[ -e "$1" ] || { echo "fold-news.sh: no news/*.md files to fold" >&2; exit 0; }
tmp=$news.tmp-$$
trap 'rm -f "$tmp"' EXIT
{
    # up to and including the marker's paragraph
    awk -v m="$marker" '{ print } $0 == m { on = 1; next } on && /^$/ { c++ } on && c == 2 { exit }' "$news"
    for f in "$@"; do
        echo "### $(basename "$f" .md)"
        echo
        sed -e '/^# /d' "$f"
        echo
    done
    awk -v m="$marker" '$0 == m { on = 1; next } on && /^$/ { c++; if (c == 2) { p = 1; next } } p' "$news"
} > "$tmp"
mv "$tmp" "$news"
trap - EXIT
rm -f "$@"
echo "fold-news.sh: folded $# file(s) into $news"
