/* modelfile.c -- plain-text model files: N linear subsystems whose matrix
 * entries are expressions of named parameters, and the connections that
 * define the coupling matrix L (u = L y, eq 4).  The format is documented in
 * README ("Model files"); in short:
 *
 *   model NAME                       # doc
 *   tend 0.3
 *   param   NAME = VALUE [unit]      # doc        (COSA_PARAM_MODEL)
 *   initial NAME = VALUE [unit]      # doc        (COSA_PARAM_INITIAL)
 *   let     NAME = EXPR                           (derived quantity)
 *   subsystem NAME
 *     states  n1 n2 ...   inputs ...   outputs ...
 *     A = [ e, e ; e, e ]  |  A = zeros  |  A = eye      (also B, C, D, x0)
 *     A[i,j] = EXPR        (1-based, after A = zeros|eye)
 *   end
 *   connect SUB.OUTPUT -> SUB.INPUT [, SUB.INPUT ...]
 *
 * Loading yields a cosa_model whose data is the parsed description; the
 * expressions are compiled once (expr.c) and re-evaluated per create/update.
 * cosa_model_dump writes any model back as such a file and verifies the
 * round trip bit for bit before writing. */
#define _POSIX_C_SOURCE 200809L
#include "cosa.h"
#include "expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MF_MAXENTRIES 10000000u /* entries of one block (memory guard)  */
#define MF_MAXNAMES 100000u     /* names in one states/inputs/outputs line */
#define MF_MAXFILE (256u << 20) /* bytes of a model file                 */

enum blk { BA, BB, BC, BD, BX0, NBLK };
static const char *const blk_name[NBLK] = {"A", "B", "C", "D", "x0"};
static const char *const blk_shape[NBLK] = {"states x states", "states x inputs",
                                            "outputs x states", "outputs x inputs",
                                            "states"};
enum { DECL_X, DECL_U, DECL_Y };
static const char *const decl_name[3] = {"states", "inputs", "outputs"};

struct mf_block {
    int given;          /* 0 missing, 1 full matrix, 2 zeros/eye base   */
    size_t line;
    cosa_expr *e;       /* rows x cols, column-major                     */
    unsigned char *set; /* base form: entries assigned by A[i,j] = ...  */
};

struct mf_sub {
    char *name;
    size_t line;
    size_t n[3];        /* nx, nu, ny                                    */
    char **names[3];
    size_t decl_line[3];/* 0 = not declared                              */
    struct mf_block b[NBLK];
    size_t ox, ou, oy;
};

struct mf_conn {
    char *src, *out, *dst, *in;
    size_t line;
};

struct mf_sym {
    char *name;
    size_t line; /* first use */
};

struct mf_let {
    char *name;
    cosa_expr e;
    size_t line;
};

typedef struct mf {
    cosa_model model; /* model.data == this */
    char *name, *doc;
    cosa_param *params;
    size_t nparam, capparam;
    size_t *param_line;
    struct mf_let *lets;
    size_t nlet, caplet;
    struct mf_sub *subs;
    size_t nsub, capsub;
    struct mf_conn *conns;
    size_t nconn, capconn;
    struct mf_sym *syms;
    size_t nsym, capsym;
    cosa_expr_pool *pool;
    size_t nx, nu, ny;
    double *L;         /* nu x ny, column-major */
    char **uq;         /* qualified input names "SUB.IN" (nu)  */
    const char **xg;   /* state names (nx), views              */
    const char **yg;   /* output names (ny), views             */
    size_t blkmax;     /* largest A+B+C+D entry count of one subsystem */
    double tend;
} mf_t;

static cosa_status mf_create(const cosa_model *m, const double *par, cosa_system **out);
static cosa_status mf_update(const cosa_model *m, const double *par, cosa_system *sys);
static cosa_status mf_initial_state(const cosa_model *m, const double *par, double *x0);
static const char *mf_state_name(const cosa_model *m, const double *par, size_t k);
static const char *mf_input_name(const cosa_model *m, const double *par, size_t k);
static const char *mf_output_name(const cosa_model *m, const double *par, size_t k);
static const char *mf_sub_name(const cosa_model *m, const double *par, size_t k);

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dup0(const char *s) { return dupn(s, strlen(s)); }

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

static void block_dims(const struct mf_sub *s, int k, size_t *r, size_t *c)
{
    size_t nx = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    switch (k) {
    case BA: *r = nx; *c = nx; break;
    case BB: *r = nx; *c = nu; break;
    case BC: *r = ny; *c = nx; break;
    case BD: *r = ny; *c = nu; break;
    default: *r = nx; *c = 1; break;
    }
}

static void mf_free(mf_t *mf)
{
    if (!mf)
        return;
    free(mf->name);
    free(mf->doc);
    for (size_t i = 0; i < mf->nparam; i++) {
        free((char *)mf->params[i].name);
        free((char *)mf->params[i].unit);
        free((char *)mf->params[i].doc);
    }
    free(mf->params);
    free(mf->param_line);
    for (size_t i = 0; i < mf->nlet; i++)
        free(mf->lets[i].name);
    free(mf->lets);
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        free(s->name);
        for (int d = 0; d < 3; d++) {
            for (size_t j = 0; j < s->n[d] && s->names[d]; j++)
                free(s->names[d][j]);
            free(s->names[d]);
        }
        for (int k = 0; k < NBLK; k++) {
            free(s->b[k].e);
            free(s->b[k].set);
        }
    }
    free(mf->subs);
    for (size_t i = 0; i < mf->nconn; i++) {
        free(mf->conns[i].src);
        free(mf->conns[i].out);
        free(mf->conns[i].dst);
        free(mf->conns[i].in);
    }
    free(mf->conns);
    for (size_t i = 0; i < mf->nsym; i++)
        free(mf->syms[i].name);
    free(mf->syms);
    cosa_expr_pool_free(mf->pool);
    free(mf->L);
    if (mf->uq)
        for (size_t i = 0; i < mf->nu; i++)
            free(mf->uq[i]);
    free(mf->uq);
    free(mf->xg);
    free(mf->yg);
    free(mf);
}

/* The destroy slot of a file model. */
static void mf_destroy(cosa_model *m) { mf_free((mf_t *)m->data); }

/* ------------------------------------------------------------------------ */
/* Parser                                                                   */
/* ------------------------------------------------------------------------ */

struct parser {
    mf_t *mf;
    const char *s; /* NUL-terminated copy of the text */
    size_t pos, line;
    const char *fname;
    char *err;
    size_t errsize;
    cosa_status st;
    struct mf_sub *cur; /* open subsystem or NULL */
    size_t model_line, tend_line;
    size_t last_line;   /* line of the last statement (for end-of-file errors) */
};

static void perr(struct parser *p, cosa_status st, size_t line, const char *fmt, ...)
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

static void nomem(struct parser *p) { perr(p, COSA_ENOMEM, p->line, "out of memory"); }

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

static void skip_blanks(struct parser *p)
{
    while (is_blank(p->s[p->pos]))
        p->pos++;
}

static void skip_comment(struct parser *p)
{
    while (p->s[p->pos] && p->s[p->pos] != '\n')
        p->pos++;
}

/* Blanks, newlines and comments (continuation after ',' in a matrix). */
static void skip_space(struct parser *p)
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
static void finish(struct parser *p, char **doc, const char *what)
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
            *doc = dupn(p->s + b, e - b);
            if (!*doc)
                return nomem(p);
            for (char *c = *doc; *c; c++)
                if ((unsigned char)*c < 0x20)
                    *c = ' ';
        }
    }
    if (p->s[p->pos] == '\n') {
        p->pos++;
        p->line++;
    } else if (p->s[p->pos] != '\0') {
        perr(p, COSA_ESYNTAX, p->line, "unexpected %s after %s", describe(p->s + p->pos, buf),
             what);
    }
}

static int ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Read an identifier into a new string; what names it in messages. */
static char *ident(struct parser *p, const char *what)
{
    char buf[16];
    const char *s = p->s;
    size_t b = p->pos, e = b;
    if (!ident_start(s[b])) {
        perr(p, COSA_ESYNTAX, p->line, "expected %s (a name: letter or '_', then letters, "
             "digits, '_'), found %s", what, describe(s + b, buf));
        return NULL;
    }
    while (ident_char(s[e]))
        e++;
    if (e - b > COSA_EXPR_MAXNAME) {
        perr(p, COSA_ESYNTAX, p->line, "%s '%.20s...' is longer than %d characters", what,
             s + b, COSA_EXPR_MAXNAME);
        return NULL;
    }
    p->pos = e;
    char *r = dupn(s + b, e - b);
    if (!r)
        nomem(p);
    return r;
}

static int expect(struct parser *p, char c, const char *context)
{
    char buf[16];
    skip_blanks(p);
    if (p->s[p->pos] != c) {
        perr(p, COSA_ESYNTAX, p->line, "expected '%c' %s, found %s", c, context,
             describe(p->s + p->pos, buf));
        return -1;
    }
    p->pos++;
    skip_blanks(p);
    return 0;
}

