/* argfile.c -- options read from files (`cosa SUBCOMMAND @run.args`): the
 * argv expansion with an origin table (argfile.h). */
#include "config.h"
#include "argfile.h"
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trailer's mark: an address no argument string can have. */
static const char trailer_mark[] = "cosa argfile trailer";

struct builder {
    char **argv;
    size_t argc, cap;
    argfile_origin *origin;
    size_t norigin, ocap;
    char **owned;
    size_t nowned, wcap;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Append arg (owned: a string of ours; file NULL: from the command line). */
static int push(struct builder *b, char *arg, int owned, const char *file, unsigned line)
{
    if (grow((void **)&b->argv, &b->cap, b->argc + 4, sizeof *b->argv) != 0)
        return -1;
    if (owned) {
        if (grow((void **)&b->owned, &b->wcap, b->nowned + 1, sizeof *b->owned) != 0)
            return -1;
        b->owned[b->nowned++] = arg;
    }
    if (file) {
        if (grow((void **)&b->origin, &b->ocap, b->norigin + 1, sizeof *b->origin) != 0)
            return -1;
        b->origin[b->norigin++] = (argfile_origin){arg, file, line};
    }
    b->argv[b->argc++] = arg;
    return 0;
}

static int push_copy(struct builder *b, const char *text, size_t len, const char *file,
                     unsigned line)
{
    char *s = malloc(len + 1);
    if (!s)
        return -1;
    memcpy(s, text, len);
    s[len] = '\0';
    if (push(b, s, 1, file, line) != 0) {
        free(s);
        return -1;
    }
    return 0;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* One line of an option file: nothing (blank or comment), one argument, or
 * an option and its value.  Returns 0, -1 (out of memory) or -2 (a nested
 * @FILE). */
static int split_line(struct builder *b, char *s, const char *file, unsigned line)
{
    /* a comment runs from a '#' at the start or after a blank to the end */
    for (char *p = s; *p; p++)
        if (*p == '#' && (p == s || is_blank(p[-1]))) {
            *p = '\0';
            break;
        }
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n && is_blank(s[n - 1]))
        s[--n] = '\0';
    if (!n)
        return 0;
    if (s[0] == '@')
        return -2;
    /* "--opt value": the first word (an option without '=') and the rest */
    size_t w = 0;
    while (w < n && !is_blank(s[w]))
        w++;
    if (s[0] == '-' && w < n && !memchr(s, '=', w)) {
        size_t v = w;
        while (is_blank(s[v]))
            v++;
        if (push_copy(b, s, w, file, line) != 0)
            return -1;
        return push_copy(b, s + v, n - v, file, line);
    }
    return push_copy(b, s, n, file, line);
}

#define LINE_MAX_CHARS 65536 /* longer lines (e.g. @/dev/zero) are refused */

/* One line of f into buf (LINE_MAX_CHARS + 1 chars), without its newline.
 * Returns 1 (a line), 0 (end of file), -1 (too long), -2 (a NUL byte: not
 * a text file). */
static int read_line(FILE *f, char *buf)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0')
            return -2;
        if (n == LINE_MAX_CHARS)
            return -1;
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return c == EOF && n == 0 ? 0 : 1;
}

/* The arguments of the option file path (the text after '@'). */
static int read_file(const char *cmd, struct builder *b, const char *path)
{
    if (!*path) {
        cli_error(cmd, "'@' without a file name (options from a file: @FILE)");
        return CLI_EUSAGE;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        cli_error(cmd, "@%s: cannot read the option file: %s", path, strerror(errno));
        return CLI_EUSAGE;
    }
    char *buf = malloc(LINE_MAX_CHARS + 1);
    unsigned line = 0;
    int rc = buf ? CLI_OK : CLI_EFAIL, got = 0;
    if (!buf)
        cli_error(cmd, "out of memory");
    while (rc == CLI_OK && (got = read_line(f, buf)) != 0) {
        line++;
        if (got < 0) {
            cli_error(cmd, "%s:%u: %s", path, line,
                      got == -1 ? "line longer than 65536 characters" : "a NUL byte (not a text "
                                                                        "file)");
            rc = CLI_EUSAGE;
            break;
        }
        const int r = split_line(b, buf, path, line);
        if (r == -1) {
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
        } else if (r == -2) {
            cli_error(cmd, "%s:%u: option files do not nest (an @FILE inside @%s)", path, line,
                      path);
            rc = CLI_EUSAGE;
        }
    }
    if (rc == CLI_OK && ferror(f)) {
        cli_error(cmd, "@%s: cannot read the option file: %s", path, strerror(errno));
        rc = CLI_EUSAGE;
    }
    free(buf);
    fclose(f);
    return rc;
}

void argfile_free(argfile *af)
{
    if (!af)
        return;
    for (size_t i = 0; i < af->nowned; i++)
        free(af->owned[i]);
    free(af->owned);
    free(af->origin);
    free(af->argv);
    memset(af, 0, sizeof *af);
}

int argfile_expand(const char *cmd, int argc, char **argv, int first, argfile *af)
{
    memset(af, 0, sizeof *af);
    struct builder b = {0};
    int rc = CLI_OK, rest = 0;
    for (int i = 0; i < argc && rc == CLI_OK; i++) {
        if (i >= first && !rest && strcmp(argv[i], "--") == 0)
            rest = 1;
        if (i >= first && !rest && argv[i][0] == '@')
            rc = read_file(cmd, &b, argv[i] + 1);
        else if (push(&b, argv[i], 0, NULL, 0) != 0) {
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
        }
    }
    if (rc == CLI_OK && grow((void **)&b.argv, &b.cap, b.argc + 3, sizeof *b.argv) != 0) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
    }
    af->argv = b.argv;
    af->argc = (int)b.argc;
    af->origin = b.origin;
    af->norigin = b.norigin;
    af->owned = b.owned;
    af->nowned = b.nowned;
    if (rc != CLI_OK) {
        argfile_free(af);
        return rc;
    }
    af->argv[af->argc] = NULL;
    af->argv[af->argc + 1] = (char *)(uintptr_t)trailer_mark;
    af->argv[af->argc + 2] = (char *)af; /* the table; af outlives the subcommand */
    return CLI_OK;
}

const char *argfile_where(int argc, char *const *argv, const char *arg, char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
    if (!argv || !arg || argv[argc + 1] != (const char *)trailer_mark)
        return buf;
    const argfile *af = (const argfile *)(void *)argv[argc + 2];
    for (size_t k = 0; af && k < af->norigin; k++)
        if (af->origin[k].arg == arg) {
            snprintf(buf, size, "%s:%u: ", af->origin[k].file, af->origin[k].line);
            break;
        }
    return buf;
}
