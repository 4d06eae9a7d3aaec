/* expr.c -- compile arithmetic expressions of named parameters to postfix
 * bytecode, evaluate them, and print them back (grammar in expr.h). */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_CONST, OP_VAR, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_FN };

enum fn { FN_SQRT, FN_EXP, FN_LOG, FN_ABS, FN_SIN, FN_COS, FN_COUNT };
static const char *const fn_names[FN_COUNT] = {"sqrt", "exp", "log", "abs", "sin", "cos"};

struct instr {
    double num;   /* OP_CONST */
    uint32_t arg; /* OP_VAR: variable id; OP_FN: enum fn */
    uint8_t op;
};

struct mf_expr_pool {
    struct instr *code;
    size_t n, cap;
};

mf_expr_pool *mf_expr_pool_alloc(void) { return calloc(1, sizeof(mf_expr_pool)); }

void mf_expr_pool_free(mf_expr_pool *p)
{
    if (!p)
        return;
    free(p->code);
    free(p);
}

static double apply_fn(uint32_t f, double a)
{
    switch (f) {
    case FN_SQRT: return sqrt(a);
    case FN_EXP: return exp(a);
    case FN_LOG: return log(a);
    case FN_ABS: return fabs(a);
    case FN_SIN: return sin(a);
    default: return cos(a);
    }
}

static double apply_bin(int op, double a, double b)
{
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    default: return pow(a, b);
    }
}

/* ---- compiler ------------------------------------------------------------ */

struct comp {
    mf_expr_pool *p;
    const char *s;
    size_t pos, line;
    mf_expr_lookup lookup;
    void *ctx;
    int paren;        /* open parentheses: newlines and comments are blanks inside */
    int depth;        /* recursion depth of unary() */
    int sp, spmax;    /* simulated evaluation stack */
    size_t start;     /* first instruction of this expression */
    cosa_status st;
    char *msg;
    size_t msgsize;
};

#define MAX_DEPTH 200

static void fail(struct comp *c, cosa_status st, const char *fmt, ...)
{
    if (c->st != COSA_OK)
        return;
    c->st = st;
    if (c->msg && c->msgsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->msgsize, fmt, ap);
        va_end(ap);
    }
}

/* Human description of the character at s (for messages). */
static const char *describe(const char *s, char buf[16])
{
    unsigned char ch = (unsigned char)*s;
    if (ch == '\0')
        return "end of text";
    if (ch == '\n')
        return "end of line";
    if (isprint(ch))
        snprintf(buf, 16, "'%c'", ch);
    else
        snprintf(buf, 16, "byte 0x%02x", ch);
    return buf;
}

static void skip_blanks(struct comp *c)
{
    for (;;) {
        char ch = c->s[c->pos];
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
            c->pos++;
        } else if (c->paren > 0 && ch == '\n') {
            c->pos++;
            c->line++;
        } else if (c->paren > 0 && ch == '#') {
            while (c->s[c->pos] && c->s[c->pos] != '\n')
                c->pos++;
        } else {
            return;
        }
    }
}

static int emit(struct comp *c, int op, double num, uint32_t arg)
{
    mf_expr_pool *p = c->p;
    if (p->n - c->start >= MF_EXPR_MAXCODE) {
        fail(c, COSA_ESYNTAX, "expression too long (more than %d operations)", MF_EXPR_MAXCODE);
        return -1;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        if (cap > UINT32_MAX) {
            fail(c, COSA_ENOMEM, "too many expressions");
            return -1;
        }
        struct instr *code = realloc(p->code, cap * sizeof *code);
        if (!code) {
            fail(c, COSA_ENOMEM, "out of memory");
            return -1;
        }
        p->code = code;
        p->cap = cap;
    }
    p->code[p->n++] = (struct instr){num, arg, (uint8_t)op};
    if (op == OP_CONST || op == OP_VAR) {
        if (++c->sp > c->spmax)
            c->spmax = c->sp;
        if (c->spmax > MF_EXPR_STACK) {
            fail(c, COSA_ESYNTAX, "expression nested too deeply");
            return -1;
        }
    } else if (op != OP_NEG && op != OP_FN) {
        c->sp--;
    }
    return 0;
}