static long sym_lookup(void *ctx, const char *name, size_t len, size_t line)
{
    struct parser *p = ctx;
    mf_t *mf = p->mf;
    for (size_t i = 0; i < mf->nsym; i++)
        if (strlen(mf->syms[i].name) == len && memcmp(mf->syms[i].name, name, len) == 0)
            return (long)i;
    if (grow(&mf->syms, &mf->capsym, mf->nsym, sizeof *mf->syms))
        return -1;
    char *d = dupn(name, len);
    if (!d)
        return -1;
    mf->syms[mf->nsym] = (struct mf_sym){d, line};
    return (long)mf->nsym++;
}

static int parse_expr(struct parser *p, cosa_expr *e, int names)
{
    char msg[200];
    size_t line = p->line;
    cosa_status st = cosa_expr_compile(p->mf->pool, p->s, &p->pos, &line,
                                       names ? sym_lookup : NULL, p, e, msg, sizeof msg);
    if (st != COSA_OK) {
        perr(p, st, line, "%s", msg);
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

/* param|initial NAME = CONST [unit]  # doc */
static void st_param(struct parser *p, cosa_param_kind kind)
{
    mf_t *mf = p->mf;
    char buf[16];
    size_t line = p->line;
    skip_blanks(p);
    char *name = ident(p, "a parameter name");
    if (!name)
        return;
    int prev = name_taken(mf, name);
    if (prev) {
        perr(p, COSA_ESYNTAX, line, "'%s' is already defined (line %d)", name, prev);
        free(name);
        return;
    }
    cosa_expr e;
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
            perr(p, COSA_ESYNTAX, p->line, "unit of '%s': expected ']', found %s", name,
                 describe(p->s + p->pos, buf));
            free(name);
            return;
        }
        size_t e2 = p->pos++;
        while (b < e2 && is_blank(p->s[b]))
            b++;
        while (e2 > b && is_blank(p->s[e2 - 1]))
            e2--;
        unit = dupn(p->s + b, e2 - b);
    } else {
        unit = dup0("");
    }
    finish(p, &doc, "the parameter");
    if (!doc)
        doc = dup0("");
    if (p->st != COSA_OK || !unit || !doc ||
        grow(&mf->params, &mf->capparam, mf->nparam, sizeof *mf->params)) {
        if (p->st == COSA_OK)
            nomem(p);
        free(name);
        free(unit);
        free(doc);
        return;
    }
    size_t *pl = realloc(mf->param_line, mf->capparam * sizeof *pl);
    if (!pl) {
        nomem(p);
        free(name);
        free(unit);
        free(doc);
        return;
    }
    mf->param_line = pl;
    mf->params[mf->nparam] = (cosa_param){name, e.value, unit, doc, kind};
    mf->param_line[mf->nparam++] = line;
}

/* let NAME = EXPR */
static void st_let(struct parser *p)
{
    mf_t *mf = p->mf;
    size_t line = p->line;
    skip_blanks(p);
    char *name = ident(p, "a name");
    if (!name)
        return;
    int prev = name_taken(mf, name);
    if (prev) {
        perr(p, COSA_ESYNTAX, line, "'%s' is already defined (line %d)", name, prev);
        free(name);
        return;
    }
    cosa_expr e;
    if (expect(p, '=', "after the name") || parse_expr(p, &e, 1)) {
        free(name);
        return;
    }
    finish(p, NULL, "the expression");
    if (p->st != COSA_OK || grow(&mf->lets, &mf->caplet, mf->nlet, sizeof *mf->lets)) {
        if (p->st == COSA_OK)
            nomem(p);
        free(name);
        return;
    }
    mf->lets[mf->nlet++] = (struct mf_let){name, e, line};
}

static void st_model(struct parser *p)
{
    char buf[16];
    if (p->model_line) {
        perr(p, COSA_ESYNTAX, p->line, "second 'model' line (first at line %zu)", p->model_line);
        return;
    }
    p->model_line = p->line;
    skip_blanks(p);
    size_t b = p->pos, e = b;
    while (ident_char(p->s[e]) || p->s[e] == '-' || p->s[e] == '.' || p->s[e] == '+')
        e++;
    if (e == b || e - b > COSA_EXPR_MAXNAME) {
        perr(p, COSA_ESYNTAX, p->line, "expected a model name (letters, digits, '_', '-', "
             "'.', '+'; at most %d), found %s", COSA_EXPR_MAXNAME, describe(p->s + b, buf));
        return;
    }
    p->pos = e;
    free(p->mf->name);
    p->mf->name = dupn(p->s + b, e - b);
    if (!p->mf->name)
        return nomem(p);
    finish(p, &p->mf->doc, "the model name");
}

static void st_tend(struct parser *p)
{
    if (p->tend_line) {
        perr(p, COSA_ESYNTAX, p->line, "second 'tend' line (first at line %zu)", p->tend_line);
        return;
    }
    p->tend_line = p->line;
    cosa_expr e;
    skip_blanks(p);
    if (parse_expr(p, &e, 0))
        return;
    if (!(e.value > 0.0)) {
        perr(p, COSA_ERANGE, p->tend_line, "tend must be positive (got %g)", e.value);
        return;
    }
    p->mf->tend = e.value;
    finish(p, NULL, "tend");
}

static void st_subsystem(struct parser *p)
{
    mf_t *mf = p->mf;
    size_t line = p->line;
    skip_blanks(p);
    char *name = ident(p, "a subsystem name");
    if (!name)
        return;
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0) {
            perr(p, COSA_ESYNTAX, line, "subsystem '%s' is already defined (line %zu)", name,
                 mf->subs[i].line);
            free(name);
            return;
        }
    if (grow(&mf->subs, &mf->capsub, mf->nsub, sizeof *mf->subs)) {
        free(name);
        return nomem(p);
    }
    struct mf_sub *s = &mf->subs[mf->nsub++];
    memset(s, 0, sizeof *s);
    s->name = name;
    s->line = line;
    p->cur = s;
    finish(p, NULL, "the subsystem name");
}

/* states|inputs|outputs NAME ... (blanks or commas between names) */
static void st_names(struct parser *p, int d)
{
    struct mf_sub *s = p->cur;
    if (s->decl_line[d]) {
        perr(p, COSA_ESYNTAX, p->line, "second '%s' line in subsystem '%s' (first at line %zu)",
             decl_name[d], s->name, s->decl_line[d]);
        return;
    }
    for (int k = 0; k < NBLK; k++)
        if (s->b[k].given) {
            perr(p, COSA_ESYNTAX, p->line, "'%s' after block %s (line %zu): declare states, "
                 "inputs and outputs first", decl_name[d], blk_name[k], s->b[k].line);
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
                perr(p, COSA_ESYNTAX, p->line, "'%s' appears twice among the %s of '%s'", n,
                     decl_name[d], s->name);
                free(n);
                return;
            }
        if (s->n[d] >= MF_MAXNAMES) {
            perr(p, COSA_ESYNTAX, p->line, "more than %u %s", MF_MAXNAMES, decl_name[d]);
            free(n);
            return;
        }
        if (grow(&s->names[d], &cap, s->n[d], sizeof(char *))) {
            free(n);
            return nomem(p);
        }
        s->names[d][s->n[d]++] = n;
    }
    finish(p, NULL, decl_name[d]);
}

/* Full matrix "[ e, e ; e, e ]" (rows separated by ';' or newlines) into a
 * new row-major array. */
static cosa_expr *parse_matrix(struct parser *p, const char *what, size_t *rows, size_t *cols)
{
    char buf[16];
    size_t open_line = p->line, n = 0, cap = 0, nrow = 0, ncol = 0, cur = 0, row_line = 0;
    cosa_expr *v = NULL;
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
                    perr(p, COSA_ESYNTAX, row_line, "row %zu of %s has %zu entries, row 1 has %zu",
                         nrow + 1, what, cur, ncol);
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
            perr(p, COSA_ESYNTAX, p->line, "end of file inside the matrix %s (opened at line %zu)",
                 what, open_line);
            break;
        }
        if (c == ',') {
            perr(p, COSA_ESYNTAX, p->line, "empty entry in %s", what);
            break;
        }
        if (cur == 0)
            row_line = p->line;
        if (n >= MF_MAXENTRIES) {
            perr(p, COSA_ESYNTAX, p->line, "%s has more than %u entries", what, MF_MAXENTRIES);
            break;
        }
        if (grow(&v, &cap, n, sizeof *v)) {
            nomem(p);
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
                perr(p, COSA_ESYNTAX, p->line, "expected an entry of %s after ',', found %s",
                     what, describe(p->s + p->pos, buf));
                break;
            }
        } else if (c != '\n' && c != ';' && c != ']' && c != '#' && c != '\0') {
            perr(p, COSA_ESYNTAX, p->line,
                 "expected ',', ';', a new line or ']' after an entry of %s, found %s", what,
                 describe(p->s + p->pos, buf));
            break;
        }
    }
    free(v);
    return NULL;
}

