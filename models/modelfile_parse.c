/* modelfile_parse.c -- the model-file lexer and its statements (format:
 * modelfile_impl.h): one call of mf_statement reads one line (or a
 * multi-line matrix) into the description; errors go to the parser as the
 * first "FILE:LINE: message". */
#include "modelfile_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MF_MAXENTRIES 10000000u /* entries of one block (memory guard)  */
#define MF_MAXNAMES 100000u     /* names in one states/inputs/outputs line */

static const char *const blk_shape[NBLK] = {"states x states", "states x inputs",
                                            "outputs x states", "outputs x inputs",
                                            "states"};
static const char *const decl_name[3] = {"states", "inputs", "outputs"};

/* Grow the array whose pointer is stored at arr (any object pointer type,
 * element size sz) so that it holds at least n + 1 elements.  The pointer is
 * read and written with memcpy, so no pointer type is punned. */
static int grow(void *arr, size_t *cap, size_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 8;
    if (c > SIZE_MAX / sz)
        return -1;
    void *old;
    memcpy(&old, arr, sizeof old);
    void *p = realloc(old, c * sz);
    if (!p)
        return -1;
    memcpy(arr, &p, sizeof p);
    *cap = c;
    return 0;
}

void mf_perr(struct mf_parser *p, cosa_status st, size_t line, const char *fmt, ...)
{
    if (p->st != COSA_OK)
        return;
    p->st = st;
    if (!p->err || !p->errsize)
        return;
    int n = snprintf(p->err, p->errsize, "%s:%zu: ", p->fname, line);
    if (n >= 0 && (size_t)n < p->errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

void mf_nomem(struct mf_parser *p) { mf_perr(p, COSA_ENOMEM, p->line, "out of memory"); }

static const char *describe(const char *s, char buf[16])
{
    unsigned char ch = (unsigned char)*s;
    if (ch == '\0')
        return "end of file";
    if (ch == '\n')
        return "end of line";
    if (isprint(ch))
        snprintf(buf, 16, "'%c'", ch);
    else
        snprintf(buf, 16, "byte 0x%02x", ch);
    return buf;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static void skip_blanks(struct mf_parser *p)
{
    while (is_blank(p->s[p->pos]))
        p->pos++;
}

static void skip_comment(struct mf_parser *p)
{
    while (p->s[p->pos] && p->s[p->pos] != '\n')
        p->pos++;
}

/* Blanks, newlines and comments (continuation after ',' in a matrix). */
static void skip_space(struct mf_parser *p)
{
    for (;;) {
        skip_blanks(p);
        if (p->s[p->pos] == '#')
            skip_comment(p);
        else if (p->s[p->pos] == '\n') {
            p->pos++;
            p->line++;
        } else
            return;
    }
}

/* End of a statement: optional "# comment" (copied to *doc when doc != NULL),
 * then newline or end of file. */
static void finish(struct mf_parser *p, char **doc, const char *what)
{
    char buf[16];
    skip_blanks(p);
    if (p->s[p->pos] == '#') {
        size_t b = ++p->pos;
        skip_comment(p);
        if (doc) {
            size_t e = p->pos;
            while (b < e && isspace((unsigned char)p->s[b]))
                b++;
            while (e > b && isspace((unsigned char)p->s[e - 1]))
                e--;
            free(*doc);
            *doc = mf_dupn(p->s + b, e - b);
            if (!*doc)
                return mf_nomem(p);
            for (char *c = *doc; *c; c++)
                if ((unsigned char)*c < 0x20)
                    *c = ' ';
        }
    }
    if (p->s[p->pos] == '\n') {
        p->pos++;
        p->line++;
    } else if (p->s[p->pos] != '\0') {
        mf_perr(p, COSA_ESYNTAX, p->line, "unexpected %s after %s", describe(p->s + p->pos, buf),
                what);
    }
}

/* Read an identifier into a new string; what names it in messages. */
static char *ident(struct mf_parser *p, const char *what)
{
    char buf[16];
    const char *s = p->s;
    size_t b = p->pos, e = b;
    if (!mf_ident_start(s[b])) {
        mf_perr(p, COSA_ESYNTAX, p->line, "expected %s (a name: letter or '_', then letters, "
                "digits, '_'), found %s", what, describe(s + b, buf));
        return NULL;
    }
    while (mf_ident_char(s[e]))
        e++;
    if (e - b > MF_EXPR_MAXNAME) {
        mf_perr(p, COSA_ESYNTAX, p->line, "%s '%.20s...' is longer than %d characters", what,
                s + b, MF_EXPR_MAXNAME);
        return NULL;
    }
    p->pos = e;
    char *r = mf_dupn(s + b, e - b);
    if (!r)
        mf_nomem(p);
    return r;
}

static int expect(struct mf_parser *p, char c, const char *context)
{
    char buf[16];
    skip_blanks(p);
    if (p->s[p->pos] != c) {
        mf_perr(p, COSA_ESYNTAX, p->line, "expected '%c' %s, found %s", c, context,
                describe(p->s + p->pos, buf));
        return -1;
    }
    p->pos++;
    skip_blanks(p);
    return 0;
}

static long sym_lookup(void *ctx, const char *name, size_t len, size_t line)
{
    struct mf_parser *p = ctx;
    mf_t *mf = p->mf;
    for (size_t i = 0; i < mf->nsym; i++)
        if (strlen(mf->syms[i].name) == len && memcmp(mf->syms[i].name, name, len) == 0)
            return (long)i;
    if (grow(&mf->syms, &mf->capsym, mf->nsym, sizeof *mf->syms))
        return -1;
    char *d = mf_dupn(name, len);
    if (!d)
        return -1;
    mf->syms[mf->nsym] = (struct mf_sym){d, line};
    return (long)mf->nsym++;
}

static int parse_expr(struct mf_parser *p, mf_expr *e, int names)
{
    char msg[200];
    size_t line = p->line;
    cosa_status st = mf_expr_compile(p->mf->pool, p->s, &p->pos, &line,
                                     names ? sym_lookup : NULL, p, e, msg, sizeof msg);
    if (st != COSA_OK) {
        mf_perr(p, st, line, "%s", msg);
        return -1;
    }
    p->line = line;
    return 0;
}

static int name_taken(const mf_t *mf, const char *n)
{
    for (size_t i = 0; i < mf->nparam; i++)
        if (strcmp(mf->params[i].name, n) == 0)
            return (int)mf->param_line[i];
    for (size_t i = 0; i < mf->nlet; i++)
        if (strcmp(mf->lets[i].name, n) == 0)
            return (int)mf->lets[i].line;
    return 0;
}

/* The name a declaration introduces; NULL (error reported) when it is
 * missing or already defined. */
static char *new_name(struct mf_parser *p, const char *what)
{
    size_t line = p->line;
    skip_blanks(p);
    char *name = ident(p, what);
    if (!name)
        return NULL;
    int prev = name_taken(p->mf, name);
    if (prev) {
        mf_perr(p, COSA_ESYNTAX, line, "'%s' is already defined (line %d)", name, prev);
        free(name);
        return NULL;
    }
    return name;
}

/* The range of a parameter: "( RULE [, RULE]... )", RULE one of integer,
 * > B, >= B, < B, <= B; B a number or a parameter declared before.
 * Returns 0 or -1 (error reported). */
static int parse_range(struct mf_parser *p, const char *name, cosa_range *r)
{
    char buf[16];
    p->pos++; /* '(' */
    for (;;) {
        skip_blanks(p);
        const char *c = p->s + p->pos;
        if (strncmp(c, "integer", 7) == 0 && !isalnum((unsigned char)c[7]) && c[7] != '_') {
            if (r->flags & COSA_RANGE_INT) {
                mf_perr(p, COSA_ESYNTAX, p->line, "range of '%s': 'integer' given twice", name);
                return -1;
            }
            r->flags |= COSA_RANGE_INT;
            p->pos += 7;
        } else if (c[0] == '>' || c[0] == '<') {
            const int lower = c[0] == '>', strict = c[1] != '=';
            p->pos += strict ? 1 : 2;
            if (r->flags & (lower ? COSA_RANGE_GT | COSA_RANGE_GE : COSA_RANGE_LT | COSA_RANGE_LE)) {
                mf_perr(p, COSA_ESYNTAX, p->line, "range of '%s': two %s bounds", name,
                        lower ? "lower" : "upper");
                return -1;
            }
            skip_blanks(p);
            const char *bname = NULL;
            double b = 0.0;
            const unsigned char ch = (unsigned char)p->s[p->pos];
            if (isalpha(ch) || ch == '_') {
                char *id = ident(p, "a parameter name or a number");
                if (!id)
                    return -1;
                for (size_t i = 0; i < p->mf->nparam && !bname; i++)
                    if (strcmp(p->mf->params[i].name, id) == 0)
                        bname = p->mf->params[i].name;
                if (!bname)
                    mf_perr(p, COSA_ESYNTAX, p->line, "range of '%s': '%s' is not a parameter "
                            "declared before", name, id);
                free(id);
                if (!bname)
                    return -1;
            } else {
                mf_expr e;
                if (parse_expr(p, &e, 0))
                    return -1;
                b = e.value;
            }
            if (lower) {
                r->flags |= strict ? COSA_RANGE_GT : COSA_RANGE_GE;
                r->lo = b;
                r->lo_param = bname;
            } else {
                r->flags |= strict ? COSA_RANGE_LT : COSA_RANGE_LE;
                r->hi = b;
                r->hi_param = bname;
            }
        } else {
            mf_perr(p, COSA_ESYNTAX, p->line, "range of '%s': expected integer, >, >=, < or <=, "
                    "found %s", name, describe(c, buf));
            return -1;
        }
        skip_blanks(p);
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->s[p->pos] == ')') {
            p->pos++;
            return 0;
        }
        mf_perr(p, COSA_ESYNTAX, p->line, "range of '%s': expected ',' or ')', found %s", name,
                describe(p->s + p->pos, buf));
        return -1;
    }
}

/* param|initial NAME = CONST [unit] (range)  # doc */
static void st_param(struct mf_parser *p, cosa_param_kind kind)
{
    mf_t *mf = p->mf;
    char buf[16];
    size_t line = p->line;
    char *name = new_name(p, "a parameter name");
    if (!name)
        return;
    mf_expr e;
    if (expect(p, '=', "after the parameter name") || parse_expr(p, &e, 0)) {
        free(name);
        return;
    }
    char *unit = NULL, *doc = NULL;
    skip_blanks(p);
    if (p->s[p->pos] == '[') {
        size_t b = ++p->pos;
        while (p->s[p->pos] && p->s[p->pos] != ']' && p->s[p->pos] != '\n' &&
               p->s[p->pos] != '#' && (unsigned char)p->s[p->pos] >= 0x20)
            p->pos++;
        if (p->s[p->pos] != ']') {
            mf_perr(p, COSA_ESYNTAX, p->line, "unit of '%s': expected ']', found %s", name,
                    describe(p->s + p->pos, buf));
            free(name);
            return;
        }
        size_t e2 = p->pos++;
        while (b < e2 && is_blank(p->s[b]))
            b++;
        while (e2 > b && is_blank(p->s[e2 - 1]))
            e2--;
        unit = mf_dupn(p->s + b, e2 - b);
    } else {
        unit = mf_dup0("");
    }
    cosa_range range = {0};
    skip_blanks(p);
    if (p->s[p->pos] == '(' && parse_range(p, name, &range)) {
        free(name);
        free(unit);
        return;
    }
    finish(p, &doc, "the parameter");
    if (!doc)
        doc = mf_dup0("");
    if (p->st != COSA_OK || !unit || !doc ||
        grow(&mf->params, &mf->capparam, mf->nparam, sizeof *mf->params)) {
        if (p->st == COSA_OK)
            mf_nomem(p);
        free(name);
        free(unit);
        free(doc);
        return;
    }
    size_t *pl = realloc(mf->param_line, mf->capparam * sizeof *pl);
    if (!pl) {
        mf_nomem(p);
        free(name);
        free(unit);
        free(doc);
        return;
    }
    mf->param_line = pl;
    mf->params[mf->nparam] = (cosa_param){name, e.value, unit, doc, kind, range};
    mf->param_line[mf->nparam++] = line;
}

/* let NAME = EXPR */
static void st_let(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    size_t line = p->line;
    char *name = new_name(p, "a name");
    if (!name)
        return;
    mf_expr e;
    if (expect(p, '=', "after the name") || parse_expr(p, &e, 1)) {
        free(name);
        return;
    }
    finish(p, NULL, "the expression");
    if (p->st != COSA_OK || grow(&mf->lets, &mf->caplet, mf->nlet, sizeof *mf->lets)) {
        if (p->st == COSA_OK)
            mf_nomem(p);
        free(name);
        return;
    }
    mf->lets[mf->nlet++] = (struct mf_let){name, e, line};
}

static void st_model(struct mf_parser *p)
{
    char buf[16];
    if (p->model_line) {
        mf_perr(p, COSA_ESYNTAX, p->line, "second 'model' line (first at line %zu)", p->model_line);
        return;
    }
    p->model_line = p->line;
    skip_blanks(p);
    size_t b = p->pos, e = b;
    while (mf_ident_char(p->s[e]) || p->s[e] == '-' || p->s[e] == '.' || p->s[e] == '+')
        e++;
    if (e == b || e - b > MF_EXPR_MAXNAME) {
        mf_perr(p, COSA_ESYNTAX, p->line, "expected a model name (letters, digits, '_', '-', "
                "'.', '+'; at most %d), found %s", MF_EXPR_MAXNAME, describe(p->s + b, buf));
        return;
    }
    p->pos = e;
    free(p->mf->name);
    p->mf->name = mf_dupn(p->s + b, e - b);
    if (!p->mf->name)
        return mf_nomem(p);
    finish(p, &p->mf->doc, "the model name");
}

static void st_tend(struct mf_parser *p)
{
    if (p->tend_line) {
        mf_perr(p, COSA_ESYNTAX, p->line, "second 'tend' line (first at line %zu)", p->tend_line);
        return;
    }
    p->tend_line = p->line;
    mf_expr e;
    skip_blanks(p);
    if (parse_expr(p, &e, 0))
        return;
    if (!(e.value > 0.0)) {
        mf_perr(p, COSA_ERANGE, p->tend_line, "tend must be positive (got %g)", e.value);
        return;
    }
    p->mf->tend = e.value;
    finish(p, NULL, "tend");
}

/* A new subsystem's name (subsystem or fmu statement at line), or NULL
 * after an error (not a name, or a subsystem of that name exists). */
static char *new_sub_name(struct mf_parser *p, size_t line)
{
    mf_t *mf = p->mf;
    skip_blanks(p);
    char *name = ident(p, "a subsystem name");
    if (!name)
        return NULL;
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0) {
            mf_perr(p, COSA_ESYNTAX, line, "subsystem '%s' is already defined (line %zu)", name,
                    mf->subs[i].line);
            free(name);
            return NULL;
        }
    return name;
}

static void st_subsystem(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    size_t line = p->line;
    char *name = new_sub_name(p, line);
    if (!name)
        return;
    if (grow(&mf->subs, &mf->capsub, mf->nsub, sizeof *mf->subs)) {
        free(name);
        return mf_nomem(p);
    }
    struct mf_sub *s = &mf->subs[mf->nsub++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->line = line;
    p->cur = s;
    finish(p, NULL, "the subsystem name");
}

/* fmu NAME [cs|me] = PATH [# comment]: PATH is the rest of the line
 * (trimmed); cs or me picks the interface of an FMU that has both
 * (default: co-simulation where the FMU offers it, else model exchange) */
static void st_fmu(struct mf_parser *p)
{
    size_t line = p->line;
    char *name = new_sub_name(p, line);
    if (!name)
        return;
    skip_blanks(p);
    p->fmu_iface = COSA_FMU_IFACE_AUTO;
    const char *w = p->s + p->pos;
    if ((w[0] == 'c' && w[1] == 's') || (w[0] == 'm' && w[1] == 'e')) {
        if (!mf_ident_char(w[2])) {
            p->fmu_iface = w[0] == 'c' ? COSA_FMU_IFACE_CS : COSA_FMU_IFACE_ME;
            p->pos += 2;
            skip_blanks(p);
        }
    }
    if (expect(p, '=', "fmu NAME [cs|me] = PATH")) {
        free(name);
        return;
    }
    skip_blanks(p);
    size_t b = p->pos;
    while (p->s[p->pos] && p->s[p->pos] != '\n' && p->s[p->pos] != '#')
        p->pos++;
    size_t e = p->pos;
    while (e > b && is_blank(p->s[e - 1]))
        e--;
    if (e == b) {
        mf_perr(p, COSA_ESYNTAX, line, "fmu %s: expected the path of an FMU after '='", name);
        free(name);
        return;
    }
    char *path = mf_dupn(p->s + b, e - b);
    if (!path) {
        free(name);
        return mf_nomem(p);
    }
    mf_st_fmu(p, name, line, path);
    p->fmu_iface = COSA_FMU_IFACE_AUTO;
    free(name);
    free(path);
    if (p->st == COSA_OK)
        finish(p, NULL, "the FMU's path");
}

/* states|inputs|outputs NAME ... (blanks or commas between names) */
static void st_names(struct mf_parser *p, int d)
{
    struct mf_sub *s = p->cur;
    if (s->decl_line[d]) {
        mf_perr(p, COSA_ESYNTAX, p->line, "second '%s' line in subsystem '%s' (first at line %zu)",
                decl_name[d], s->name, s->decl_line[d]);
        return;
    }
    for (int k = 0; k < NBLK; k++)
        if (s->b[k].given) {
            mf_perr(p, COSA_ESYNTAX, p->line, "'%s' after block %s (line %zu): declare states, "
                    "inputs and outputs first", decl_name[d], mf_blk_name[k], s->b[k].line);
            return;
        }
    s->decl_line[d] = p->line;
    size_t cap = 0;
    for (;;) {
        skip_blanks(p);
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        char c = p->s[p->pos];
        if (c == '\n' || c == '\0' || c == '#')
            break;
        char *n = ident(p, "a name");
        if (!n)
            return;
        for (size_t j = 0; j < s->n[d]; j++)
            if (strcmp(s->names[d][j], n) == 0) {
                mf_perr(p, COSA_ESYNTAX, p->line, "'%s' appears twice among the %s of '%s'", n,
                        decl_name[d], s->name);
                free(n);
                return;
            }
        if (s->n[d] >= MF_MAXNAMES) {
            mf_perr(p, COSA_ESYNTAX, p->line, "more than %u %s", MF_MAXNAMES, decl_name[d]);
            free(n);
            return;
        }
        if (grow(&s->names[d], &cap, s->n[d], sizeof(char *))) {
            free(n);
            return mf_nomem(p);
        }
        s->names[d][s->n[d]++] = n;
    }
    finish(p, NULL, decl_name[d]);
}

/* Full matrix "[ e, e ; e, e ]" (rows separated by ';' or newlines) into a
 * new row-major array. */
static mf_expr *parse_matrix(struct mf_parser *p, const char *what, size_t *rows, size_t *cols)
{
    char buf[16];
    size_t open_line = p->line, n = 0, cap = 0, nrow = 0, ncol = 0, cur = 0, row_line = 0;
    mf_expr *v = NULL;
    p->pos++; /* '[' */
    for (;;) {
        skip_blanks(p);
        char c = p->s[p->pos];
        if (c == '#') {
            skip_comment(p);
            continue;
        }
        if (c == '\n' || c == ';' || c == ']') {
            if (cur > 0) {
                if (nrow == 0)
                    ncol = cur;
                else if (cur != ncol) {
                    mf_perr(p, COSA_ESYNTAX, row_line,
                            "row %zu of %s has %zu entries, row 1 has %zu", nrow + 1, what, cur,
                            ncol);
                    break;
                }
                nrow++;
                cur = 0;
            }
            p->pos++;
            if (c == '\n')
                p->line++;
            if (c == ']') {
                *rows = nrow;
                *cols = ncol;
                return v ? v : calloc(1, sizeof *v);
            }
            continue;
        }
        if (c == '\0') {
            mf_perr(p, COSA_ESYNTAX, p->line,
                    "end of file inside the matrix %s (opened at line %zu)", what, open_line);
            break;
        }
        if (c == ',') {
            mf_perr(p, COSA_ESYNTAX, p->line, "empty entry in %s", what);
            break;
        }
        if (cur == 0)
            row_line = p->line;
        if (n >= MF_MAXENTRIES) {
            mf_perr(p, COSA_ESYNTAX, p->line, "%s has more than %u entries", what, MF_MAXENTRIES);
            break;
        }
        if (grow(&v, &cap, n, sizeof *v)) {
            mf_nomem(p);
            break;
        }
        if (parse_expr(p, &v[n], 1))
            break;
        n++;
        cur++;
        skip_blanks(p);
        c = p->s[p->pos];
        if (c == ',') {
            p->pos++;
            skip_space(p);
            c = p->s[p->pos];
            if (c == ']' || c == ';' || c == ',' || c == '\0') {
                mf_perr(p, COSA_ESYNTAX, p->line, "expected an entry of %s after ',', found %s",
                        what, describe(p->s + p->pos, buf));
                break;
            }
        } else if (c != '\n' && c != ';' && c != ']' && c != '#' && c != '\0') {
            mf_perr(p, COSA_ESYNTAX, p->line,
                    "expected ',', ';', a new line or ']' after an entry of %s, found %s", what,
                    describe(p->s + p->pos, buf));
            break;
        }
    }
    free(v);
    return NULL;
}

static int read_index(struct mf_parser *p, size_t *v, const char *what)
{
    char buf[16];
    skip_blanks(p);
    size_t b = p->pos, x = 0;
    while (isdigit((unsigned char)p->s[p->pos]) && p->pos - b < 9)
        x = 10 * x + (size_t)(p->s[p->pos++] - '0');
    if (p->pos == b || isdigit((unsigned char)p->s[p->pos])) {
        mf_perr(p, COSA_ESYNTAX, p->line, "expected a %s number (1, 2, ...), found %s", what,
                describe(p->s + b, buf));
        return -1;
    }
    *v = x;
    skip_blanks(p);
    return 0;
}

/* A = [..] | A = zeros | A = eye | A[i,j] = EXPR | x0[i] = EXPR */
static void st_block(struct mf_parser *p, int k)
{
    char buf[16];
    struct mf_sub *s = p->cur;
    struct mf_block *b = &s->b[k];
    size_t line = p->line, r, c;
    for (int d = 0; d < 3; d++)
        if (!s->decl_line[d]) {
            mf_perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' before its '%s' line "
                    "(declare states, inputs and outputs first)", mf_blk_name[k], s->name,
                    decl_name[d]);
            return;
        }
    mf_block_dims(s, k, &r, &c);
    if (r > 0 && c > MF_MAXENTRIES / r) {
        mf_perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' (%zux%zu) is too large",
                mf_blk_name[k], s->name, r, c);
        return;
    }
    skip_blanks(p);
    if (p->s[p->pos] == '[') { /* one entry */
        size_t i, j = 1;
        p->pos++;
        if (read_index(p, &i, "row"))
            return;
        if (k != BX0) {
            if (expect(p, ',', "between row and column") || read_index(p, &j, "column"))
                return;
        }
        if (expect(p, ']', "after the index") || expect(p, '=', "after the index"))
            return;
        if (b->given == 0) {
            mf_perr(p, COSA_ESYNTAX, line, "%s[...] of subsystem '%s' before '%s = zeros'%s",
                    mf_blk_name[k], s->name, mf_blk_name[k], k == BX0 ? "" : " or '= eye'");
            return;
        }
        if (b->given == 1) {
            mf_perr(p, COSA_ESYNTAX, line, "%s of subsystem '%s' is a full matrix (line %zu); "
                    "single entries need '%s = zeros'", mf_blk_name[k], s->name, b->line,
                    mf_blk_name[k]);
            return;
        }
        if (i < 1 || i > r || j < 1 || j > c) {
            if (k == BX0)
                mf_perr(p, COSA_ESYNTAX, line, "x0[%zu] of subsystem '%s': index outside 1..%zu", i,
                        s->name, r);
            else
                mf_perr(p, COSA_ESYNTAX, line,
                        "%s[%zu,%zu] of subsystem '%s' is outside the %zux%zu block (%s)",
                        mf_blk_name[k], i, j, s->name, r, c, blk_shape[k]);
            return;
        }
        size_t idx = (i - 1) + (j - 1) * r;
        if (b->set[idx]) {
            mf_perr(p, COSA_ESYNTAX, line, "%s[%zu,%zu] of subsystem '%s' is assigned twice",
                    mf_blk_name[k], i, j, s->name);
            return;
        }
        if (parse_expr(p, &b->e[idx], 1))
            return;
        b->set[idx] = 1;
        finish(p, NULL, "the entry");
        return;
    }
    if (expect(p, '=', "after the block name"))
        return;
    if (b->given) {
        mf_perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' given twice (first at line %zu)",
                mf_blk_name[k], s->name, b->line);
        return;
    }
    char what[MF_EXPR_MAXNAME + 32];
    snprintf(what, sizeof what, "%s of subsystem '%s'", mf_blk_name[k], s->name);
    if (p->s[p->pos] == '[') {
        size_t rr, cc;
        mf_expr *v = parse_matrix(p, what, &rr, &cc);
        if (!v) {
            if (p->st == COSA_OK)
                mf_nomem(p);
            return;
        }
        int ok = (rr == r && cc == c) || (rr == 0 && r * c == 0) ||
                 (k == BX0 && rr == 1 && cc == r);
        if (!ok) {
            mf_perr(p, COSA_ESYNTAX, line, "%s is %zux%zu, expected %zux%zu (%s)", what, rr, cc, r,
                    c, blk_shape[k]);
            free(v);
            return;
        }
        if (mf_alloc_block(b, r, c, 0) != COSA_OK) {
            free(v);
            return mf_nomem(p);
        }
        for (size_t i = 0; i < r; i++)
            for (size_t j = 0; j < c; j++)
                b->e[i + j * r] = v[k == BX0 && rr == 1 ? i : i * c + j];
        free(v);
        b->given = 1;
        b->line = line;
        finish(p, NULL, "the matrix");
        return;
    }
    size_t w0 = p->pos;
    while (mf_ident_char(p->s[p->pos]))
        p->pos++;
    size_t wl = p->pos - w0;
    int zeros = wl == 5 && memcmp(p->s + w0, "zeros", 5) == 0;
    int eye = wl == 3 && memcmp(p->s + w0, "eye", 3) == 0 && k != BX0;
    if (!zeros && !eye) {
        mf_perr(p, COSA_ESYNTAX, line, "expected '[', 'zeros'%s after '%s =', found %s",
                k == BX0 ? "" : " or 'eye'", mf_blk_name[k], describe(p->s + w0, buf));
        return;
    }
    if (mf_alloc_block(b, r, c, 1) != COSA_OK)
        return mf_nomem(p);
    if (eye)
        for (size_t i = 0; i < r && i < c; i++)
            b->e[i + i * r].value = 1.0;
    b->given = 2;
    b->line = line;
    finish(p, NULL, zeros ? "'zeros'" : "'eye'");
}

