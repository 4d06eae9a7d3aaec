/* opt_table.c -- the table-driven command line: one parser and one help
 * printer for the option tables of the subcommands (opt_table.h). */
#include "opt_table.h"
#include "argfile.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Options of one command, included tables flattened: the row and the base
 * its offsets are relative to.  A command has a few dozen options; more
 * than OPT_MAX_ROWS is a programming error, reported as such. */
#define OPT_MAX_ROWS 160
typedef struct ent {
    const opt_row *row;
    char *base;
    unsigned modes; /* the row's .modes, else those of the table that includes it */
} ent;

typedef struct parser {
    const char *cmd;
    int argc;
    char **argv;
    ent e[OPT_MAX_ROWS];
    size_t n;
    int seen[OPT_MAX_ROWS];  /* argv index of the last use (0: not given) */
    int alias[OPT_MAX_ROWS]; /* the alias entry that gave it, or -1 */
    int overflow;
    const opt_mode *modes;   /* opt_parse_modes (NULL: none)                 */
    unsigned mode;           /* the mode decided                              */
} parser;

static void flatten_modes(parser *p, const opt_row *rows, char *base, unsigned modes)
{
    for (const opt_row *r = rows; r->kind != OPTK_END; r++) {
        if (r->kind == OPTK_TEXT)
            continue;
        if (r->kind == OPTK_INCLUDE) {
            flatten_modes(p, r->sub, base ? base + r->off : NULL, r->modes ? r->modes : modes);
            continue;
        }
        if (p->n == OPT_MAX_ROWS) {
            p->overflow = 1;
            return;
        }
        p->e[p->n++] = (ent){r, base, r->modes ? r->modes : modes};
    }
}

static void flatten(parser *p, const opt_row *rows, char *base)
{
    flatten_modes(p, rows, base, 0);
}

/* One line "cosa: CMD: FILE:LINE: message" (the FILE:LINE of argv[i] when
 * it was read from an @FILE; i = 0: none). */