static int read_index(struct parser *p, size_t *v, const char *what)
{
    char buf[16];
    skip_blanks(p);
    size_t b = p->pos, x = 0;
    while (isdigit((unsigned char)p->s[p->pos]) && p->pos - b < 9)
        x = 10 * x + (size_t)(p->s[p->pos++] - '0');
    if (p->pos == b || isdigit((unsigned char)p->s[p->pos])) {
        perr(p, COSA_ESYNTAX, p->line, "expected a %s number (1, 2, ...), found %s", what,
             describe(p->s + b, buf));
        return -1;
    }
    *v = x;
    skip_blanks(p);
    return 0;
}

static cosa_status alloc_block(struct mf_block *b, size_t r, size_t c, int base)
{
    size_t n = r * c;
    b->e = calloc(n ? n : 1, sizeof *b->e);
    if (base)
        b->set = calloc(n ? n : 1, 1);
    return b->e && (!base || b->set) ? COSA_OK : COSA_ENOMEM;
}

/* A = [..] | A = zeros | A = eye | A[i,j] = EXPR | x0[i] = EXPR */
static void st_block(struct parser *p, int k)
{
    char buf[16];
    struct mf_sub *s = p->cur;
    struct mf_block *b = &s->b[k];
    size_t line = p->line, r, c;
    for (int d = 0; d < 3; d++)
        if (!s->decl_line[d]) {
            perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' before its '%s' line "
                 "(declare states, inputs and outputs first)", blk_name[k], s->name, decl_name[d]);
            return;
        }
    block_dims(s, k, &r, &c);
    if (r > 0 && c > MF_MAXENTRIES / r) {
        perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' (%zux%zu) is too large",
             blk_name[k], s->name, r, c);
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
            perr(p, COSA_ESYNTAX, line, "%s[...] of subsystem '%s' before '%s = zeros'%s",
                 blk_name[k], s->name, blk_name[k], k == BX0 ? "" : " or '= eye'");
            return;
        }
        if (b->given == 1) {
            perr(p, COSA_ESYNTAX, line, "%s of subsystem '%s' is a full matrix (line %zu); "
                 "single entries need '%s = zeros'", blk_name[k], s->name, b->line, blk_name[k]);
            return;
        }
        if (i < 1 || i > r || j < 1 || j > c) {
            if (k == BX0)
                perr(p, COSA_ESYNTAX, line, "x0[%zu] of subsystem '%s': index outside 1..%zu", i,
                     s->name, r);
            else
                perr(p, COSA_ESYNTAX, line, "%s[%zu,%zu] of subsystem '%s' is outside the %zux%zu "
                     "block (%s)", blk_name[k], i, j, s->name, r, c, blk_shape[k]);
            return;
        }
        size_t idx = (i - 1) + (j - 1) * r;
        if (b->set[idx]) {
            perr(p, COSA_ESYNTAX, line, "%s[%zu,%zu] of subsystem '%s' is assigned twice",
                 blk_name[k], i, j, s->name);
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
        perr(p, COSA_ESYNTAX, line, "block %s of subsystem '%s' given twice (first at line %zu)",
             blk_name[k], s->name, b->line);
        return;
    }
    char what[COSA_EXPR_MAXNAME + 32];
    snprintf(what, sizeof what, "%s of subsystem '%s'", blk_name[k], s->name);
    if (p->s[p->pos] == '[') {
        size_t rr, cc;
        cosa_expr *v = parse_matrix(p, what, &rr, &cc);
        if (!v) {
            if (p->st == COSA_OK)
                nomem(p);
            return;
        }
        int ok = (rr == r && cc == c) || (rr == 0 && r * c == 0) ||
                 (k == BX0 && rr == 1 && cc == r);
        if (!ok) {
            perr(p, COSA_ESYNTAX, line, "%s is %zux%zu, expected %zux%zu (%s)", what, rr, cc, r,
                 c, blk_shape[k]);
            free(v);
            return;
        }
        if (alloc_block(b, r, c, 0) != COSA_OK) {
            free(v);
            return nomem(p);
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
    while (ident_char(p->s[p->pos]))
        p->pos++;
    size_t wl = p->pos - w0;
    int zeros = wl == 5 && memcmp(p->s + w0, "zeros", 5) == 0;
    int eye = wl == 3 && memcmp(p->s + w0, "eye", 3) == 0 && k != BX0;
    if (!zeros && !eye) {
        perr(p, COSA_ESYNTAX, line, "expected '[', 'zeros'%s after '%s =', found %s",
             k == BX0 ? "" : " or 'eye'", blk_name[k], describe(p->s + w0, buf));
        return;
    }
    if (alloc_block(b, r, c, 1) != COSA_OK)
        return nomem(p);
    if (eye)
        for (size_t i = 0; i < r && i < c; i++)
            b->e[i + i * r].value = 1.0;
    b->given = 2;
    b->line = line;
    finish(p, NULL, zeros ? "'zeros'" : "'eye'");
}

static void st_end(struct parser *p)
{
    struct mf_sub *s = p->cur;
    for (int d = 0; d < 3; d++)
        if (!s->decl_line[d]) {
            perr(p, COSA_ESYNTAX, p->line, "subsystem '%s' has no '%s' line (write '%s' alone "
                 "for none)", s->name, decl_name[d], decl_name[d]);
            return;
        }
    for (int k = 0; k < BX0; k++) {
        size_t r, c;
        block_dims(s, k, &r, &c);
        if (!s->b[k].given && r * c > 0) {
            perr(p, COSA_ESYNTAX, p->line, "subsystem '%s' has no block %s (%zux%zu, %s)",
                 s->name, blk_name[k], r, c, blk_shape[k]);
            return;
        }
    }
    p->cur = NULL;
    finish(p, NULL, "'end'");
}

/* NAME '.' NAME */
static int port(struct parser *p, char **sub, char **name, const char *what)
{
    *sub = ident(p, "a subsystem name");
    if (!*sub)
        return -1;
    if (p->s[p->pos] != '.') {
        char buf[16];
        perr(p, COSA_ESYNTAX, p->line, "expected '.' between subsystem and %s name "
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

/* connect SUB.OUT -> SUB.IN [, SUB.IN ...] */
static void st_connect(struct parser *p)
{
    mf_t *mf = p->mf;
    char buf[16];
    char *src, *out;
    skip_blanks(p);
    if (port(p, &src, &out, "output"))
        return;
    skip_blanks(p);
    if (p->s[p->pos] != '-' || p->s[p->pos + 1] != '>') {
        perr(p, COSA_ESYNTAX, p->line, "expected '->' after %s.%s, found %s", src, out,
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
        char *s2 = dup0(src), *o2 = dup0(out);
        if (!s2 || !o2 || grow(&mf->conns, &mf->capconn, mf->nconn, sizeof *mf->conns)) {
            free(s2);
            free(o2);
            free(dst);
            free(in);
            nomem(p);
            break;
        }
        mf->conns[mf->nconn++] = (struct mf_conn){s2, o2, dst, in, p->line};
        skip_blanks(p);
        if (p->s[p->pos] != ',')
            break;
        p->pos++;
    }
    free(src);
    free(out);
    if (p->st == COSA_OK)
        finish(p, NULL, "the connection");
}

static void statement(struct parser *p)
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
    while (ident_char(p->s[p->pos]))
        p->pos++;
    size_t n = p->pos - b;
    if (n == 0) {
        perr(p, COSA_ESYNTAX, p->line, "unexpected %s at the start of a statement",
             describe(p->s + b, buf));
        return;
    }
    const char *w = p->s + b;
#define IS(kw) (n == sizeof(kw) - 1 && memcmp(w, kw, n) == 0)
    static const char *const top_only[] = {"model", "tend", "param", "initial", "let",
                                           "subsystem", "connect"};
    if (p->cur) {
        if (IS("states"))
            return st_names(p, DECL_X);
        if (IS("inputs"))
            return st_names(p, DECL_U);
        if (IS("outputs"))
            return st_names(p, DECL_Y);
        for (int k = 0; k < NBLK; k++)
            if (n == strlen(blk_name[k]) && memcmp(w, blk_name[k], n) == 0)
                return st_block(p, k);
        if (IS("end"))
            return st_end(p);
        for (size_t i = 0; i < sizeof top_only / sizeof *top_only; i++)
            if (n == strlen(top_only[i]) && memcmp(w, top_only[i], n) == 0) {
                perr(p, COSA_ESYNTAX, p->line, "'%s' inside subsystem '%s' (line %zu): "
                     "missing 'end'?", top_only[i], p->cur->name, p->cur->line);
                return;
            }
        perr(p, COSA_ESYNTAX, p->line, "unknown statement '%.*s' in subsystem '%s' (expected "
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
    if (IS("states") || IS("inputs") || IS("outputs") || IS("end") || IS("A") || IS("B") ||
        IS("C") || IS("D") || IS("x0")) {
        perr(p, COSA_ESYNTAX, p->line, "'%.*s' outside a subsystem (missing 'subsystem NAME'?)",
             (int)n, w);
        return;
    }
    perr(p, COSA_ESYNTAX, p->line, "unknown statement '%.*s' (expected model, tend, param, "
         "initial, let, subsystem or connect)", (int)(n > 40 ? 40 : n), w);
#undef IS
}

/* ------------------------------------------------------------------------ */
/* Resolution after the whole text is read                                  */
/* ------------------------------------------------------------------------ */

static long find_name(char *const *names, size_t n, const char *x)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], x) == 0)
            return (long)i;
    return -1;
}

static struct mf_sub *find_sub(mf_t *mf, const char *name)
{
    for (size_t i = 0; i < mf->nsub; i++)
        if (strcmp(mf->subs[i].name, name) == 0)
            return &mf->subs[i];
    return NULL;
}

/* Parameter values followed by the let values (vals: nparam + nlet). */
static void eval_vals(const mf_t *mf, const double *par, double *vals)
{
    memcpy(vals, par, mf->nparam * sizeof *vals);
    for (size_t k = 0; k < mf->nlet; k++)
        vals[mf->nparam + k] = cosa_expr_eval(mf->pool, &mf->lets[k].e, vals);
}

static void resolve(struct parser *p)
{
    mf_t *mf = p->mf;
    size_t eof_line = p->last_line ? p->last_line : 1;
    if (p->cur) {
        perr(p, COSA_ESYNTAX, eof_line, "end of file inside subsystem '%s' (line %zu): "
             "missing 'end' (file truncated?)", p->cur->name, p->cur->line);
        return;
    }
    if (mf->nsub == 0) {
        perr(p, COSA_ESYNTAX, eof_line, "no subsystem defined (empty or truncated file?)");
        return;
    }
    /* names in expressions -> parameter / let slots */
    uint32_t *map = malloc((mf->nsym ? mf->nsym : 1) * sizeof *map);
    if (!map)
        return nomem(p);
    for (size_t i = 0; i < mf->nsym; i++) {
        const char *n = mf->syms[i].name;
        long slot = -1;
        for (size_t j = 0; j < mf->nparam && slot < 0; j++)
            if (strcmp(mf->params[j].name, n) == 0)
                slot = (long)j;
        for (size_t j = 0; j < mf->nlet && slot < 0; j++)
            if (strcmp(mf->lets[j].name, n) == 0)
                slot = (long)(mf->nparam + j);
        if (slot < 0) {
            perr(p, COSA_EPARAM, mf->syms[i].line, "unknown parameter '%s' (declare it with "
                 "'param %s = VALUE')", n, n);
            free(map);
            return;
        }
        map[i] = (uint32_t)slot;
    }
    cosa_status st = cosa_expr_pool_remap(mf->pool, map, mf->nsym);
    free(map);
    if (st != COSA_OK) {
        perr(p, st, eof_line, "internal error: unresolved name");
        return;
    }
    for (size_t k = 0; k < mf->nlet; k++) {
        long v = cosa_expr_max_var(mf->pool, &mf->lets[k].e);
        if (v >= (long)(mf->nparam + k)) {
            perr(p, COSA_ESYNTAX, mf->lets[k].line, "let '%s' uses '%s', which is not defined "
                 "before it", mf->lets[k].name, mf->lets[v - (long)mf->nparam].name);
            return;
        }
    }
    /* offsets, totals, global names */
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        s->ox = nx;
        s->ou = nu;
        s->oy = ny;
        nx += s->n[DECL_X];
        nu += s->n[DECL_U];
        ny += s->n[DECL_Y];
        size_t tot = 0;
        for (int k = 0; k < BX0; k++) {
            size_t r, c;
            block_dims(s, k, &r, &c);
            tot += r * c;
        }
        if (tot > mf->blkmax)
            mf->blkmax = tot;
        if (!s->b[BX0].given && alloc_block(&s->b[BX0], s->n[DECL_X], 1, 0) != COSA_OK)
            return nomem(p);
        for (int k = 0; k < BX0; k++)
            if (!s->b[k].e) {
                size_t r, c;
                block_dims(s, k, &r, &c);
                if (alloc_block(&s->b[k], r, c, 0) != COSA_OK)
                    return nomem(p);
            }
    }
    if (nx == 0) {
        perr(p, COSA_ESYNTAX, eof_line, "the model has no states");
        return;
    }
    if ((nu && ny > SIZE_MAX / sizeof(double) / nu)) {
        perr(p, COSA_ESYNTAX, eof_line, "too many inputs and outputs");
        return;
    }
    mf->nx = nx;
    mf->nu = nu;
    mf->ny = ny;
    mf->L = calloc(nu * ny + 1, sizeof *mf->L);
    mf->uq = calloc(nu + 1, sizeof *mf->uq);
    mf->xg = calloc(nx + 1, sizeof *mf->xg);
    mf->yg = calloc(ny + 1, sizeof *mf->yg);
    size_t *src_line = calloc(nu + 1, sizeof *src_line);
    if (!mf->L || !mf->uq || !mf->xg || !mf->yg || !src_line) {
        free(src_line);
        return nomem(p);
    }
    for (size_t i = 0; i < mf->nsub; i++) {
        struct mf_sub *s = &mf->subs[i];
        for (size_t j = 0; j < s->n[DECL_X]; j++)
            mf->xg[s->ox + j] = s->names[DECL_X][j];
        for (size_t j = 0; j < s->n[DECL_Y]; j++)
            mf->yg[s->oy + j] = s->names[DECL_Y][j];
        for (size_t j = 0; j < s->n[DECL_U]; j++) {
            size_t l1 = strlen(s->name), l2 = strlen(s->names[DECL_U][j]);
            char *q = malloc(l1 + l2 + 2);
            if (!q) {
                free(src_line);
                return nomem(p);
            }
            memcpy(q, s->name, l1);
            q[l1] = '.';
            memcpy(q + l1 + 1, s->names[DECL_U][j], l2 + 1);
            mf->uq[s->ou + j] = q;
        }
    }
    /* connections -> L */
    for (size_t c = 0; c < mf->nconn && p->st == COSA_OK; c++) {
        const struct mf_conn *cn = &mf->conns[c];
        struct mf_sub *a = find_sub(mf, cn->src), *b = find_sub(mf, cn->dst);
        long o = a ? find_name(a->names[DECL_Y], a->n[DECL_Y], cn->out) : -1;
        long in = b ? find_name(b->names[DECL_U], b->n[DECL_U], cn->in) : -1;
        if (!a || !b)
            perr(p, COSA_ESYNTAX, cn->line, "connect: unknown subsystem '%s'",
                 a ? cn->dst : cn->src);
        else if (o < 0)
            perr(p, COSA_ESYNTAX, cn->line, "connect: subsystem '%s' has no output '%s'%s",
                 a->name, cn->out,
                 find_name(a->names[DECL_U], a->n[DECL_U], cn->out) >= 0
                     ? " (it is an input; write OUTPUT -> INPUT)" : "");
        else if (in < 0)
            perr(p, COSA_ESYNTAX, cn->line, "connect: subsystem '%s' has no input '%s'%s",
                 b->name, cn->in,
                 find_name(b->names[DECL_Y], b->n[DECL_Y], cn->in) >= 0
                     ? " (it is an output; write OUTPUT -> INPUT)" : "");
        else {
            size_t gi = b->ou + (size_t)in, go = a->oy + (size_t)o;
            if (src_line[gi])
                perr(p, COSA_ESYNTAX, cn->line, "input %s.%s has two sources (lines %zu and %zu)",
                     b->name, cn->in, src_line[gi], cn->line);
            src_line[gi] = cn->line;
            mf->L[gi + go * nu] = 1.0;
        }
    }
    for (size_t i = 0; i < mf->nsub && p->st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        for (size_t j = 0; j < s->n[DECL_U]; j++)
            if (!src_line[s->ou + j]) {
                perr(p, COSA_ESYNTAX, s->decl_line[DECL_U], "input %s.%s has no source (add "
                     "'connect SUBSYSTEM.OUTPUT -> %s.%s')", s->name, s->names[DECL_U][j],
                     s->name, s->names[DECL_U][j]);
                break;
            }
    }
    free(src_line);
    if (p->st != COSA_OK)
        return;
    /* every entry must be finite at the default parameter values */
    double *vals = malloc((mf->nparam + mf->nlet + 1) * sizeof *vals);
    if (!vals)
        return nomem(p);
    double *def = malloc((mf->nparam + 1) * sizeof *def);
    if (!def) {
        free(vals);
        return nomem(p);
    }
    for (size_t i = 0; i < mf->nparam; i++)
        def[i] = mf->params[i].value;
    eval_vals(mf, def, vals);
    free(def);
    for (size_t k = 0; k < mf->nlet && p->st == COSA_OK; k++)
        if (!isfinite(vals[mf->nparam + k]))
            perr(p, COSA_ENONFINITE, mf->lets[k].line, "let '%s' is not finite (%g) at the "
                 "default parameter values", mf->lets[k].name, vals[mf->nparam + k]);
    for (size_t i = 0; i < mf->nsub && p->st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        for (int k = 0; k < NBLK && p->st == COSA_OK; k++) {
            size_t r, c;
            block_dims(s, k, &r, &c);
            for (size_t j = 0; j < r * c; j++) {
                const cosa_expr *e = &s->b[k].e[j];
                double v = cosa_expr_eval(mf->pool, e, vals);
                if (!isfinite(v)) {
                    size_t line = e->len ? e->line : s->b[k].line;
                    if (k == BX0)
                        perr(p, COSA_ENONFINITE, line, "x0[%zu] of subsystem '%s' is not "
                             "finite (%g) at the default parameter values", j + 1, s->name, v);
                    else
                        perr(p, COSA_ENONFINITE, line, "%s[%zu,%zu] of subsystem '%s' is not "
                             "finite (%g) at the default parameter values", blk_name[k],
                             j % r + 1, j / r + 1, s->name, v);
                    break;
                }
            }
        }
    }
    free(vals);
}

/* Model name from a file name: basename without extension, or "model". */
static char *name_from_path(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot != b)
        n = (size_t)(dot - b);
    if (n == 0 || n > COSA_EXPR_MAXNAME)
        return dup0("model");
    char *r = dupn(b, n);
    if (r)
        for (char *c = r; *c; c++)
            if (!ident_char(*c) && *c != '-' && *c != '.' && *c != '+')
                *c = '_';
    return r;
}