/* Replace the constant operand(s) ending the code by the folded value. */
static void fold(struct comp *c, size_t first, double v)
{
    if (!isfinite(v)) {
        fail(c, COSA_ENONFINITE, "constant subexpression is not finite (%g)", v);
        return;
    }
    mf_expr_pool *p = c->p;
    c->sp -= (int)(p->n - first) - 1;
    p->n = first;
    p->code[p->n++] = (struct instr){v, 0, OP_CONST};
}

static int is_const(const struct comp *c, size_t from, size_t to)
{
    return to == from + 1 && c->p->code[from].op == OP_CONST;
}

static size_t expr(struct comp *c);
static size_t unary(struct comp *c);

static void number(struct comp *c)
{
    const char *s = c->s;
    size_t b = c->pos, e = b;
    while (isdigit((unsigned char)s[e]))
        e++;
    if (s[e] == '.') {
        e++;
        while (isdigit((unsigned char)s[e]))
            e++;
    }
    if (s[e] == 'e' || s[e] == 'E') {
        size_t k = e + 1;
        if (s[k] == '+' || s[k] == '-')
            k++;
        if (!isdigit((unsigned char)s[k])) {
            fail(c, COSA_ESYNTAX, "malformed number '%.*s'", (int)(k - b), s + b);
            return;
        }
        while (isdigit((unsigned char)s[k]))
            k++;
        e = k;
    }
    if (isalnum((unsigned char)s[e]) || s[e] == '_' || s[e] == '.') {
        fail(c, COSA_ESYNTAX, "malformed number '%.*s'", (int)(e - b + 1 > 40 ? 40 : e - b + 1),
             s + b);
        return;
    }
    char *end;
    double v = strtod(s + b, &end);
    if (end != s + e) {
        fail(c, COSA_ESYNTAX, "malformed number '%.*s'", (int)(e - b > 40 ? 40 : e - b), s + b);
        return;
    }
    if (!isfinite(v)) {
        fail(c, COSA_ENONFINITE, "number '%.*s' is not finite in double precision",
             (int)(e - b > 40 ? 40 : e - b), s + b);
        return;
    }
    c->pos = e;
    emit(c, OP_CONST, v, 0);
}