static void st_end(struct mf_parser *p)
{
    struct mf_sub *s = p->cur;
    for (int d = 0; d < 3; d++)
        if (!s->decl_line[d]) {
            mf_perr(p, COSA_ESYNTAX, p->line, "subsystem '%s' has no '%s' line (write '%s' alone "
                    "for none)", s->name, decl_name[d], decl_name[d]);
            return;
        }
    for (int k = 0; k < BX0; k++) {
        size_t r, c;
        mf_block_dims(s, k, &r, &c);
        if (!s->b[k].given && r * c > 0) {
            mf_perr(p, COSA_ESYNTAX, p->line, "subsystem '%s' has no block %s (%zux%zu, %s)",
                    s->name, mf_blk_name[k], r, c, blk_shape[k]);
            return;
        }
    }
    p->cur = NULL;
    finish(p, NULL, "'end'");
}

/* NAME '.' NAME */
static int port(struct mf_parser *p, char **sub, char **name, const char *what)
{
    *sub = ident(p, "a subsystem name");
    if (!*sub)
        return -1;
    if (p->s[p->pos] != '.') {
        char buf[16];
        mf_perr(p, COSA_ESYNTAX, p->line, "expected '.' between subsystem and %s name "
                "(SUBSYSTEM.%s), found %s", what, what, describe(p->s + p->pos, buf));
        free(*sub);
        return -1;
    }
    p->pos++;
    *name = ident(p, what);
    if (!*name) {
        free(*sub);
        return -1;
    }
    return 0;
}