cosa_status cosa_model_file_parse(const char *text, size_t len, const char *name_for_errors,
                                  cosa_model **out, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (out)
        *out = NULL;
    const char *fname = name_for_errors ? name_for_errors : "<model>";
    if (!out || (!text && len)) {
        if (err && errsize)
            snprintf(err, errsize, "%s: invalid argument", fname);
        return COSA_EINVAL;
    }
    struct parser p = {.fname = fname, .err = err, .errsize = errsize, .st = COSA_OK, .line = 1};
    /* binary junk: NUL bytes and control characters are never valid */
    size_t line = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '\n')
            line++;
        else if (ch < 0x20 && ch != '\t' && ch != '\r' && ch != '\f' && ch != '\v') {
            perr(&p, COSA_ESYNTAX, line, "%s byte 0x%02x: not a text file?",
                 ch ? "control" : "NUL", ch);
            return p.st;
        } else if (ch == 0x7f) {
            perr(&p, COSA_ESYNTAX, line, "control byte 0x7f: not a text file?");
            return p.st;
        }
    }
    char *copy = malloc(len + 1);
    mf_t *mf = calloc(1, sizeof *mf);
    if (mf)
        mf->pool = cosa_expr_pool_alloc();
    if (!copy || !mf || !mf->pool) {
        free(copy);
        mf_free(mf);
        perr(&p, COSA_ENOMEM, 0, "out of memory");
        return COSA_ENOMEM;
    }
    if (len)
        memcpy(copy, text, len);
    copy[len] = '\0';
    mf->tend = 1.0;
    p.mf = mf;
    p.s = copy;
    while (p.st == COSA_OK && p.s[p.pos] != '\0')
        statement(&p);
    if (p.st == COSA_OK)
        resolve(&p);
    free(copy);
    if (p.st == COSA_OK && !mf->name && !(mf->name = name_from_path(fname)))
        perr(&p, COSA_ENOMEM, 0, "out of memory");
    if (p.st == COSA_OK && !mf->doc && !(mf->doc = dup0("")))
        perr(&p, COSA_ENOMEM, 0, "out of memory");
    if (p.st != COSA_OK) {
        mf_free(mf);
        return p.st;
    }
    mf->model = (cosa_model){
        .name = mf->name,
        .doc = mf->doc,
        .nparam = mf->nparam,
        .params = mf->params,
        .tend = mf->tend,
        .create = mf_create,
        .update = mf_update,
        .initial_state = mf_initial_state,
        .state_name = mf_state_name,
        .input_name = mf_input_name,
        .output_name = mf_output_name,
        .data = mf,
        .sub_name = mf_sub_name,
        .destroy = mf_destroy,
    };
    *out = &mf->model;
    return COSA_OK;
}

