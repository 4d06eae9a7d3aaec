/* json_out.h -- `--format json` of the commands that print 'name value'
 * lines and tables (point, converge, limit, simulate): the command's text
 * form, captured, becomes one JSON document with the same numbers
 * (doc/output-formats.md).
 *
 * The text is read as
 *   # COMMENT                 a comment line         -> "comments": [...]
 *   NAME V1 [V2 ...]          a field                -> "fields": {NAME: V}
 *                             (one value: V; several: [V1, V2, ...]; a
 *                             NAME that comes again: a list of those)
 *   C1 C2 ... (all names),    a table: its header,   -> "tables": [{"columns":
 *   then rows of as many      then its rows              [...], "rows": [...]}]
 *   numbers
 * Numbers are written as the text wrote them (the same characters when
 * they are JSON numbers, else %.17g: the same double); inf, -inf and nan,
 * which JSON has no numbers for, become the strings "inf", "-inf", "nan";
 * every other word is a string. */
#ifndef COSA_JSON_OUT_H
#define COSA_JSON_OUT_H

#include <stdio.h>

typedef struct json_capture {
    FILE *saved;   /* stdout while capturing */
    FILE *mem;     /* the capture            */
    char *buf;
    size_t len;
} json_capture;

/* From now on stdout goes into c (glibc's stdout is assignable).  0, or -1
 * (out of memory; stdout unchanged). */
int json_capture_begin(json_capture *c);

/* The end of a command with exit code rc: stdout back and, if rc is
 * CLI_OK, the captured text as one JSON document on it ("command": cmd);
 * the capture freed.  Returns rc, or CLI_EFAIL after one line when memory
 * ran out.  Nothing for a zeroed c (no capture begun). */
int json_capture_end(json_capture *c, const char *cmd, int rc);

/* The JSON document of text (len bytes) on f; 0, or -1 (out of memory:
 * nothing written). */
int json_from_text(FILE *f, const char *cmd, const char *text, size_t len);

#endif