/* connect clock S.OUTCLOCK -> T.INCLOCK [, U.INCLOCK ...] (checked against
 * the FMUs by mf_resolve_clocks) */
static void st_connect_clock(struct mf_parser *p)
{
    char buf[16];
    char *src, *out;
    skip_blanks(p);
    if (port(p, &src, &out, "clock"))
        return;
    skip_blanks(p);
    if (p->s[p->pos] != '-' || p->s[p->pos + 1] != '>') {
        mf_perr(p, COSA_ESYNTAX, p->line, "connect clock: expected '->' after %s.%s, found %s",
                src, out, describe(p->s + p->pos, buf));
        free(src);
        free(out);
        return;
    }
    p->pos += 2;
    for (;;) {
        char *dst, *in;
        skip_blanks(p);
        if (port(p, &dst, &in, "clock"))
            break;
        char *s2 = mf_dup0(src), *o2 = mf_dup0(out);
        if (!s2 || !o2) {
            free(s2);
            free(o2);
            free(dst);
            free(in);
            mf_nomem(p);
            break;
        }
        if (mf_clock_link_add(p->mf, s2, o2, dst, in, p->line) != COSA_OK) {
            mf_nomem(p);
            break;
        }
        skip_blanks(p);
        if (p->s[p->pos] != ',')
            break;
        p->pos++;
    }
    free(src);
    free(out);
    if (p->st == COSA_OK)
        finish(p, NULL, "the clock connection");
}