cosa_status cosa_model_file_load(const char *path, cosa_model **out, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = '\0';
    if (out)
        *out = NULL;
    if (!path || !out) {
        if (err && errsize)
            snprintf(err, errsize, "%s: invalid argument", path ? path : "(null)");
        return COSA_EINVAL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errsize)
            snprintf(err, errsize, "%s: cannot open: %s", path, strerror(errno));
        return COSA_EIO;
    }
    size_t n = 0, cap = 0;
    char *buf = NULL;
    cosa_status st = COSA_OK;
    for (;;) {
        if (n == cap) {
            if (cap >= MF_MAXFILE) {
                if (err && errsize)
                    snprintf(err, errsize, "%s: larger than %u MiB", path, MF_MAXFILE >> 20);
                st = COSA_EIO;
                break;
            }
            size_t c = cap ? 2 * cap : 65536;
            char *b = realloc(buf, c);
            if (!b) {
                st = COSA_ENOMEM;
                if (err && errsize)
                    snprintf(err, errsize, "%s: out of memory", path);
                break;
            }
            buf = b;
            cap = c;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                if (err && errsize)
                    snprintf(err, errsize, "%s: read error: %s", path, strerror(errno));
                st = COSA_EIO;
            }
            break;
        }
    }
    fclose(f);
    if (st == COSA_OK)
        st = cosa_model_file_parse(buf, n, path, out, err, errsize);
    free(buf);
    return st;
}

/* ------------------------------------------------------------------------ */
/* The cosa_model interface of a file model                                 */
/* ------------------------------------------------------------------------ */

static int par_finite(const mf_t *mf, const double *par)
{
    for (size_t i = 0; i < mf->nparam; i++)
        if (!isfinite(par[i]))
            return 0;
    return 1;
}

/* Evaluate block k of subsystem s into v (column-major, ld = rows). */
static void eval_block(const mf_t *mf, const struct mf_sub *s, int k, const double *vals,
                       double *v)
{
    size_t r, c;
    block_dims(s, k, &r, &c);
    for (size_t j = 0; j < r * c; j++)
        v[j] = cosa_expr_eval(mf->pool, &s->b[k].e[j], vals);
}

/* A, B, C, D of subsystem s into buf (consecutive), as a cosa_subsystem. */
static cosa_subsystem eval_sub(const mf_t *mf, const struct mf_sub *s, const double *vals,
                               double *buf)
{
    size_t nx = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    double *A = buf, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx;
    eval_block(mf, s, BA, vals, A);
    eval_block(mf, s, BB, vals, B);
    eval_block(mf, s, BC, vals, C);
    eval_block(mf, s, BD, vals, D);
    return (cosa_subsystem){nx, nu, ny, A, B, C, D};
}

#define MF_STACKBUF 512 /* doubles of scratch kept on the stack */

static cosa_status mf_create(const cosa_model *m, const double *par, cosa_system **out)
{
    if (!m || !par || !out)
        return COSA_EINVAL;
    *out = NULL;
    const mf_t *mf = m->data;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet, total = nv;
    for (size_t i = 0; i < mf->nsub; i++) {
        size_t r, c, t = 0;
        for (int k = 0; k < BX0; k++) {
            block_dims(&mf->subs[i], k, &r, &c);
            t += r * c;
        }
        total += t;
    }
    double *buf = malloc((total + 1) * sizeof *buf);
    cosa_subsystem *subs = malloc(mf->nsub * sizeof *subs);
    if (!buf || !subs) {
        free(buf);
        free(subs);
        return COSA_ENOMEM;
    }
    eval_vals(mf, par, buf);
    double *w = buf + nv;
    for (size_t i = 0; i < mf->nsub; i++) {
        subs[i] = eval_sub(mf, &mf->subs[i], buf, w);
        const struct mf_sub *s = &mf->subs[i];
        w += s->n[DECL_X] * (s->n[DECL_X] + s->n[DECL_U]) + s->n[DECL_Y] * (s->n[DECL_X] + s->n[DECL_U]);
    }
    cosa_status st = cosa_system_create(out, mf->nsub, subs, mf->L);
    free(buf);
    free(subs);
    return st;
}

static int same_bits(const double *a, size_t lda, const double *b, size_t m, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (m && memcmp(a + j * lda, b + j * m, m * sizeof *a) != 0)
            return 0;
    return 1;
}

/* Only subsystems whose evaluated matrices differ from the stored ones are
 * replaced, so a sweep over a parameter used by one subsystem keeps the
 * other subsystems' cached discretisations (lib/phi.c). */