static size_t primary(struct comp *c)
{
    size_t first = c->p->n;
    const char *s = c->s;
    char ch = s[c->pos], buf[16];
    if (isdigit((unsigned char)ch) || (ch == '.' && isdigit((unsigned char)s[c->pos + 1]))) {
        number(c);
    } else if (isalpha((unsigned char)ch) || ch == '_') {
        size_t b = c->pos, e = b;
        while (isalnum((unsigned char)s[e]) || s[e] == '_')
            e++;
        if (e - b > MF_EXPR_MAXNAME) {
            fail(c, COSA_ESYNTAX, "name '%.20s...' longer than %d characters", s + b,
                 MF_EXPR_MAXNAME);
            return first;
        }
        c->pos = e;
        size_t save = c->pos, save_line = c->line;
        skip_blanks(c);
        if (s[c->pos] == '(') {
            int f = 0;
            while (f < FN_COUNT && !(strlen(fn_names[f]) == e - b &&
                                     memcmp(fn_names[f], s + b, e - b) == 0))
                f++;
            if (f == FN_COUNT) {
                fail(c, COSA_ESYNTAX,
                     "unknown function '%.*s' (known: sqrt exp log abs sin cos)",
                     (int)(e - b), s + b);
                return first;
            }
            c->pos++;
            c->paren++;
            skip_blanks(c);
            size_t a = expr(c);
            if (c->st != COSA_OK)
                return first;
            skip_blanks(c);
            if (s[c->pos] != ')') {
                fail(c, COSA_ESYNTAX, "expected ')' after the argument of %s, found %s",
                     fn_names[f], describe(s + c->pos, buf));
                return first;
            }
            c->pos++;
            c->paren--;
            if (is_const(c, a, c->p->n))
                fold(c, a, apply_fn((uint32_t)f, c->p->code[a].num));
            else
                emit(c, OP_FN, 0.0, (uint32_t)f);
            return first;
        }
        c->pos = save;
        c->line = save_line;
        if (!c->lookup) {
            fail(c, COSA_ESYNTAX, "a number is required here, not the name '%.*s'",
                 (int)(e - b), s + b);
            return first;
        }
        long id = c->lookup(c->ctx, s + b, e - b, c->line);
        if (id < 0 || id > (long)UINT32_MAX) {
            fail(c, COSA_ENOMEM, "out of memory");
            return first;
        }
        emit(c, OP_VAR, 0.0, (uint32_t)id);
    } else if (ch == '(') {
        c->pos++;
        c->paren++;
        skip_blanks(c);
        expr(c);
        if (c->st != COSA_OK)
            return first;
        skip_blanks(c);
        if (s[c->pos] != ')') {
            fail(c, COSA_ESYNTAX, "expected ')', found %s", describe(s + c->pos, buf));
            return first;
        }
        c->pos++;
        c->paren--;
    } else {
        fail(c, COSA_ESYNTAX, "expected a number, a parameter name or '(', found %s",
             describe(s + c->pos, buf));
    }
    return first;
}

/* power := primary [ '^' unary ] */
static size_t power(struct comp *c)
{
    size_t first = primary(c);
    if (c->st != COSA_OK)
        return first;
    skip_blanks(c);
    if (c->s[c->pos] == '^') {
        c->pos++;
        skip_blanks(c);
        size_t r = unary(c);
        if (c->st != COSA_OK)
            return first;
        if (is_const(c, first, r) && is_const(c, r, c->p->n))
            fold(c, first, pow(c->p->code[first].num, c->p->code[r].num));
        else
            emit(c, OP_POW, 0.0, 0);
    }
    return first;
}

/* unary := ('-' | '+') unary | power */
static size_t unary(struct comp *c)
{
    size_t first = c->p->n;
    if (++c->depth > MAX_DEPTH) {
        fail(c, COSA_ESYNTAX, "expression nested too deeply");
        return first;
    }
    char ch = c->s[c->pos];
    if (ch == '-' || ch == '+') {
        c->pos++;
        skip_blanks(c);
        unary(c);
        if (c->st == COSA_OK && ch == '-') {
            if (is_const(c, first, c->p->n))
                fold(c, first, -c->p->code[first].num);
            else
                emit(c, OP_NEG, 0.0, 0);
        }
    } else {
        power(c);
    }
    c->depth--;
    return first;
}

/* term := unary { ('*' | '/') unary } */
static size_t term(struct comp *c)
{
    size_t first = unary(c);
    for (;;) {
        if (c->st != COSA_OK)
            return first;
        skip_blanks(c);
        char ch = c->s[c->pos];
        if (ch != '*' && ch != '/')
            return first;
        c->pos++;
        skip_blanks(c);
        size_t r = unary(c);
        if (c->st != COSA_OK)
            return first;
        int op = ch == '*' ? OP_MUL : OP_DIV;
        if (is_const(c, first, r) && is_const(c, r, c->p->n))
            fold(c, first, apply_bin(op, c->p->code[first].num, c->p->code[r].num));
        else
            emit(c, op, 0.0, 0);
    }
}