/* connect SUB.OUT -> SUB.IN [, SUB.IN ...], or connect clock ... */
static void st_connect(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    char buf[16];
    char *src, *out;
    skip_blanks(p);
    /* `clock` followed by a blank: a subsystem called clock is `clock.OUT` */
    if (strncmp(p->s + p->pos, "clock", 5) == 0 &&
        (p->s[p->pos + 5] == ' ' || p->s[p->pos + 5] == '\t')) {
        p->pos += 5;
        return st_connect_clock(p);
    }
    if (port(p, &src, &out, "output"))
        return;
    skip_blanks(p);
    if (p->s[p->pos] != '-' || p->s[p->pos + 1] != '>') {
        mf_perr(p, COSA_ESYNTAX, p->line, "expected '->' after %s.%s, found %s", src, out,
                describe(p->s + p->pos, buf));
        free(src);
        free(out);
        return;
    }
    p->pos += 2;
    for (;;) {
        char *dst, *in;
        skip_blanks(p);
        if (port(p, &dst, &in, "input"))
            break;
        char *s2 = mf_dup0(src), *o2 = mf_dup0(out);
        if (!s2 || !o2 || grow(&mf->conns, &mf->capconn, mf->nconn, sizeof *mf->conns)) {
            free(s2);
            free(o2);
            free(dst);
            free(in);
            mf_nomem(p);
            break;
        }
        mf->conns[mf->nconn++] = (struct mf_conn){s2, o2, dst, in, p->line, 1.0, 0, 0.0};
        skip_blanks(p);
        if (p->s[p->pos] == '*') { /* T.IN * FACTOR: u = FACTOR y (L's entry) */
            mf_expr e;
            p->pos++;
            skip_blanks(p);
            if (parse_expr(p, &e, 0))
                break;
            if (!(e.value != 0.0 && e.value - e.value == 0.0)) {
                mf_perr(p, COSA_ERANGE, p->line, "connect: the factor of %s.%s must be finite "
                        "and not 0 (got %g)", dst, in, e.value);
                break;
            }
            mf->conns[mf->nconn - 1].gain = e.value;
            skip_blanks(p);
        }
        /* T.IN [* FACTOR] offset OFFSET: u = FACTOR y + OFFSET (c's entry) */
        if (strncmp(p->s + p->pos, "offset", 6) == 0 &&
            (p->s[p->pos + 6] == ' ' || p->s[p->pos + 6] == '\t')) {
            mf_expr e;
            p->pos += 6;
            skip_blanks(p);
            if (parse_expr(p, &e, 0))
                break;
            if (e.value - e.value != 0.0) {
                mf_perr(p, COSA_ERANGE, p->line, "connect: the offset of %s.%s must be finite "
                        "(got %g)", dst, in, e.value);
                break;
            }
            mf->conns[mf->nconn - 1].offset = e.value;
            skip_blanks(p);
        }
        if (p->s[p->pos] != ',')
            break;
        p->pos++;
    }
    free(src);
    free(out);
    if (p->st == COSA_OK)
        finish(p, NULL, "the connection");
}