static void perr(const parser *p, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void perr(const parser *p, int i, const char *fmt, ...)
{
    char where[512] = "", msg[1024];
    if (i > 0 && i < p->argc)
        argfile_where(p->argc, p->argv, p->argv[i], where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error(p->cmd, "%s%s", where, msg);
}

static int find_long(const parser *p, const char *name, size_t len)
{
    for (size_t k = 0; k < p->n; k++)
        if (strlen(p->e[k].row->name) == len && strncmp(p->e[k].row->name, name, len) == 0)
            return (int)k;
    return -1;
}

/* The entry of --NAME (exact, else a unique prefix); -1 unknown, -2
 * ambiguous. */
static int lookup_long(const parser *p, const char *name, size_t len)
{
    int k = find_long(p, name, len), hit = -1;
    if (k >= 0)
        return k;
    for (size_t j = 0; j < p->n; j++)
        if (strncmp(p->e[j].row->name, name, len) == 0) {
            /* an alias and its target are one option */
            const opt_row *r = p->e[j].row;
            const int t = r->kind == OPTK_ALIAS ? find_long(p, r->target, strlen(r->target))
                                                : (int)j;
            const int h = hit < 0 ? -1
                          : p->e[hit].row->kind == OPTK_ALIAS
                              ? find_long(p, p->e[hit].row->target, strlen(p->e[hit].row->target))
                              : hit;
            if (hit >= 0 && h != t)
                return -2;
            if (hit < 0 || r->kind != OPTK_ALIAS)
                hit = (int)j;
        }
    return hit;
}

static int lookup_short(const parser *p, char c)
{
    for (size_t k = 0; k < p->n; k++)
        if (p->e[k].row->short_name == c && c)
            return (int)k;
    return -1;
}

/* "--name" of a row, for messages (an alias: its own name). */
static const char *spelled(const opt_row *r, char *buf, size_t size)
{
    snprintf(buf, size, "--%s", r->name);
    return buf;
}

/* ---- values ----------------------------------------------------------- */

/* 1 if x lies in the interval of an OPTK_RANGE row, whose wording goes to
 * what ("a number in (0, 1)") */
static int in_range(const opt_row *r, double x, char *what, size_t size)
{
    char lo[32], hi[32];
    const int open_lo = (r->flags & OPTF_OPEN_MIN) != 0, open_hi = (r->flags & OPTF_OPEN_MAX) != 0;
    snprintf(what, size, "a number in %c%s, %s%c", open_lo ? '(' : '[',
             cosa_number_text(lo, sizeof lo, r->dmin), cosa_number_text(hi, sizeof hi, r->dmax),
             open_hi ? ')' : ']');
    return (open_lo ? x > r->dmin : x >= r->dmin) && (open_hi ? x < r->dmax : x <= r->dmax);
}

static int number_value(const parser *p, int i, const opt_row *r, const char *v, double *out)
{
    double x = 0.0;
    const int rc = cli_parse_double(v, &x);
    char range[96];
    const char *what = r->kind == OPTK_POSITIVE ? "a positive finite number"
                       : r->kind == OPTK_NONNEG ? "a finite number >= 0"
                       : r->kind == OPTK_RANGE  ? range
                                                : "a finite number";
    int ok = rc == CLI_NUM_OK;
    if (r->kind == OPTK_RANGE) /* also fills in the wording */
        ok = in_range(r, x, range, sizeof range) && ok;
    if (ok && r->kind == OPTK_POSITIVE)
        ok = x > 0.0;
    if (ok && r->kind == OPTK_NONNEG)
        ok = x >= 0.0;
    if (ok) {
        *out = x;
        return 0;
    }
    if (rc == CLI_NUM_OVERFLOW || rc == CLI_NUM_UNDERFLOW)
        perr(p, i, "--%s must be %s: '%s' %s", r->name, what, v, cli_number_why(rc));
    else
        perr(p, i, "--%s must be %s, got '%s'", r->name, what, v);
    return -1;
}

/* an integer: digits with a sign, or an exact integer written as a number
 * (1e3, 10^3) up to 2^53 (beyond it a double no longer holds every integer) */
static int parse_long(const char *v, long *out)
{
    const char *d = v + (*v == '-' || *v == '+');
    if (*d && strspn(d, "0123456789") == strlen(d)) {
        errno = 0;
        char *end = NULL;
        long x = strtol(v, &end, 10);
        if (errno == ERANGE || *end)
            return -1;
        *out = x;
        return 0;
    }
    double x;
    if (cli_parse_double(v, &x) != CLI_NUM_OK || x != floor(x) || fabs(x) > 9007199254740992.0 ||
        x > (double)LONG_MAX || x < (double)LONG_MIN)
        return -1;
    *out = (long)x;
    return 0;
}

static int enum_value(const parser *p, int i, const opt_row *r, const char *v, int *out)
{
    char list[512] = "";
    size_t len = 0;
    for (size_t k = 0;; k++) {
        const char *nm = r->names ? r->names[k] : r->name_at ? r->name_at(k) : NULL;
        if (!nm)
            break;
        if (strcmp(nm, v) == 0) {
            *out = (int)k;
            return 0;
        }
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", nm);
    }
    const char *last = strrchr(list, ',');
    if ((r->flags & OPTF_OR_LIST) && last) /* "A, B or C, got" (H3's addition) */
        perr(p, i, "--%s must be %.*s or %s, got '%s'", r->name, (int)(last - list), list,
             last + 2, v);
    else
        perr(p, i, "--%s must be one of %s; got '%s'", r->name, list, v);
    return -1;
}

static int list_value(const parser *p, int i, const opt_row *r, char *base, const char *v)
{
    size_t *count = (size_t *)(base + r->off_count);
    if (*count >= r->max) {
        perr(p, i, "too many --%s options (at most %zu)", r->name, r->max);
        return -1;
    }
    const char **slot = (const char **)(base + r->off) + *count;
    char msg[512] = "";
    if (r->fn && r->fn(r, v, slot, msg, sizeof msg) != 0) { /* the value's own check */
        perr(p, i, "%s", msg[0] ? msg : "bad value");
        return -1;
    }
    *slot = v;
    (*count)++;
    return 0;
}

/* Store v (NULL for a flag) through row r of entry k. */
static int store(const parser *p, int i, int k, const char *v)
{
    const opt_row *r = p->e[k].row;
    char *base = p->e[k].base;
    void *dst = base + r->off;
    char msg[512] = "";
    switch (r->kind) {
    case OPTK_FLAG:
        *(int *)dst = 1;
        return 0;
    case OPTK_NUMBER:
    case OPTK_POSITIVE:
    case OPTK_NONNEG:
    case OPTK_RANGE:
        return number_value(p, i, r, v, dst);
    case OPTK_INT: {
        long x;
        if (parse_long(v, &x) != 0 || x < r->imin || x > r->imax) {
            perr(p, i, "--%s must be an integer in %ld..%ld, got '%s'", r->name, r->imin, r->imax,
                 v);
            return -1;
        }
        *(long *)dst = x;
        return 0;
    }
    case OPTK_SIZE: {
        size_t x;
        if (cli_parse_size(v, &x) != 0 || (r->imax > 0 && x > (size_t)r->imax)) {
            if (r->imax > 0)
                perr(p, i, "--%s must be an integer in 1..%ld, got '%s'", r->name, r->imax, v);
            else
                perr(p, i, "--%s must be a positive integer, got '%s'", r->name, v);
            return -1;
        }
        *(size_t *)dst = x;
        return 0;
    }
    case OPTK_ENUM:
        return enum_value(p, i, r, v, dst);
    case OPTK_PATH:
        if (!*v) {
            perr(p, i, "--%s needs a non-empty path", r->name);
            return -1;
        }
        *(const char **)dst = v;
        return 0;
    case OPTK_STRING:
        *(const char **)dst = v;
        return 0;
    case OPTK_LIST:
        return list_value(p, i, r, base, v);
    case OPTK_CUSTOM:
        if (r->fn(r, v, dst, msg, sizeof msg) == 0)
            return 0;
        perr(p, i, "%s", msg[0] ? msg : "bad value");
        return -1;
    default:
        perr(p, i, "--%s: option table error (kind %d)", r->name, (int)r->kind);
        return -1;
    }
}

/* ---- the command line -------------------------------------------------- */

/* The entry an option stands for (an alias: its target). */
static int resolve(const parser *p, int k)
{
    const opt_row *r = p->e[k].row;
    if (r->kind != OPTK_ALIAS)
        return k;
    return find_long(p, r->target, strlen(r->target));
}

/* One option at argv[*i]; advances *i past its value.  0, OPT_HELP_ASKED,
 * or 1 after an error. */
static int one_option(parser *p, int *i)
{
    const char *a = p->argv[*i], *inl = NULL;
    int k;
    char b[128];
    if (a[1] == '-') {
        const char *name = a + 2, *eq = strchr(name, '=');
        const size_t len = eq ? (size_t)(eq - name) : strlen(name);
        /* "--=VALUE" names no option (an empty prefix would match them all) */
        k = len ? lookup_long(p, name, len) : -1;
        if (k == -2) {
            perr(p, *i, "option '%.*s' is ambiguous (see 'cosa %s --help')", (int)(len + 2), a,
                 p->cmd);
            return 1;
        }
        inl = eq ? eq + 1 : NULL;
    } else {
        k = lookup_short(p, a[1]);
        inl = a[1] && a[2] ? a + 2 : NULL;
    }
    if (k < 0) {
        perr(p, *i, "unknown option '%s' (see 'cosa %s --help')", a, p->cmd);
        return 1;
    }
    const int given = k, at = *i;
    k = resolve(p, k);
    if (k < 0) {
        perr(p, *i, "option '%s': option table error (alias of an unknown option)", a);
        return 1;
    }
    const opt_row *r = p->e[k].row;
    if (r->kind == OPTK_HELP)
        return OPT_HELP_ASKED;
    const char *v = NULL;
    if (r->kind == OPTK_FLAG) {
        if (inl && a[1] == '-') {
            perr(p, *i, "option '--%s' takes no value, got '%s'", r->name, a);
            return 1;
        }
        if (inl) { /* -hx: not a cluster of short options */
            perr(p, *i, "unknown option '%s' (see 'cosa %s --help')", a, p->cmd);
            return 1;
        }
    } else if (inl)
        v = inl;
    else if (*i + 1 < p->argc)
        v = p->argv[++*i];
    else {
        perr(p, *i, "option '%s' needs a value (see 'cosa %s --help')", a, p->cmd);
        return 1;
    }
    const int repeat = r->kind == OPTK_LIST || (r->flags & OPTF_REPEAT);
    if (p->seen[k] && !repeat) {
        perr(p, at, "option %s given twice (it takes one value)",
             spelled(p->e[given].row, b, sizeof b));
        return 1;
    }
    p->seen[k] = at;
    p->alias[k] = given != k ? given : -1;
    if (given != k && (p->e[given].row->flags & OPTF_MARK))
        *(int *)(p->e[given].base + p->e[given].row->off) = 1;
    return store(p, at, k, v) == 0 ? 0 : 1;
}

/* 1 if the option named name was given (through its alias too). */
static int given_name(const parser *p, const char *name)
{
    const int k = find_long(p, name, strlen(name));
    return k >= 0 && p->seen[k];
}

/* Required options, requires and excludes, once the command line is read. */
static int relations(const parser *p)
{
    char b[128];
    for (size_t k = 0; k < p->n; k++) {
        const opt_row *r = p->e[k].row;
        if ((r->flags & OPTF_REQUIRED) && !p->seen[k]) {
            cli_error(p->cmd, "--%s is required (see 'cosa %s --help')", r->name, p->cmd);
            return -1;
        }
    }
    for (size_t k = 0; k < p->n; k++) {
        if (!p->seen[k])
            continue;
        const opt_row *r = p->e[k].row;
        const char *as = spelled(p->alias[k] >= 0 ? p->e[p->alias[k]].row : r, b, sizeof b);
        if (r->requires && !given_name(p, r->requires)) {
            perr(p, p->seen[k], "%s needs --%s%s%s%s", as, r->requires,
                 r->requires_why ? " (" : "", r->requires_why ? r->requires_why : "",
                 r->requires_why ? ")" : "");
            return -1;
        }
        if (r->excludes && given_name(p, r->excludes)) {
            perr(p, p->seen[k], "%s excludes --%s (give one of them)", as, r->excludes);
            return -1;
        }
    }
    return 0;
}

static void alias_notes(const parser *p)
{
    for (size_t k = 0; k < p->n; k++)
        if (p->seen[k] && p->alias[k] >= 0 && !(p->e[p->alias[k]].row->flags & OPTF_MARK))
            fprintf(stderr, "cosa: %s: note: --%s is deprecated; use --%s\n", p->cmd,
                    p->e[p->alias[k]].row->name, p->e[k].row->name);
}

/* The mode of the command line (opt_parse_modes) and the first given
 * option of another mode: one line. */
static int check_modes(parser *p)
{
    const opt_mode *dflt = NULL, *m = NULL;
    for (const opt_mode *q = p->modes; q->bit && !m; q++) {
        if (!q->selector)
            dflt = dflt ? dflt : q;
        else if (given_name(p, q->selector))
            m = q;
    }
    m = m ? m : dflt;
    p->mode = m ? m->bit : 0;
    int first = 0, kf = -1; /* the first on the command line */
    for (size_t k = 0; k < p->n; k++) {
        const unsigned em = p->e[k].modes;
        if (p->seen[k] && em && !(em & p->mode) && (kf < 0 || p->seen[k] < first))
            first = p->seen[k], kf = (int)k;
    }
    if (kf < 0)
        return 0;
    const opt_row *r = p->e[kf].row;
    const char *runs = "another mode";
    for (const opt_mode *q = p->modes; q->bit; q++)
        if (p->e[kf].modes & q->bit) {
            runs = q->runs;
            break;
        }
    char b[128];
    perr(p, first, "%s is an option of %s", spelled(p->alias[kf] >= 0 ? p->e[p->alias[kf]].row : r,
                                                     b, sizeof b), runs);
    return -1;
}

/* --list-options: every option of the table, one line each (opt_table.h). */
static void list_options(const parser *p)
{
    for (size_t k = 0; k < p->n; k++) {
        const opt_row *r = p->e[k].row;
        const unsigned em = p->e[k].modes;
        const char *sep = "\t";
        printf("--%s", r->name);
        if (r->short_name)
            printf("%sshort=-%c", sep, r->short_name), sep = " ";
        if (r->kind == OPTK_ALIAS)
            printf("%salias=--%s", sep, r->target), sep = " ";
        if (r->flags & OPTF_HIDDEN)
            printf("%shidden", sep), sep = " ";
        if (em && p->modes) {
            printf("%smode=", sep);
            const char *comma = "";
            for (const opt_mode *q = p->modes; q->bit; q++)
                if (em & q->bit) {
                    printf("%s%s%s", comma, q->selector ? "--" : "",
                           q->selector ? q->selector : "default");
                    comma = ",";
                }
        }
        putchar('\n');
    }
}

int opt_parse(const char *cmd, const opt_row *rows, void *dest, int argc, char **argv,
              int *first_positional)
{
    return opt_parse_modes(cmd, rows, NULL, dest, argc, argv, first_positional, NULL);
}

int opt_parse_modes(const char *cmd, const opt_row *rows, const opt_mode *modes, void *dest,
                    int argc, char **argv, int *first_positional, unsigned *mode)
{
    parser *p = calloc(1, sizeof *p);
    if (!p) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    *p = (parser){.cmd = cmd, .argc = argc, .argv = argv, .modes = modes};
    flatten(p, rows, dest);
    int rc = CLI_OK, i = 1;
    if (p->overflow) {
        cli_error(cmd, "option table error: more than %d rows", OPT_MAX_ROWS);
        rc = CLI_EUSAGE;
        goto out;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0') /* "-" alone is a value (stdin/stdout) */
            break;
        if (strcmp(a, OPT_LIST_SPELLING) == 0) {
            list_options(p);
            rc = OPT_LISTED;
            goto out;
        }
        const int r = one_option(p, &i);
        if (r == OPT_HELP_ASKED) {
            rc = OPT_HELP_ASKED;
            goto out;
        }
        if (r != 0) {
            rc = CLI_EUSAGE;
            goto out;
        }
    }
    if (first_positional)
        *first_positional = i;
    else if (i < argc) {
        perr(p, i, "unexpected argument '%s' (see 'cosa %s --help')", argv[i], cmd);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((p->modes && check_modes(p) != 0) || relations(p) != 0)
        rc = CLI_EUSAGE;
    else
        alias_notes(p);
    if (mode)
        *mode = p->mode;
out:
    free(p);
    return rc;
}

/* ---- --help ---------------------------------------------------------------- */

#define HELP_COL 23   /* the help text starts here */
/* lines end before this column: today's hand-written help texts go up to
 * column 86 (and read well on 80 columns where the terminal wraps the few
 * long ones); the rows keep them as they were */
#define HELP_WIDTH 88

/* text (up to its end or a '\n') from column col on, wrapped at spaces
 * before HELP_WIDTH; continuation lines start at HELP_COL */
static void help_text(FILE *f, const char *text, size_t col)
{
    const char *s = text;
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        while (len > 0) {
            size_t room = HELP_WIDTH - 1 > col ? HELP_WIDTH - 1 - col : 1, cut = len;
            if (len > room) {
                cut = room;
                while (cut > 0 && s[cut] != ' ')
                    cut--;
                if (cut == 0) /* one long word: break after it */
                    for (cut = room; cut < len && s[cut] != ' '; cut++)
                        ;
            }
            fprintf(f, "%.*s\n", (int)cut, s);
            while (cut < len && s[cut] == ' ')
                cut++;
            s += cut;
            len -= cut;
            if (len > 0)
                fprintf(f, "%*s", HELP_COL, "");
            col = HELP_COL;
        }
        if (!nl)
            break;
        s = nl + 1;
        if (*s)
            fprintf(f, "%*s", HELP_COL, "");
        col = HELP_COL;
    }
}

void opt_help(FILE *f, const opt_row *rows)
{
    opt_help_mode(f, rows, 0);
}

/* One option row of --help: "  -o, --output DIR    help text" (wrapped). */
static void help_row(FILE *f, const opt_row *r)
{
    char left[256], sh[8] = ""; /* "  -o, --output DIR" or "  --name ARG" */
    if (r->short_name)
        snprintf(sh, sizeof sh, "-%c, ", r->short_name);
    const int n = snprintf(left, sizeof left, "  %s--%s%s%s", sh, r->name, r->arg ? " " : "",
                           r->arg ? r->arg : "");
    if (n < 0)
        return;
    if (!r->help || !*r->help) {
        fprintf(f, "%s\n", left);
        return;
    }
    if ((size_t)n < HELP_COL)
        fprintf(f, "%-*s", HELP_COL, left);
    else
        fprintf(f, "%s\n%*s", left, HELP_COL, "");
    help_text(f, r->help, HELP_COL);
}

void opt_help_mode(FILE *f, const opt_row *rows, unsigned mode)
{
    for (const opt_row *r = rows; r->kind != OPTK_END; r++) {
        if (mode && r->modes && !(r->modes & mode))
            continue;
        if (r->kind == OPTK_TEXT) {
            fputs(r->help ? r->help : "", f);
            continue;
        }
        if (r->kind == OPTK_INCLUDE) {
            opt_help_mode(f, r->sub, mode);
            continue;
        }
        if (r->kind == OPTK_ALIAS || (r->flags & OPTF_HIDDEN))
            continue;
        help_row(f, r);
    }
}

/* The rows --help shows in mode (includes flattened; aliases, hidden rows and
 * heading-only text rows left out), in table order, into out[*n]. */
typedef struct {
    const opt_row *r[OPT_MAX_ROWS];
    size_t n;
} help_list;

static int heading_only(const char *t)
{
    if (!t)
        return 1;
    while (*t == '\n')
        t++;
    /* blank, or one line "Word:" (the old "Model:", "Options:" headings) */
    const char *colon = strchr(t, ':');
    if (!*t)
        return 1;
    return colon && colon[1] == '\n' && colon[2] == '\0' && !strchr(t, ' ');
}

static void help_collect(help_list *l, const opt_row *rows, unsigned mode)
{
    for (const opt_row *r = rows; r->kind != OPTK_END; r++) {
        if (mode && r->modes && !(r->modes & mode))
            continue;
        if (r->kind == OPTK_INCLUDE) {
            help_collect(l, r->sub, mode);
            continue;
        }
        if (r->kind == OPTK_ALIAS || (r->flags & OPTF_HIDDEN))
            continue;
        if (r->kind == OPTK_TEXT && heading_only(r->help))
            continue;
        if (l->n < OPT_MAX_ROWS)
            l->r[l->n++] = r;
    }
}

void opt_help_grouped(FILE *f, const opt_row *rows, unsigned mode)
{
    static const opt_group order[] = {OPTG_MODEL, OPTG_SCHEME, OPTG_GRID,
                                      OPTG_OUTPUT, OPTG_OTHER, OPTG_RUN};
    help_list l = {.n = 0};
    opt_group g[OPT_MAX_ROWS];
    help_collect(&l, rows, mode);
    /* text rows without a group go with the next option (the last: Other) */
    opt_group next = OPTG_OTHER;
    for (size_t i = l.n; i-- > 0;) {
        const opt_row *r = l.r[i];
        g[i] = r->kind == OPTK_TEXT ? (r->group != OPTG_AUTO ? r->group : next) : opt_group_of(r);
        if (r->kind != OPTK_TEXT)
            next = g[i];
    }
    int first = 1;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        int any = 0;
        for (size_t i = 0; i < l.n; i++) {
            if (g[i] != order[k])
                continue;
            if (!any)
                fprintf(f, "%s%s:\n", first ? "" : "\n", opt_group_title(order[k]));
            any = 1;
            first = 0;
            if (l.r[i]->kind == OPTK_TEXT)
                fputs(l.r[i]->help, f);
            else
                help_row(f, l.r[i]);
        }
    }
}

const opt_row *opt_find(const opt_row *rows, const char *name)
{
    for (const opt_row *r = rows; r->kind != OPTK_END; r++) {
        if (r->kind == OPTK_INCLUDE) {
            const opt_row *s = opt_find(r->sub, name);
            if (s)
                return s;
        } else if (r->name && strcmp(r->name, name) == 0)
            return r;
    }
    return NULL;
}