static cosa_status mf_update(const cosa_model *m, const double *par, cosa_system *sys)
{
    if (!m || !par || !sys)
        return COSA_EINVAL;
    const mf_t *mf = m->data;
    if (cosa_system_nsub(sys) != mf->nsub || cosa_system_nx(sys) != mf->nx ||
        cosa_system_nu(sys) != mf->nu || cosa_system_ny(sys) != mf->ny)
        return COSA_EINVAL;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet, need = nv + mf->blkmax;
    double stackbuf[MF_STACKBUF], *buf = stackbuf;
    if (need > MF_STACKBUF && !(buf = malloc(need * sizeof *buf)))
        return COSA_ENOMEM;
    eval_vals(mf, par, buf);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys), *C = cosa_system_C(sys),
                 *D = cosa_system_D(sys);
    size_t NX = mf->nx, NY = mf->ny;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < mf->nsub && st == COSA_OK; i++) {
        const struct mf_sub *s = &mf->subs[i];
        cosa_subsystem sub = eval_sub(mf, s, buf, buf + nv);
        int same = same_bits(A + s->ox + s->ox * NX, NX, sub.A, sub.nx, sub.nx) &&
                   same_bits(B + s->ox + s->ou * NX, NX, sub.B, sub.nx, sub.nu) &&
                   same_bits(C + s->oy + s->ox * NY, NY, sub.C, sub.ny, sub.nx) &&
                   same_bits(D + s->oy + s->ou * NY, NY, sub.D, sub.ny, sub.nu);
        if (!same)
            st = cosa_system_store_subsystem(sys, i, &sub);
    }
    if (buf != stackbuf)
        free(buf);
    /* validate once, after every changed subsystem is stored */
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

static cosa_status mf_initial_state(const cosa_model *m, const double *par, double *x0)
{
    if (!m || !par || !x0)
        return COSA_EINVAL;
    const mf_t *mf = m->data;
    if (!par_finite(mf, par))
        return COSA_ENONFINITE;
    size_t nv = mf->nparam + mf->nlet;
    double stackbuf[MF_STACKBUF], *vals = stackbuf;
    if (nv > MF_STACKBUF && !(vals = malloc(nv * sizeof *vals)))
        return COSA_ENOMEM;
    eval_vals(mf, par, vals);
    for (size_t i = 0; i < mf->nsub; i++)
        eval_block(mf, &mf->subs[i], BX0, vals, x0 + mf->subs[i].ox);
    if (vals != stackbuf)
        free(vals);
    for (size_t i = 0; i < mf->nx; i++)
        if (!isfinite(x0[i]))
            return COSA_ENONFINITE;
    return COSA_OK;
}

static const char *mf_state_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nx ? mf->xg[k] : NULL;
}

static const char *mf_input_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nu ? mf->uq[k] : NULL;
}

static const char *mf_output_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->ny ? mf->yg[k] : NULL;
}

static const char *mf_sub_name(const cosa_model *m, const double *par, size_t k)
{
    const mf_t *mf = m->data;
    return k < mf->nsub ? mf->subs[k].name : NULL;
}

/* ------------------------------------------------------------------------ */
/* Writing model files                                                      */
/* ------------------------------------------------------------------------ */

/* One matrix entry to write: an expression (e), a parameter name, or a number. */
struct cell {
    const cosa_expr *e;
    const char *name;
    double v;
};

typedef struct cell (*cell_fn)(const void *ctx, size_t i, size_t j);

struct writer {
    FILE *f;
    const mf_t *mf; /* for expression names */
    int err;
};

static const char *slot_name(void *ctx, uint32_t id)
{
    const mf_t *mf = ctx;
    if (id < mf->nparam)
        return mf->params[id].name;
    if (id - mf->nparam < mf->nlet)
        return mf->lets[id - mf->nparam].name;
    return NULL;
}

static void wr(struct writer *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(w->f, fmt, ap) < 0)
        w->err = 1;
    va_end(ap);
}

static void wr_num(struct writer *w, double x)
{
    if (cosa_expr_print_number(w->f, x))
        w->err = 1;
}

static int cell_number(struct cell c, double *v)
{
    if (c.name || (c.e && c.e->len))
        return 0;
    *v = c.e ? c.e->value : c.v;
    return 1;
}

static int cell_is(struct cell c, double x)
{
    double v;
    return cell_number(c, &v) && memcmp(&v, &x, sizeof v) == 0;
}

static void wr_cell(struct writer *w, struct cell c)
{
    double v;
    if (cell_number(c, &v))
        wr_num(w, v);
    else if (c.name)
        wr(w, "%s", c.name);
    else if (cosa_expr_print(w->f, w->mf->pool, c.e, slot_name, (void *)w->mf))
        w->err = 1;
}

/* A block as "X = zeros", "X = eye", a full matrix, or zeros plus entries,
 * whichever is shorter; +0 entries are implied by zeros, -0 is written. */
static void wr_block(struct writer *w, const char *bn, size_t r, size_t c, cell_fn get,
                     const void *ctx, int vector)
{
    size_t nz = 0, total = r * c;
    int eye = !vector;
    for (size_t j = 0; j < c; j++)
        for (size_t i = 0; i < r; i++) {
            struct cell x = get(ctx, i, j);
            if (!cell_is(x, 0.0))
                nz++;
            if (!cell_is(x, i == j ? 1.0 : 0.0))
                eye = 0;
        }
    if (total == 0) {
        wr(w, "  %s = []\n", bn);
    } else if (nz == 0) {
        wr(w, "  %s = zeros\n", bn);
    } else if (eye) {
        wr(w, "  %s = eye\n", bn);
    } else if (total > 36 && 3 * nz < total) {
        wr(w, "  %s = zeros\n", bn);
        for (size_t j = 0; j < c; j++)
            for (size_t i = 0; i < r; i++) {
                struct cell x = get(ctx, i, j);
                if (cell_is(x, 0.0))
                    continue;
                if (vector)
                    wr(w, "  %s[%zu] = ", bn, i + 1);
                else
                    wr(w, "  %s[%zu,%zu] = ", bn, i + 1, j + 1);
                wr_cell(w, x);
                wr(w, "\n");
            }
    } else {
        wr(w, "  %s = [ ", bn);
        for (size_t i = 0; i < r; i++) {
            if (i > 0)
                wr(w, c == 1 ? "; " : "\n%*s", (int)strlen(bn) + 7, "");
            for (size_t j = 0; j < c; j++) {
                if (j > 0)
                    wr(w, ", ");
                wr_cell(w, get(ctx, i, j));
            }
        }
        wr(w, " ]\n");
    }
}

/* Text safe for a comment or a unit: control characters and, in units, the
 * characters that end a unit, become blanks. */
static void wr_text(struct writer *w, const char *s, int unit)
{
    for (; s && *s; s++) {
        char ch = *s;
        if ((unsigned char)ch < 0x20 || ch == 0x7f || (unit && (ch == ']' || ch == '#')))
            ch = ' ';
        if (fputc(ch, w->f) == EOF)
            w->err = 1;
    }
}

static void wr_header(struct writer *w, const cosa_model *m, const char *origin)
{
    wr(w, "# cosa model file (format: README, \"Model files\")\n");
    if (origin)
        wr(w, "# %s\n", origin);
    wr(w, "model %s", m->name);
    if (m->doc && *m->doc) {
        wr(w, "  # ");
        wr_text(w, m->doc, 0);
    }
    wr(w, "\ntend ");
    wr_num(w, m->tend);
    wr(w, "\n");
}

static void wr_param(struct writer *w, const cosa_param *p, double value)
{
    wr(w, "%-7s %s = ", p->kind == COSA_PARAM_INITIAL ? "initial" : "param", p->name);
    wr_num(w, value);
    if (p->unit && *p->unit) {
        wr(w, " [");
        wr_text(w, p->unit, 1);
        wr(w, "]");
    }
    if (p->doc && *p->doc) {
        wr(w, "  # ");
        wr_text(w, p->doc, 0);
    }
    wr(w, "\n");
}

struct mf_cellctx {
    const struct mf_sub *s;
    int k;
};

static struct cell mf_cell(const void *ctx, size_t i, size_t j)
{
    const struct mf_cellctx *c = ctx;
    size_t r, cc;
    block_dims(c->s, c->k, &r, &cc);
    return (struct cell){&c->s->b[c->k].e[i + j * r], NULL, 0.0};
}

static void wr_names(struct writer *w, const char *kw, char *const *names, size_t n)
{
    wr(w, "  %-7s", kw);
    for (size_t i = 0; i < n; i++)
        wr(w, " %s", names[i]);
    wr(w, "\n");
}