/* hold SUB.IN = VALUE: the input held at VALUE for the whole run (u = c, no
 * source; modelfile_hold.c) */
static void st_hold(struct mf_parser *p)
{
    char *dst, *in;
    mf_expr e;
    skip_blanks(p);
    if (port(p, &dst, &in, "input"))
        return;
    if (expect(p, '=', "after the held input") || parse_expr(p, &e, 0)) {
        free(dst);
        free(in);
        return;
    }
    if (e.value - e.value != 0.0) {
        mf_perr(p, COSA_ERANGE, p->line, "hold: the value of %s.%s must be finite (got %g)",
                dst, in, e.value);
        free(dst);
        free(in);
        return;
    }
    if (mf_hold_find(p->mf, dst, in) >= 0) {
        mf_perr(p, COSA_ESYNTAX, p->line, "hold: input %s.%s is held twice (line %zu)", dst, in,
                p->mf->holds[mf_hold_find(p->mf, dst, in)].line);
        free(dst);
        free(in);
        return;
    }
    if (mf_hold_add(p->mf, dst, in, p->line, e.value, MF_HOLD_FILE) != COSA_OK)
        return mf_nomem(p);
    finish(p, NULL, "the held input");
}

/* energy = [ ... ]: the system's energy as a quadratic form of the stacked
 * states (energy paper; checked against nx when the file is resolved) */