/* expr := term { ('+' | '-') term } */
static size_t expr(struct comp *c)
{
    size_t first = term(c);
    for (;;) {
        if (c->st != COSA_OK)
            return first;
        skip_blanks(c);
        char ch = c->s[c->pos];
        if (ch != '+' && ch != '-')
            return first;
        c->pos++;
        skip_blanks(c);
        size_t r = term(c);
        if (c->st != COSA_OK)
            return first;
        int op = ch == '+' ? OP_ADD : OP_SUB;
        if (is_const(c, first, r) && is_const(c, r, c->p->n))
            fold(c, first, apply_bin(op, c->p->code[first].num, c->p->code[r].num));
        else
            emit(c, op, 0.0, 0);
    }
}

cosa_status mf_expr_compile(mf_expr_pool *p, const char *text, size_t *pos, size_t *line,
                            mf_expr_lookup lookup, void *ctx, mf_expr *out, char *msg,
                            size_t msgsize)
{
    if (!p || !text || !pos || !line || !out)
        return COSA_EINVAL;
    struct comp c = {.p = p, .s = text, .pos = *pos, .line = *line, .lookup = lookup,
                     .ctx = ctx, .start = p->n, .st = COSA_OK, .msg = msg, .msgsize = msgsize};
    size_t line0 = *line;
    skip_blanks(&c);
    expr(&c);
    if (c.st == COSA_OK && c.paren != 0)
        fail(&c, COSA_ESYNTAX, "unbalanced parentheses");
    *line = c.line;
    if (c.st != COSA_OK) {
        p->n = c.start;
        return c.st;
    }
    *pos = c.pos;
    out->line = line0 > UINT32_MAX ? UINT32_MAX : (uint32_t)line0;
    if (p->n == c.start + 1 && p->code[c.start].op == OP_CONST) {
        out->value = p->code[c.start].num;
        out->start = out->len = 0;
        p->n = c.start;
    } else {
        out->value = 0.0;
        out->start = (uint32_t)c.start;
        out->len = (uint32_t)(p->n - c.start);
    }
    return COSA_OK;
}

cosa_status mf_expr_pool_remap(mf_expr_pool *p, const uint32_t *map, size_t nmap)
{
    if (!p)
        return COSA_EINVAL;
    for (size_t i = 0; i < p->n; i++)
        if (p->code[i].op == OP_VAR && p->code[i].arg >= nmap)
            return COSA_EINVAL;
    for (size_t i = 0; i < p->n; i++)
        if (p->code[i].op == OP_VAR)
            p->code[i].arg = map[p->code[i].arg];
    return COSA_OK;
}

long mf_expr_max_var(const mf_expr_pool *p, const mf_expr *e)
{
    long m = -1;
    for (uint32_t i = 0; i < e->len; i++) {
        const struct instr *in = &p->code[e->start + i];
        if (in->op == OP_VAR && (long)in->arg > m)
            m = (long)in->arg;
    }
    return m;
}

/* ---- evaluation ------------------------------------------------------------ */

double mf_expr_eval(const mf_expr_pool *p, const mf_expr *e, const double *vars)
{
    if (e->len == 0)
        return e->value;
    double st[MF_EXPR_STACK];
    int sp = 0;
    const struct instr *in = p->code + e->start, *end = in + e->len;
    for (; in < end; in++) {
        switch (in->op) {
        case OP_CONST: st[sp++] = in->num; break;
        case OP_VAR: st[sp++] = vars[in->arg]; break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_FN: st[sp - 1] = apply_fn(in->arg, st[sp - 1]); break;
        default:
            sp--;
            st[sp - 1] = apply_bin(in->op, st[sp - 1], st[sp]);
            break;
        }
    }
    return st[0];
}

/* ---- printing ------------------------------------------------------------------ */

/* The shortest form that reads back: cosa_number_format (lib/core). */
char *mf_expr_format_number(char *best, double x) { return cosa_number_format(best, x); }

int mf_expr_print_number(FILE *f, double x)
{
    char best[MF_NUMBER_MAX];
    return fputs(mf_expr_format_number(best, x), f) < 0 ? -1 : 0;
}