/* A file model at parameter values par, expressions kept. */
static void wr_file_model(struct writer *w, const mf_t *mf, const double *par,
                          const char *origin)
{
    wr_header(w, &mf->model, origin);
    if (mf->nparam)
        wr(w, "\n");
    for (size_t i = 0; i < mf->nparam; i++)
        wr_param(w, &mf->params[i], par[i]);
    if (mf->nlet)
        wr(w, "\n");
    for (size_t k = 0; k < mf->nlet; k++) {
        wr(w, "let %s = ", mf->lets[k].name);
        wr_cell(w, (struct cell){&mf->lets[k].e, NULL, 0.0});
        wr(w, "\n");
    }
    for (size_t i = 0; i < mf->nsub; i++) {
        const struct mf_sub *s = &mf->subs[i];
        wr(w, "\nsubsystem %s\n", s->name);
        wr_names(w, "states", s->names[DECL_X], s->n[DECL_X]);
        wr_names(w, "inputs", s->names[DECL_U], s->n[DECL_U]);
        wr_names(w, "outputs", s->names[DECL_Y], s->n[DECL_Y]);
        for (int k = 0; k < NBLK; k++) {
            size_t r, c;
            block_dims(s, k, &r, &c);
            struct mf_cellctx cc = {s, k};
            wr_block(w, blk_name[k], r, c, mf_cell, &cc, k == BX0);
        }
        wr(w, "end\n");
    }
    if (mf->nsub)
        wr(w, "\n");
    for (size_t j = 0; j < mf->ny; j++) {
        /* outputs in order, each with all the inputs it feeds */
        size_t ns = 0;
        while (ns + 1 < mf->nsub && mf->subs[ns + 1].oy <= j)
            ns++;
        const struct mf_sub *a = &mf->subs[ns];
        int first = 1;
        for (size_t i = 0; i < mf->nsub; i++) {
            const struct mf_sub *b = &mf->subs[i];
            for (size_t k = 0; k < b->n[DECL_U]; k++)
                if (mf->L[b->ou + k + j * mf->nu] != 0.0) {
                    if (first)
                        wr(w, "connect %s.%s -> ", a->name, a->names[DECL_Y][j - a->oy]);
                    else
                        wr(w, ", ");
                    wr(w, "%s.%s", b->name, b->names[DECL_U][k]);
                    first = 0;
                }
        }
        if (!first)
            wr(w, "\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Dump and its bit-for-bit verification                                    */
/* ------------------------------------------------------------------------ */

static int same_system(const cosa_system *a, const cosa_system *b)
{
    size_t n = cosa_system_nsub(a);
    if (n != cosa_system_nsub(b))
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t da[6], db[6];
        cosa_system_sub_dims(a, i, &da[0], &da[1], &da[2], &da[3], &da[4], &da[5]);
        cosa_system_sub_dims(b, i, &db[0], &db[1], &db[2], &db[3], &db[4], &db[5]);
        if (memcmp(da, db, sizeof da) != 0)
            return 0;
    }
    size_t nx = cosa_system_nx(a), nu = cosa_system_nu(a), ny = cosa_system_ny(a);
    return same_bits(cosa_system_A(a), nx, cosa_system_A(b), nx, nx) &&
           same_bits(cosa_system_B(a), nx, cosa_system_B(b), nx, nu) &&
           same_bits(cosa_system_C(a), ny, cosa_system_C(b), ny, nx) &&
           same_bits(cosa_system_D(a), ny, cosa_system_D(b), ny, nu) &&
           same_bits(cosa_system_L(a), nu, cosa_system_L(b), nu, ny);
}

/* Parse text, build it at the parameter values of m/par (matched by name;
 * every parameter of the text must exist in m) and compare with sys, x0. */
static int verify_text(const char *text, size_t len, const cosa_model *m, const double *par,
                       const cosa_system *sys, const double *x0)
{
    cosa_model *fm = NULL;
    cosa_system *s2 = NULL;
    double *p2 = NULL, *x2 = NULL;
    int ok = 0;
    if (cosa_model_file_parse(text, len, "<dump>", &fm, NULL, 0) != COSA_OK)
        goto done;
    p2 = malloc((fm->nparam + 1) * sizeof *p2);
    x2 = malloc((cosa_system_nx(sys) + 1) * sizeof *x2);
    if (!p2 || !x2)
        goto done;
    for (size_t i = 0; i < fm->nparam; i++) {
        int k = cosa_model_param_index(m, fm->params[i].name);
        if (k < 0)
            goto done;
        p2[i] = par[k];
    }
    if (fm->create(fm, p2, &s2) != COSA_OK || !same_system(sys, s2) ||
        fm->initial_state(fm, p2, x2) != COSA_OK ||
        memcmp(x0, x2, cosa_system_nx(sys) * sizeof *x0) != 0 ||
        memcmp(&fm->tend, &m->tend, sizeof m->tend) != 0)
        goto done;
    ok = 1;
done:
    cosa_system_free(s2);
    free(p2);
    free(x2);
    cosa_model_free(fm);
    return ok;
}

static int is_fixed(const cosa_model_template *t, const char *name)
{
    for (size_t i = 0; t->fixed && t->fixed[i]; i++)
        if (strcmp(t->fixed[i], name) == 0)
            return 1;
    return 0;
}

/* A model with an expression template (cosa_model.dump_template), into a
 * memory buffer. */
static int text_template(const cosa_model_template *t, const cosa_model *m, const double *par,
                         char **text, size_t *len)
{
    FILE *f = open_memstream(text, len);
    if (!f)
        return -1;
    struct writer w = {f, NULL, 0};
    char origin[160];
    snprintf(origin, sizeof origin, "written by cosa %s model-dump --model %s", cosa_version(),
             m->name);
    wr_header(&w, m, origin);
    wr(&w, "\n");
    for (size_t i = 0; i < m->nparam; i++) {
        if (!is_fixed(t, m->params[i].name)) {
            wr_param(&w, &m->params[i], par[i]);
        } else {
            wr(&w, "# %s = ", m->params[i].name);
            wr_num(&w, par[i]);
            wr(&w, " (fixed in this file)\n");
        }
    }
    wr(&w, "\n");
    if (t->text)
        wr(&w, "%s", t->text);
    else if (t->write(f, m, par))
        w.err = 1;
    if (fclose(f) != 0)
        w.err = 1;
    if (w.err) {
        free(*text);
        *text = NULL;
    }
    return w.err ? -1 : 0;
}

/* Generic built-in model, numbers only. */
struct num_ctx {
    const double *M;
    size_t ld, ro, co;     /* block at rows ro.., cols co.. of M (ld) */
    const char *const *pn; /* x0: parameter name per entry or NULL    */
};

static struct cell num_cell(const void *ctx, size_t i, size_t j)
{
    const struct num_ctx *c = ctx;
    if (c->pn && c->pn[c->ro + i])
        return (struct cell){NULL, c->pn[c->ro + i], 0.0};
    return (struct cell){NULL, NULL, c->M[c->ro + i + (c->co + j) * c->ld]};
}

/* A name usable in a model file: identifier characters only, unique among
 * used[0..n); otherwise prefix + (k + 1). */
static char *clean_name(const char *s, char *const *used, size_t n, const char *prefix, size_t k)
{
    char buf[COSA_EXPR_MAXNAME + 1];
    size_t m = 0;
    for (; s && *s && m < COSA_EXPR_MAXNAME; s++)
        buf[m++] = ident_char(*s) ? *s : '_';
    buf[m] = '\0';
    int ok = m > 0 && ident_start(buf[0]) && find_name(used, n, buf) < 0;
    if (!ok)
        snprintf(buf, sizeof buf, "%s%zu", prefix, k + 1);
    return dup0(buf);
}

static int text_numeric(const cosa_model *m, const double *par, const cosa_system *sys,
                        const double *x0, char **text, size_t *len)
{
    size_t nsub = cosa_system_nsub(sys), nx = cosa_system_nx(sys), nu = cosa_system_nu(sys),
           ny = cosa_system_ny(sys);
    const double *L = cosa_system_L(sys);
    /* the coupling must be a selection: one 1 per input row */
    size_t *src = malloc((nu + 1) * sizeof *src);
    if (!src)
        return -1;
    for (size_t i = 0; i < nu; i++) {
        size_t cnt = 0;
        for (size_t j = 0; j < ny; j++)
            if (L[i + j * nu] != 0.0) {
                cnt++;
                src[i] = j;
                if (L[i + j * nu] != 1.0)
                    cnt = 99;
            }
        if (cnt != 1) {
            free(src);
            return 1;
        }
    }
    /* initial-state parameters that x0 entries copy (probed one at a time) */
    const char **pn = calloc(nx + 1, sizeof *pn);
    double *pp = malloc((m->nparam + 1) * sizeof *pp), *xp = malloc((nx + 1) * sizeof *xp);
    int ret = -1;
    FILE *f = NULL;
    char **names = NULL;
    if (!pn || !pp || !xp)
        goto done;
    for (size_t k = 0; k < m->nparam; k++) {
        if (m->params[k].kind != COSA_PARAM_INITIAL)
            continue;
        memcpy(pp, par, m->nparam * sizeof *pp);
        pp[k] = par[k] + 1.0 == par[k] ? 2.0 * par[k] : par[k] + 1.0;
        if (pp[k] == par[k] || !isfinite(pp[k]))
            pp[k] = 1.0;
        if (m->initial_state(m, pp, xp) != COSA_OK)
            continue;
        size_t diff = 0, at = 0;
        for (size_t i = 0; i < nx; i++)
            if (memcmp(&xp[i], &x0[i], sizeof xp[i]) != 0) {
                diff++;
                at = i;
            }
        if (diff == 1 && !pn[at] && memcmp(&x0[at], &par[k], sizeof x0[at]) == 0 &&
            memcmp(&xp[at], &pp[k], sizeof xp[at]) == 0)
            pn[at] = m->params[k].name;
    }
    /* names: subsystems from a common "SUB." prefix of their inputs */
    names = calloc(nsub + nx + nu + ny + 1, sizeof *names);
    if (!names)
        goto done;
    f = open_memstream(text, len);
    if (!f)
        goto done;
    struct writer w = {f, NULL, 0};
    char origin[160];
    snprintf(origin, sizeof origin, "written by cosa %s model-dump --model %s (numeric)",
             cosa_version(), m->name);
    wr_header(&w, m, origin);
    int any_model = 0;
    for (size_t k = 0; k < m->nparam; k++)
        if (m->params[k].kind == COSA_PARAM_MODEL) {
            if (!any_model)
                wr(&w, "\n# entries are numbers for these values:\n#");
            any_model = 1;
            wr(&w, " %s = ", m->params[k].name);
            wr_num(&w, par[k]);
        }
    wr(&w, "\n");
    for (size_t k = 0; k < m->nparam; k++)
        if (m->params[k].kind == COSA_PARAM_INITIAL)
            for (size_t i = 0; i < nx; i++)
                if (pn[i] == m->params[k].name)
                    wr_param(&w, &m->params[k], par[k]);
    char **subn = names, **xn = names + nsub, **un = xn + nx, **yn = un + nu;
    for (size_t i = 0; i < nsub; i++) {
        size_t snx, snu, sny, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &snx, &snu, &sny, &ox, &ou, &oy);
        /* subsystem name: sub_name, else the common prefix "P." of its
         * input names (stripped from the input names when it matches) */
        const char *pre = NULL;
        size_t pl = 0;
        for (size_t j = 0; j < snu; j++) {
            const char *q = m->input_name ? m->input_name(m, par, ou + j) : NULL;
            const char *dot = q ? strchr(q, '.') : NULL;
            if (!dot || (pre && ((size_t)(dot - q) != pl || strncmp(q, pre, pl) != 0))) {
                pre = NULL;
                break;
            }
            pre = q;
            pl = (size_t)(dot - q);
        }
        char pbuf[COSA_EXPR_MAXNAME + 1];
        snprintf(pbuf, sizeof pbuf, "%.*s", (int)(pl < COSA_EXPR_MAXNAME ? pl : 0),
                 pre ? pre : "");
        const char *sn = m->sub_name ? m->sub_name(m, par, i) : NULL;
        if (sn && pre && strcmp(sn, pbuf) != 0)
            pre = NULL;
        subn[i] = clean_name(sn ? sn : pbuf, subn, i, "S", i);
        if (!subn[i])
            goto done;
        for (size_t j = 0; j < snx; j++) {
            const char *q = m->state_name ? m->state_name(m, par, ox + j) : NULL;
            if (!(xn[ox + j] = clean_name(q, xn + ox, j, "x", j)))
                goto done;
        }
        for (size_t j = 0; j < snu; j++) {
            const char *q = m->input_name ? m->input_name(m, par, ou + j) : NULL;
            if (q && pre)
                q += pl + 1;
            if (!(un[ou + j] = clean_name(q, un + ou, j, "u", j)))
                goto done;
        }
        for (size_t j = 0; j < sny; j++) {
            const char *q = m->output_name ? m->output_name(m, par, oy + j) : NULL;
            if (!(yn[oy + j] = clean_name(q, yn + oy, j, "y", j)))
                goto done;
        }
        wr(&w, "\nsubsystem %s\n", subn[i]);
        wr_names(&w, "states", xn + ox, snx);
        wr_names(&w, "inputs", un + ou, snu);
        wr_names(&w, "outputs", yn + oy, sny);
        struct num_ctx a = {cosa_system_A(sys), nx, ox, ox, NULL},
                       b = {cosa_system_B(sys), nx, ox, ou, NULL},
                       c = {cosa_system_C(sys), ny, oy, ox, NULL},
                       d = {cosa_system_D(sys), ny, oy, ou, NULL},
                       x = {x0, nx, ox, 0, pn};
        wr_block(&w, "A", snx, snx, num_cell, &a, 0);
        wr_block(&w, "B", snx, snu, num_cell, &b, 0);
        wr_block(&w, "C", sny, snx, num_cell, &c, 0);
        wr_block(&w, "D", sny, snu, num_cell, &d, 0);
        wr_block(&w, "x0", snx, 1, num_cell, &x, 1);
        wr(&w, "end\n");
    }
    wr(&w, "\n");
    for (size_t i = 0; i < nsub; i++) {
        size_t snu, ou;
        cosa_system_sub_dims(sys, i, NULL, &snu, NULL, NULL, &ou, NULL);
        for (size_t j = 0; j < snu; j++) {
            size_t y = src[ou + j], sy = 0, oy = 0, ny_s = 0;
            for (sy = 0; sy < nsub; sy++) {
                cosa_system_sub_dims(sys, sy, NULL, NULL, &ny_s, NULL, NULL, &oy);
                if (y >= oy && y < oy + ny_s)
                    break;
            }
            wr(&w, "connect %s.%s -> %s.%s\n", subn[sy], yn[y], subn[i], un[ou + j]);
        }
    }
    ret = w.err ? -1 : 0;
done:
    if (f && fclose(f) != 0)
        ret = -1;
    if (ret != 0 && f) {
        free(*text);
        *text = NULL;
    }
    if (names)
        for (size_t i = 0; i < nsub + nx + nu + ny; i++)
            free(names[i]);
    free(names);
    free(src);
    free(pn);
    free(pp);
    free(xp);
    return ret;
}

cosa_status cosa_model_dump(FILE *f, const cosa_model *m, const double *par)
{
    if (!f || !m || !m->create || !m->initial_state)
        return COSA_EINVAL;
    double *def = NULL;
    if (!par) {
        def = malloc((m->nparam + 1) * sizeof *def);
        if (!def)
            return COSA_ENOMEM;
        cosa_model_defaults(m, def);
        par = def;
    }
    cosa_system *sys = NULL;
    double *x0 = NULL;
    char *text = NULL;
    size_t len = 0;
    cosa_status st = COSA_OK;
    for (size_t i = 0; i < m->nparam; i++)
        if (!isfinite(par[i])) {
            st = COSA_ENONFINITE; /* a model file can only hold finite values */
            goto done;
        }
    if ((st = m->create(m, par, &sys)) != COSA_OK)
        goto done;
    x0 = malloc((cosa_system_nx(sys) + 1) * sizeof *x0);
    if (!x0) {
        st = COSA_ENOMEM;
        goto done;
    }
    if ((st = m->initial_state(m, par, x0)) != COSA_OK)
        goto done;
    for (size_t i = 0; i < cosa_system_nx(sys); i++)
        if (!isfinite(x0[i])) {
            st = COSA_ENONFINITE;
            goto done;
        }
    if (m->create == mf_create) {
        FILE *mem = open_memstream(&text, &len);
        if (!mem) {
            st = COSA_ENOMEM;
            goto done;
        }
        struct writer w = {mem, m->data, 0};
        wr_file_model(&w, m->data, par, "written by cosa model-dump");
        if (fclose(mem) != 0 || w.err) {
            st = COSA_ENOMEM;
            goto done;
        }
        if (!verify_text(text, len, m, par, sys, x0)) {
            st = COSA_EUNSUPPORTED; /* cannot happen: printing is exact */
            goto done;
        }
    } else {
        if (m->dump_template && text_template(m->dump_template, m, par, &text, &len) == 0 &&
            !verify_text(text, len, m, par, sys, x0)) {
            free(text);
            text = NULL;
        }
        if (!text) {
            int r = text_numeric(m, par, sys, x0, &text, &len);
            if (r != 0) {
                st = r > 0 ? COSA_EUNSUPPORTED : COSA_ENOMEM;
                goto done;
            }
            if (!verify_text(text, len, m, par, sys, x0)) {
                st = COSA_EUNSUPPORTED;
                goto done;
            }
        }
    }
    if (fwrite(text, 1, len, f) != len || fflush(f) != 0)
        st = COSA_EIO;
done:
    free(text);
    free(x0);
    free(def);
    cosa_system_free(sys);
    return st;
}