static void st_energy(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    size_t line = p->line;
    if (expect(p, '=', "after 'energy'"))
        return;
    if (mf->W) {
        mf_perr(p, COSA_ESYNTAX, line, "energy given twice (first at line %zu)", mf->W_line);
        return;
    }
    skip_blanks(p);
    if (p->s[p->pos] != '[') {
        char buf[16];
        mf_perr(p, COSA_ESYNTAX, line, "energy: expected '[' (the matrix W of E = x' W x over "
                "all states), found %s", describe(p->s + p->pos, buf));
        return;
    }
    mf_expr *v = parse_matrix(p, "energy", &mf->W_r, &mf->W_c);
    if (!v) {
        if (p->st == COSA_OK)
            mf_nomem(p);
        return;
    }
    mf->W = v;
    mf->W_line = line;
    finish(p, NULL, "the energy matrix");
}

/* bond SUB.F[, SUB.F...] -> SUB.V[, SUB.V...] */
static void st_bond(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    char buf[16];
    size_t line = p->line;
    char *names[2][8];
    size_t n[2] = {0, 0};
    for (int side = 0; side < 2 && p->st == COSA_OK; side++) {
        for (;;) {
            char *sub, *out;
            skip_blanks(p);
            if (port(p, &sub, &out, "output"))
                break;
            if (n[side] == 8) {
                mf_perr(p, COSA_ESYNTAX, line, "bond: at most 8 components");
                free(sub);
                free(out);
                break;
            }
            char *q = malloc(strlen(sub) + strlen(out) + 2);
            if (q)
                sprintf(q, "%s.%s", sub, out);
            free(sub);
            free(out);
            if (!q) {
                mf_nomem(p);
                break;
            }
            names[side][n[side]++] = q;
            skip_blanks(p);
            if (p->s[p->pos] != ',')
                break;
            p->pos++;
        }
        if (p->st != COSA_OK)
            break;
        skip_blanks(p);
        if (side == 0) {
            if (p->s[p->pos] != '-' || p->s[p->pos + 1] != '>') {
                mf_perr(p, COSA_ESYNTAX, line, "bond: expected '->' between the forces and the "
                        "velocities, found %s", describe(p->s + p->pos, buf));
                break;
            }
            p->pos += 2;
        }
    }
    if (p->st == COSA_OK && n[0] != n[1])
        mf_perr(p, COSA_ESYNTAX, line, "bond: %zu force components but %zu velocities", n[0],
                n[1]);
    if (p->st == COSA_OK &&
        (mf->nbond == mf->capbond &&
         !(mf->bonds = realloc(mf->bonds, (mf->capbond = mf->capbond ? 2 * mf->capbond : 4) *
                                              sizeof *mf->bonds))))
        mf_nomem(p);
    if (p->st != COSA_OK) {
        for (int side = 0; side < 2; side++)
            for (size_t k = 0; k < n[side]; k++)
                free(names[side][k]);
        return;
    }
    struct mf_bond *b = &mf->bonds[mf->nbond];
    b->force = malloc(n[0] * sizeof *b->force);
    b->vel = malloc(n[0] * sizeof *b->vel);
    if (!b->force || !b->vel) {
        free(b->force);
        free(b->vel);
        for (int side = 0; side < 2; side++)
            for (size_t k = 0; k < n[side]; k++)
                free(names[side][k]);
        return mf_nomem(p);
    }
    memcpy(b->force, names[0], n[0] * sizeof *b->force);
    memcpy(b->vel, names[1], n[0] * sizeof *b->vel);
    b->dim = n[0];
    b->line = line;
    mf->nbond++;
    finish(p, NULL, "the bond");
}

