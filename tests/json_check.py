# json_check.py TEXT JSON -- the JSON document of `cosa CMD --format json`
# (JSON) holds every line of the text form (TEXT) with the same numbers, to
# the bit: comments in "comments", 'name value' lines in "fields" (a name
# given more than once: a list, in order), tables (a header of names, then
# rows of numbers) in "tables".  Strict JSON (no NaN/Infinity constants):
# inf and nan are the strings "inf", "-inf", "nan".  Exit 0, or 1 with the
# first difference.
import json
import math
import sys


def num(t):
    try:
        return float(t)
    except ValueError:
        return None


def same(t, j):
    v = num(t)
    if v is None:
        return False
    if isinstance(j, str):
        return j in ("inf", "-inf", "nan") and (math.isnan(v) and j == "nan" or
                                                math.isinf(v) and float(j) == v)
    return not isinstance(j, bool) and isinstance(j, (int, float)) and float(j) == v


def bad(msg):
    print("json_check: " + msg)
    sys.exit(1)


def constant(c):
    bad("not strict JSON: " + c)


lines = open(sys.argv[1]).read().split("\n")
doc = json.load(open(sys.argv[2]), parse_constant=constant)
words = [l.split() for l in lines]
isnum = [all(num(t) is not None for t in w) for w in words]
count, seen = {}, {}
kinds = []
ncol = 0
for i, w in enumerate(words):
    if not w:
        kinds.append("blank"); ncol = 0
    elif w[0].startswith("#"):
        kinds.append("comment")
    elif ncol and len(w) == ncol and isnum[i]:
        kinds.append("row")
    elif (len(w) >= 2 and not any(num(t) is not None for t in w) and i + 1 < len(words)
          and len(words[i + 1]) == len(w) and isnum[i + 1]):
        kinds.append("header"); ncol = len(w)
    else:
        kinds.append("field"); ncol = 0
        count[w[0]] = count.get(w[0], 0) + 1
comments = [l.lstrip("#").lstrip(" ") for l, k in zip(lines, kinds) if k == "comment"]
if doc.get("comments") != comments:
    bad("comments differ")
fields = doc["fields"]
if sorted(fields) != sorted(count):
    bad("field names differ: %s vs %s" % (sorted(fields), sorted(count)))
table, row = -1, 0
for i, (w, k) in enumerate(zip(words, kinds)):
    if k == "field":
        v = fields[w[0]]
        if count[w[0]] > 1:
            v = v[seen.get(w[0], 0)]
        seen[w[0]] = seen.get(w[0], 0) + 1
        rest = w[1:]
        if not rest:
            ok = v is None
        elif all(num(t) is not None for t in rest):
            ok = (same(rest[0], v) if len(rest) == 1 else
                  isinstance(v, list) and len(v) == len(rest) and all(map(same, rest, v)))
        else:
            ok = v == lines[i].split(None, 1)[1].strip()
        if not ok:
            bad("line %d '%s': JSON has %r" % (i + 1, lines[i], v))
    elif k == "header":
        table += 1; row = 0
        if doc["tables"][table]["columns"] != w:
            bad("line %d: columns differ" % (i + 1))
    elif k == "row":
        r = doc["tables"][table]["rows"][row]
        row += 1
        if len(r) != len(w) or not all(map(same, w, r)):
            bad("line %d '%s': JSON row %r" % (i + 1, lines[i], r))
if len(doc["tables"]) != table + 1:
    bad("%d tables in JSON, %d in the text" % (len(doc["tables"]), table + 1))