/* Binding strength of the subtree rooted at instruction k (see expr.h):
 * 1 sums, 2 products, 3 negations (and negative literals), 4 powers, 5 atoms. */
static int prec(const struct instr *k)
{
    switch (k->op) {
    case OP_CONST: return signbit(k->num) ? 3 : 5;
    case OP_VAR:
    case OP_FN: return 5;
    case OP_NEG: return 3;
    case OP_POW: return 4;
    case OP_MUL:
    case OP_DIV: return 2;
    default: return 1;
    }
}

struct printer {
    FILE *f;
    const struct instr *code; /* the expression's code */
    const uint32_t *first;    /* first[k]: first instruction of the subtree rooted at k */
    mf_expr_namer name;
    void *ctx;
    int err;
};

static void put(struct printer *pr, const char *s)
{
    if (fputs(s, pr->f) < 0)
        pr->err = 1;
}

static void node(struct printer *pr, uint32_t k);

static void child(struct printer *pr, uint32_t k, int paren)
{
    if (paren)
        put(pr, "(");
    node(pr, k);
    if (paren)
        put(pr, ")");
}

/* Only the parentheses the grammar requires are printed, so the text parses
 * back to the same code and is never nested deeper than any text that
 * compiled to this code (the nesting limit cannot reject a reprint):
 * left-associative + - * / keep a right-nested group of the same or lower
 * level, ^ keeps a nested base, and negations need no group of their own
 * ("a - -b", "--a", "a^-b"). */
static void node(struct printer *pr, uint32_t k)
{
    const struct instr *in = &pr->code[k];
    switch (in->op) {
    case OP_CONST:
        if (mf_expr_print_number(pr->f, in->num) != 0)
            pr->err = 1;
        return;
    case OP_VAR: {
        const char *n = pr->name ? pr->name(pr->ctx, in->arg) : NULL;
        put(pr, n ? n : "?");
        return;
    }
    case OP_FN:
        put(pr, fn_names[in->arg]);
        child(pr, k - 1, 1);
        return;
    case OP_NEG:
        put(pr, "-");
        child(pr, k - 1, prec(&pr->code[k - 1]) < 3);
        return;
    default: break;
    }
    uint32_t r = k - 1, l = pr->first[r] - 1;
    int pl = prec(&pr->code[l]), pr_ = prec(&pr->code[r]);
    switch (in->op) {
    case OP_ADD:
    case OP_SUB:
        child(pr, l, 0);
        put(pr, in->op == OP_ADD ? " + " : " - ");
        child(pr, r, pr_ <= 1);
        return;
    case OP_MUL:
    case OP_DIV:
        child(pr, l, pl < 2);
        put(pr, in->op == OP_MUL ? "*" : "/");
        child(pr, r, pr_ <= 2);
        return;
    default: /* OP_POW */
        child(pr, l, pl < 5);
        put(pr, "^");
        child(pr, r, pr_ < 3);
        return;
    }
}

int mf_expr_print(FILE *f, const mf_expr_pool *p, const mf_expr *e, mf_expr_namer name,
                  void *ctx)
{
    if (e->len == 0)
        return mf_expr_print_number(f, e->value);
    uint32_t *first = malloc(e->len * sizeof *first);
    if (!first)
        return -1;
    const struct instr *code = p->code + e->start;
    for (uint32_t k = 0; k < e->len; k++) {
        switch (code[k].op) {
        case OP_CONST:
        case OP_VAR: first[k] = k; break;
        case OP_NEG:
        case OP_FN: first[k] = first[k - 1]; break;
        default: first[k] = first[first[k - 1] - 1]; break;
        }
    }
    struct printer pr = {f, code, first, name, ctx, 0};
    node(&pr, e->len - 1);
    free(first);
    return pr.err ? -1 : 0;
}