void mf_statement(struct mf_parser *p)
{
    char buf[16];
    skip_blanks(p);
    char c = p->s[p->pos];
    if (c == '\n') {
        p->pos++;
        p->line++;
        return;
    }
    if (c == '#') {
        skip_comment(p);
        return;
    }
    if (c == '\0')
        return;
    p->last_line = p->line;
    size_t b = p->pos;
    while (mf_ident_char(p->s[p->pos]))
        p->pos++;
    size_t n = p->pos - b;
    if (n == 0) {
        mf_perr(p, COSA_ESYNTAX, p->line, "unexpected %s at the start of a statement",
                describe(p->s + b, buf));
        return;
    }
    const char *w = p->s + b;
#define IS(kw) (n == sizeof(kw) - 1 && memcmp(w, kw, n) == 0)
    static const char *const top_only[] = {"model", "tend", "param", "initial", "let",
                                           "subsystem", "connect", "fmu", "bond", "energy",
                                           "hold"};
    if (p->cur) {
        if (IS("states"))
            return st_names(p, DECL_X);
        if (IS("inputs"))
            return st_names(p, DECL_U);
        if (IS("outputs"))
            return st_names(p, DECL_Y);
        for (int k = 0; k < NBLK; k++)
            if (n == strlen(mf_blk_name[k]) && memcmp(w, mf_blk_name[k], n) == 0)
                return st_block(p, k);
        if (IS("end"))
            return st_end(p);
        for (size_t i = 0; i < sizeof top_only / sizeof *top_only; i++)
            if (n == strlen(top_only[i]) && memcmp(w, top_only[i], n) == 0) {
                mf_perr(p, COSA_ESYNTAX, p->line, "'%s' inside subsystem '%s' (line %zu): "
                        "missing 'end'?", top_only[i], p->cur->name, p->cur->line);
                return;
            }
        mf_perr(p, COSA_ESYNTAX, p->line, "unknown statement '%.*s' in subsystem '%s' (expected "
                "states, inputs, outputs, A, B, C, D, x0 or end)", (int)(n > 40 ? 40 : n), w,
                p->cur->name);
        return;
    }
    if (IS("model"))
        return st_model(p);
    if (IS("tend"))
        return st_tend(p);
    if (IS("param"))
        return st_param(p, COSA_PARAM_MODEL);
    if (IS("initial"))
        return st_param(p, COSA_PARAM_INITIAL);
    if (IS("let"))
        return st_let(p);
    if (IS("subsystem"))
        return st_subsystem(p);
    if (IS("connect"))
        return st_connect(p);
    if (IS("fmu"))
        return st_fmu(p);
    if (IS("bond"))
        return st_bond(p);
    if (IS("energy"))
        return st_energy(p);
    if (IS("hold"))
        return st_hold(p);
    if (IS("states") || IS("inputs") || IS("outputs") || IS("end") || IS("A") || IS("B") ||
        IS("C") || IS("D") || IS("x0")) {
        mf_perr(p, COSA_ESYNTAX, p->line, "'%.*s' outside a subsystem (missing 'subsystem NAME'?)",
                (int)n, w);
        return;
    }
    mf_perr(p, COSA_ESYNTAX, p->line, "unknown statement '%.*s' (expected model, tend, param, "
            "initial, let, subsystem, fmu, connect, hold, bond or energy)", (int)(n > 40 ? 40 : n), w);
#undef IS
}
