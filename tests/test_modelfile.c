/* test_modelfile.c -- model files (models/modelfile.c) and the expression
 * compiler (models/expr.c): grammar, exact re-printing, one-line errors with
 * file name and line for malformed input, the hand-written twomass file
 * against the built-in model, bit-exact dump round trips, and the fuzz
 * regression corpus. */
#define _POSIX_C_SOURCE 200809L
#include "cosa.h"
#include "expr.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* Source tree root: $COSA_SRCDIR, else derived from this file's path (tests
 * run with the build directory as working directory, from which __FILE__ as
 * given to the compiler is reachable). */
static void srcpath(char *buf, size_t size, const char *rel)
{
    const char *env = getenv("COSA_SRCDIR");
    if (env && *env) {
        snprintf(buf, size, "%s/%s", env, rel);
        return;
    }
    const char *f = __FILE__, *t = strstr(f, "tests/test_modelfile.c");
    int n = t ? (int)(t - f) : 0;
    snprintf(buf, size, "%.*s%s", n, f, rel);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    fclose(f);
    if (len)
        *len = n;
    return b;
}

static cosa_status parse(const char *text, cosa_model **m, char *err, size_t errsize)
{
    return cosa_model_file_parse(text, strlen(text), "t.cosa", m, err, errsize);
}

static int same_bits(const double *a, const double *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* A, B, C, D, L and the sub-dimensions of two systems are bit-identical. */
static int same_system(const cosa_system *a, const cosa_system *b)
{
    size_t nx = cosa_system_nx(a), nu = cosa_system_nu(a), ny = cosa_system_ny(a);
    if (cosa_system_nsub(a) != cosa_system_nsub(b) || nx != cosa_system_nx(b) ||
        nu != cosa_system_nu(b) || ny != cosa_system_ny(b))
        return 0;
    for (size_t i = 0; i < cosa_system_nsub(a); i++) {
        size_t da[6], db[6];
        cosa_system_sub_dims(a, i, &da[0], &da[1], &da[2], &da[3], &da[4], &da[5]);
        cosa_system_sub_dims(b, i, &db[0], &db[1], &db[2], &db[3], &db[4], &db[5]);
        if (memcmp(da, db, sizeof da) != 0)
            return 0;
    }
    return same_bits(cosa_system_A(a), cosa_system_A(b), nx * nx) &&
           same_bits(cosa_system_B(a), cosa_system_B(b), nx * nu) &&
           same_bits(cosa_system_C(a), cosa_system_C(b), ny * nx) &&
           same_bits(cosa_system_D(a), cosa_system_D(b), ny * nu) &&
           same_bits(cosa_system_L(a), cosa_system_L(b), nu * ny);
}

/* Parameter vector of model m from defaults plus name=value pairs. */
static void params_of(const cosa_model *m, double *par, const char *const *names,
                      const double *values, size_t n)
{
    cosa_model_defaults(m, par);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(cosa_model_set(m, par, names[i], values[i]), COSA_OK, "set %s", names[i]);
}

/* Text of cosa_model_dump(m, par). */
static char *dump_text(const cosa_model *m, const double *par, cosa_status *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    *st = cosa_model_dump(f, m, par);
    fclose(f);
    return text;
}

/* ------------------------------------------------------------------------ */
/* expressions                                                              */
/* ------------------------------------------------------------------------ */

static const char *const var_names[] = {"a", "b", "c", "ck", "m2"};

static long lookup(void *ctx, const char *name, size_t len, size_t line)
{
    for (size_t i = 0; i < 5; i++)
        if (strlen(var_names[i]) == len && memcmp(var_names[i], name, len) == 0)
            return (long)i;
    return -1;
}

static const char *namer(void *ctx, uint32_t id) { return id < 5 ? var_names[id] : NULL; }

static cosa_status compile(mf_expr_pool *p, const char *s, mf_expr *e, size_t *end)
{
    size_t pos = 0, line = 1;
    char msg[200];
    cosa_status st = mf_expr_compile(p, s, &pos, &line, lookup, NULL, e, msg, sizeof msg);
    if (end)
        *end = pos;
    return st;
}

Test(expr, precedence_and_values)
{
    static const struct { const char *s; double v; } cases[] = {
        {"1 + 2*3", 7}, {"(1 + 2)*3", 9}, {"8/4/2", 1}, {"8 - 4 - 2", 2}, {"-2^2", -4},
        {"2^3^2", 512}, {"(-2)^2", 4}, {"2*-3", -6}, {"2^-1", 0.5}, {"-(-3)", 3},
        {"+5", 5}, {"sqrt(16)", 4}, {"exp(0)", 1}, {"log(1)", 0}, {"abs(-3)", 3},
        {"sin(0) + cos(0)", 1}, {"1e-4", 1e-4}, {"1E+6", 1e6}, {".5", 0.5}, {"2.", 2},
        {"a*b + c", 2 * 3 + 5}, {"-(ck + c)/m2", -(7.0 + 5.0) / 11.0},
        {"a - b - c", 2.0 - 3.0 - 5.0}, {"a - (b - c)", 2.0 - (3.0 - 5.0)},
        {"a^b^a", 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2}, {"-a^2", -4}, {"(\n a\n + b)", 5},
    };
    double vars[5] = {2, 3, 5, 7, 11};
    mf_expr_pool *p = mf_expr_pool_alloc();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mf_expr e;
        size_t end;
        cr_assert_eq(compile(p, cases[i].s, &e, &end), COSA_OK, "%s", cases[i].s);
        cr_expect_eq(end, strlen(cases[i].s), "%s consumed %zu", cases[i].s, end);
        double v = mf_expr_eval(p, &e, vars);
        cr_expect_eq(v, cases[i].v, "%s = %.17g, expected %.17g", cases[i].s, v, cases[i].v);
    }
    mf_expr_pool_free(p);
}

Test(expr, literals_fold_to_constants)
{
    mf_expr_pool *p = mf_expr_pool_alloc();
    mf_expr e;
    cr_assert_eq(compile(p, "-(2*3 + 1)/7", &e, NULL), COSA_OK);
    cr_expect_eq(e.len, 0, "folded to a constant");
    cr_expect_eq(e.value, -1.0);
    cr_assert_eq(compile(p, "-0", &e, NULL), COSA_OK);
    cr_expect(e.len == 0 && e.value == 0.0 && signbit(e.value), "-0 keeps its sign");
    mf_expr_pool_free(p);
}

Test(expr, stops_at_terminators)
{
    static const char *const cases[] = {"a + b, 3", "a*b ; c", "a ]", "a # comment", "a\nb"};
    mf_expr_pool *p = mf_expr_pool_alloc();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mf_expr e;
        size_t end;
        cr_assert_eq(compile(p, cases[i], &e, &end), COSA_OK, "%s", cases[i]);
        cr_expect(strchr(",;]#\n", cases[i][end]) || cases[i][end] == ' ',
                  "%s stopped at %zu", cases[i], end);
    }
    mf_expr_pool_free(p);
}

Test(expr, errors)
{
    static const struct { const char *s; cosa_status st; } cases[] = {
        {"1 +", COSA_ESYNTAX}, {"(1", COSA_ESYNTAX}, {"foo(2)", COSA_ESYNTAX},
        {"2x", COSA_ESYNTAX}, {"1e", COSA_ESYNTAX}, {"1.2.3", COSA_ESYNTAX},
        {"0x10", COSA_ESYNTAX}, {"1e999", COSA_ENONFINITE}, {"1/0", COSA_ENONFINITE},
        {"log(0)", COSA_ENONFINITE}, {"sqrt(-1)", COSA_ENONFINITE}, {"", COSA_ESYNTAX},
        {")", COSA_ESYNTAX}, {"a b", COSA_OK}, /* stops before b: the caller rejects it */
    };
    mf_expr_pool *p = mf_expr_pool_alloc();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mf_expr e;
        cr_expect_eq(compile(p, cases[i].s, &e, NULL), cases[i].st, "'%s'", cases[i].s);
    }
    /* nesting deeper than the evaluation stack or the recursion limit */
    char deep[2000];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        deep[n++] = '(';
    deep[n++] = '1';
    for (int i = 0; i < 300; i++)
        deep[n++] = ')';
    deep[n] = '\0';
    mf_expr e;
    cr_expect_eq(compile(p, deep, &e, NULL), COSA_ESYNTAX);
    n = 0;
    for (int i = 0; i < 100; i++) {
        memcpy(deep + n, "a+(", 3);
        n += 3;
    }
    deep[n++] = 'a';
    for (int i = 0; i < 100; i++)
        deep[n++] = ')';
    deep[n] = '\0';
    cr_expect_eq(compile(p, deep, &e, NULL), COSA_ESYNTAX, "stack deeper than %d",
                 MF_EXPR_STACK);
    mf_expr_pool_free(p);
}

/* print(compile(s)) compiles to an expression with the same value bits for
 * random variables, and printing is idempotent. */
Test(expr, print_round_trip)
{
    static const char *const cases[] = {
        "-(ck + c)/m2", "a - (b - c)", "a - b - c", "a/(b/c)", "a/b/c", "(a + b)*c",
        "-a^2", "(-a)^2", "a^b^c", "(a^b)^c", "a^-b", "a*-b", "-(-a)", "-(a*b)", "-a*b",
        "a + -5", "a - -5", "(-5)^a", "2^a", "sqrt(a + b)*exp(-c)", "abs(-a)/log(b)",
        "0.1*a + 1e-300*b - 1.7976931348623157e308*c/1e308", "-0*a", "a*(b*c)", "a + (b + c)",
        "1/3*a", "sin(cos(a))^2", "--a", "a/-b", "a^-(b + c)", "-a/-b^-c",
    };
    mf_expr_pool *p = mf_expr_pool_alloc();
    unsigned long long seed = 12345;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mf_expr e1, e2;
        cr_assert_eq(compile(p, cases[i], &e1, NULL), COSA_OK, "%s", cases[i]);
        char *t1 = NULL, *t2 = NULL;
        size_t l1, l2;
        FILE *f = open_memstream(&t1, &l1);
        cr_assert_eq(mf_expr_print(f, p, &e1, namer, NULL), 0);
        fclose(f);
        cr_assert_eq(compile(p, t1, &e2, NULL), COSA_OK, "reparse '%s' of '%s'", t1, cases[i]);
        f = open_memstream(&t2, &l2);
        cr_assert_eq(mf_expr_print(f, p, &e2, namer, NULL), 0);
        fclose(f);
        cr_expect_str_eq(t1, t2, "printing '%s' is idempotent", cases[i]);
        cr_expect_eq(e1.len, e2.len, "'%s' -> '%s': same code length", cases[i], t1);
        for (int k = 0; k < 20; k++) {
            double vars[5];
            for (int j = 0; j < 5; j++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
                vars[j] = ldexp((double)(seed >> 11), -52) * 4.0 + 0.25;
            }
            double v1 = mf_expr_eval(p, &e1, vars), v2 = mf_expr_eval(p, &e2, vars);
            cr_expect(memcmp(&v1, &v2, sizeof v1) == 0, "'%s' vs '%s': %.17g != %.17g",
                      cases[i], t1, v1, v2);
        }
        free(t1);
        free(t2);
    }
    mf_expr_pool_free(p);
}

/* A reprint is never nested deeper than its source: 190 unary minus signs
 * (within the nesting limit) print back as a text that compiles again
 * (fuzzer find: "-(-(...))" exceeded the limit). */
Test(expr, deep_reprint_compiles)
{
    static const char *const fmt[] = {"%sa", "b - %sa", "b*%sa", "b^%sa"};
    mf_expr_pool *p = mf_expr_pool_alloc();
    for (size_t k = 0; k < sizeof fmt / sizeof *fmt; k++) {
        char minus[200], src[400];
        memset(minus, '-', 190);
        minus[190] = '\0';
        snprintf(src, sizeof src, fmt[k], minus);
        mf_expr e1, e2;
        cr_assert_eq(compile(p, src, &e1, NULL), COSA_OK, "case %zu", k);
        char *t = NULL;
        size_t l;
        FILE *f = open_memstream(&t, &l);
        cr_assert_eq(mf_expr_print(f, p, &e1, namer, NULL), 0);
        fclose(f);
        cr_expect_eq(compile(p, t, &e2, NULL), COSA_OK, "case %zu reprint compiles", k);
        cr_expect_eq(e1.len, e2.len);
        free(t);
    }
    mf_expr_pool_free(p);
}

Test(expr, shortest_numbers)
{
    static const struct { double x; const char *s; } cases[] = {
        {10, "10"}, {1e6, "1e6"}, {0.1, "0.1"}, {-100, "-100"}, {1000, "1000"},
        {2.5e-7, "2.5e-7"}, {1.0 / 3.0, "0.3333333333333333"}, {-0.0, "-0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *t = NULL;
        size_t l;
        FILE *f = open_memstream(&t, &l);
        mf_expr_print_number(f, cases[i].x);
        fclose(f);
        cr_expect_str_eq(t, cases[i].s);
        double y = strtod(t, NULL);
        cr_expect(memcmp(&y, &cases[i].x, sizeof y) == 0, "%s reads back", t);
        free(t);
    }
}

/* ------------------------------------------------------------------------ */
/* the format                                                               */
/* ------------------------------------------------------------------------ */

/* Two one-state subsystems: P: x' = -k x + u, y = x; Q: z' = -z + w, q = z. */
static const char base[] =
    "param k = 2\n"            /*  1 */
    "subsystem P\n"            /*  2 */
    "  states x\n"             /*  3 */
    "  inputs u\n"             /*  4 */
    "  outputs y\n"            /*  5 */
    "  A = [ -k ]\n"           /*  6 */
    "  B = [ 1 ]\n"            /*  7 */
    "  C = [ 1 ]\n"            /*  8 */
    "  D = [ 0 ]\n"            /*  9 */
    "end\n"                    /* 10 */
    "subsystem Q\n"            /* 11 */
    "  states z\n"             /* 12 */
    "  inputs w\n"             /* 13 */
    "  outputs q\n"            /* 14 */
    "  A = [ -1 ]\n"           /* 15 */
    "  B = [ 1 ]\n"            /* 16 */
    "  C = [ 1 ]\n"            /* 17 */
    "  D = zeros\n"            /* 18 */
    "end\n"                    /* 19 */
    "connect P.y -> Q.w\n"     /* 20 */
    "connect Q.q -> P.u\n";    /* 21 */

/* base with line `line` (1-based) replaced by rep (which may hold newlines). */
static char *variant(const char *text, int line, const char *rep)
{
    const char *b = text;
    for (int i = 1; i < line && b; i++) {
        b = strchr(b, '\n');
        if (b)
            b++;
    }
    cr_assert_not_null(b);
    const char *e = strchr(b, '\n');
    e = e ? e : b + strlen(b);
    size_t n1 = (size_t)(b - text), n2 = strlen(rep), n3 = strlen(e);
    char *r = malloc(n1 + n2 + n3 + 1);
    memcpy(r, text, n1);
    memcpy(r + n1, rep, n2);
    memcpy(r + n1 + n2, e, n3 + 1);
    return r;
}

/* The first n lines of text (no final newline). */
static char *head(const char *text, int n)
{
    const char *e = text;
    for (int i = 0; i < n; i++) {
        e = strchr(e, '\n');
        cr_assert_not_null(e);
        if (i + 1 < n)
            e++;
    }
    return strndup(text, (size_t)(e - text));
}

Test(modelfile, base_parses)
{
    cosa_model *m;
    char err[256];
    cr_assert_eq(parse(base, &m, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_str_eq(m->name, "t", "name from the file name");
    cr_expect_eq(m->nparam, 1);
    cr_expect_eq(m->tend, 1.0, "default horizon");
    double par[1] = {3.5}, x0[2];
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_expect_eq(cosa_system_A(sys)[0], -3.5);
    const double Lexp[4] = {0, 1, 1, 0}; /* u = [P.u, Q.w], y = [P.y, Q.q] */
    cr_expect(same_bits(cosa_system_L(sys), Lexp, 4));
    cr_expect_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect(x0[0] == 0 && x0[1] == 0, "x0 defaults to zero");
    cr_expect_str_eq(m->input_name(m, par, 1), "Q.w");
    cr_expect_str_eq(m->output_name(m, par, 1), "q");
    cr_expect_str_eq(m->state_name(m, par, 0), "x");
    cr_expect_null(m->state_name(m, par, 2));
    cosa_system_free(sys);
    cosa_model_free(m);
}

/* A file model frees itself through its destroy slot (what cosa_model_free
 * calls); systems built from it stay valid.  Run under valgrind for leaks. */
Test(modelfile, destroy_slot_frees_the_model)
{
    cosa_model *m;
    char err[256];
    cr_assert_eq(parse(base, &m, err, sizeof err), COSA_OK, "%s", err);
    cr_assert_not_null(m->destroy, "file models have a destroy slot");
    cr_expect(cosa_model_is_linear(m));
    cr_expect_null(m->create_ode, "time domain through cosa_odesys_from_linear");
    double par[1] = {3.5};
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    m->destroy(m);
    cr_expect_eq(cosa_system_A(sys)[0], -3.5, "the system outlives its model");
    cosa_system_free(sys);
}

struct bad_case {
    const char *what;
    int line;        /* replaced line of base (0: the text is `rep` itself) */
    const char *rep;
    cosa_status st;
    int err_line;
};

static const struct bad_case bad_cases[] = {
    {"missing block B", 7, "", COSA_ESYNTAX, 10},
    {"missing block D", 9, "  # no D", COSA_ESYNTAX, 10},
    {"missing inputs line", 4, "", COSA_ESYNTAX, 6},
    {"wrong dimensions", 6, "  A = [ -k, 1 ]", COSA_ESYNTAX, 6},
    {"wrong dimensions (column)", 7, "  B = [ 1; 2 ]", COSA_ESYNTAX, 7},
    {"ragged rows", 6, "  A = [ -k, 1\n  2 ]", COSA_ESYNTAX, 7},
    {"x0 too long", 9, "  D = [ 0 ]\n  x0 = [ 1, 2 ]", COSA_ESYNTAX, 10},
    {"unknown subsystem", 20, "connect R.y -> Q.w", COSA_ESYNTAX, 20},
    {"unknown output", 20, "connect P.nope -> Q.w", COSA_ESYNTAX, 20},
    {"unknown input", 20, "connect P.y -> Q.nope", COSA_ESYNTAX, 20},
    {"reversed connection", 20, "connect Q.w -> P.y", COSA_ESYNTAX, 20},
    {"input without source", 20, "", COSA_ESYNTAX, 13},
    {"input with two sources", 20, "connect P.y -> Q.w, P.u", COSA_ESYNTAX, 21},
    {"same connection twice", 21, "connect Q.q -> P.u\nconnect Q.q -> P.u", COSA_ESYNTAX, 22},
    {"non-finite number", 6, "  A = [ -1e999 ]", COSA_ENONFINITE, 6},
    {"non-finite constant", 6, "  A = [ 1/0 ]", COSA_ENONFINITE, 6},
    {"inf is a name", 6, "  A = [ inf ]", COSA_EPARAM, 6},
    {"nan is a name", 16, "  B = [ nan ]", COSA_EPARAM, 16},
    {"unknown parameter", 6, "  A = [ -kk ]", COSA_EPARAM, 6},
    {"unknown parameter in x0", 9, "  D = [ 0 ]\n  x0 = [ q0 ]", COSA_EPARAM, 10},
    {"hex number", 6, "  A = [ 0x10 ]", COSA_ESYNTAX, 6},
    {"malformed number", 6, "  A = [ 1.2.3 ]", COSA_ESYNTAX, 6},
    {"implicit product", 6, "  A = [ 2k ]", COSA_ESYNTAX, 6},
    {"unbalanced parenthesis", 6, "  A = [ (1 + k ]", COSA_ESYNTAX, 6},
    {"unknown function", 6, "  A = [ foo(k) ]", COSA_ESYNTAX, 6},
    {"empty entry", 6, "  A = [ , 1 ]", COSA_ESYNTAX, 6},
    {"missing comma", 6, "  A = [ -k 1 ]", COSA_ESYNTAX, 6},
    {"duplicate parameter", 1, "param k = 2\nparam k = 3", COSA_ESYNTAX, 2},
    {"parameter value not a number", 1, "param k = j", COSA_ESYNTAX, 1},
    {"block before states", 3, "  A = [ 1 ]\n  states x", COSA_ESYNTAX, 3},
    {"block twice", 7, "  B = [ 1 ]\n  B = [ 1 ]", COSA_ESYNTAX, 8},
    {"param inside subsystem", 7, "  param z = 1", COSA_ESYNTAX, 7},
    {"unknown statement", 7, "  Bee = [ 1 ]", COSA_ESYNTAX, 7},
    {"unknown top-level statement", 1, "parameter k = 2", COSA_ESYNTAX, 1},
    {"statement outside subsystem", 2, "", COSA_ESYNTAX, 3},
    {"missing end", 19, "", COSA_ESYNTAX, 20},
    {"duplicate subsystem", 11, "subsystem P", COSA_ESYNTAX, 11},
    {"duplicate state name", 3, "  states x x", COSA_ESYNTAX, 3},
    {"extra text", 10, "end now", COSA_ESYNTAX, 10},
    {"tend zero", 1, "tend 0\nparam k = 2", COSA_ERANGE, 1},
    {"tend twice", 1, "tend 1\ntend 2\nparam k = 2", COSA_ESYNTAX, 2},
    {"let before definition", 1, "let a = b\nlet b = 1\nparam k = 2", COSA_ESYNTAX, 1},
    {"entry before zeros", 6, "  A[1,1] = -k", COSA_ESYNTAX, 6},
    {"entry outside block", 6, "  A = zeros\n  A[2,1] = -k", COSA_ESYNTAX, 7},
    {"entry twice", 6, "  A = zeros\n  A[1,1] = -k\n  A[1,1] = 1", COSA_ESYNTAX, 8},
    {"entry of a full matrix", 7, "  B = [ 1 ]\n  B[1,1] = 2", COSA_ESYNTAX, 8},
    {"eye for x0", 9, "  D = [ 0 ]\n  x0 = eye", COSA_ESYNTAX, 10},
    {"zero mass at the defaults", 1, "param k = 0\nlet w = 1/k", COSA_ENONFINITE, 2},
    {"unit not closed", 1, "param k = 2 [N/m", COSA_ESYNTAX, 1},
    {"range not closed", 1, "param k = 2 (> 0", COSA_ESYNTAX, 1},
    {"range: unknown rule", 1, "param k = 2 (positive)", COSA_ESYNTAX, 1},
    {"range: missing comma", 1, "param k = 2 (> 0 < 5)", COSA_ESYNTAX, 1},
    {"range: two lower bounds", 1, "param k = 2 (> 0, >= 1)", COSA_ESYNTAX, 1},
    {"range: bound not declared before", 1, "param k = 2 (<= n)\nparam n = 3", COSA_ESYNTAX, 1},
    {"default outside its range", 1, "param k = 2 (> 2)", COSA_EPARAM, 1},
    {"default not an integer", 1, "param k = 2.5 [N/m] (integer)", COSA_EPARAM, 1},
    {"default above a parameter bound", 1, "param n = 1\nparam k = 2 (<= n)", COSA_EPARAM, 2},
    {"non-ASCII outside comments", 4, "  inputs \xc3\xa4", COSA_ESYNTAX, 4},
    {"control byte", 5, "  outputs \x01y", COSA_ESYNTAX, 5},
    {"DEL byte", 5, "  outputs \x7fy", COSA_ESYNTAX, 5},
    {"empty file", 0, "", COSA_ESYNTAX, 1},
    {"comments only", 0, "# nothing\n\n# here\n", COSA_ESYNTAX, 1},
    {"no states", 0, "subsystem S\n states\n inputs\n outputs\nend\n", COSA_ESYNTAX, 5},
};

static void check_error(const char *text, size_t len, cosa_status want, int line,
                        const char *what)
{
    cosa_model *m = (cosa_model *)1;
    char err[512], prefix[64];
    cosa_status st = cosa_model_file_parse(text, len, "t.cosa", &m, err, sizeof err);
    cr_expect_eq(st, want, "%s: status %d (%s), expected %d; message: %s", what, st,
                 cosa_strerror(st), want, err);
    cr_expect_null(m, "%s: no model on failure", what);
    snprintf(prefix, sizeof prefix, "t.cosa:%d: ", line);
    cr_expect(strncmp(err, prefix, strlen(prefix)) == 0, "%s: message '%s' should start '%s'",
              what, err, prefix);
    cr_expect_null(strchr(err, '\n'), "%s: one line", what);
    cr_expect_gt(strlen(err), strlen(prefix) + 5, "%s: a message follows", what);
}

Test(modelfile, malformed_input_one_line_errors)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const struct bad_case *c = &bad_cases[i];
        char *t = c->line ? variant(base, c->line, c->rep) : strdup(c->rep);
        check_error(t, strlen(t), c->st, c->err_line, c->what);
        free(t);
    }
}

Test(modelfile, zero_default_makes_entry_nonfinite)
{
    char *t1 = variant(base, 1, "param k = 0");
    char *t2 = variant(t1, 6, "  A = [ 1/k ]");
    check_error(t2, strlen(t2), COSA_ENONFINITE, 6, "1/k with k = 0");
    free(t1);
    free(t2);
}

Test(modelfile, truncated_files)
{
    static const struct { int lines; const char *tail; int line; } cases[] = {
        {14, "", 14},            /* inside subsystem Q             */
        {18, "", 18},            /* before 'end'                   */
        {14, "\n  A = [ -1,", 15}, /* after a comma in a matrix      */
        {14, "\n  A = [ -1", 15},  /* inside a matrix                */
        {14, "\n  A = [ -(1 +", 15}, /* inside an expression         */
        {19, "\nconnect P.y ->", 20},
        {19, "\nconnect P.y -> Q", 20},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *h = head(base, cases[i].lines);
        size_t n = strlen(h) + strlen(cases[i].tail);
        char *t = malloc(n + 1);
        strcpy(t, h);
        strcat(t, cases[i].tail);
        check_error(t, n, COSA_ESYNTAX, cases[i].line, "truncated");
        free(h);
        free(t);
    }
    /* every prefix of a real file: no crash, OK only for complete texts,
     * otherwise "path:line: ..." with a line inside the file */
    char path[1024];
    srcpath(path, sizeof path, "data/models/twomass.cosa");
    size_t len;
    char *text = slurp(path, &len);
    cr_assert_not_null(text, "read %s", path);
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    for (size_t n = 0; n < len; n++) {
        cosa_model *m;
        char err[512];
        cosa_status st = cosa_model_file_parse(text, n, "p.cosa", &m, err, sizeof err);
        if (st == COSA_OK) {
            cosa_model_free(m);
            continue;
        }
        int l = 0;
        cr_assert_eq(sscanf(err, "p.cosa:%d:", &l), 1, "prefix %zu: '%s'", n, err);
        cr_assert(l >= 1 && l <= lines, "prefix %zu: line %d", n, l);
    }
    free(text);
}

Test(modelfile, binary_junk)
{
    char t[] = "param k = 2\nsubsystem P\n  sta\0tes x\n";
    check_error(t, sizeof t - 1, COSA_ESYNTAX, 3, "NUL byte");
    unsigned long long seed = 99;
    for (int k = 0; k < 200; k++) {
        unsigned char junk[256];
        for (size_t i = 0; i < sizeof junk; i++) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            junk[i] = (unsigned char)(seed >> 24);
        }
        cosa_model *m;
        char err[512];
        cr_expect_eq(cosa_model_file_parse((const char *)junk, sizeof junk, "j.bin", &m, err,
                                           sizeof err),
                     COSA_ESYNTAX, "random bytes %d", k);
        cr_expect(strncmp(err, "j.bin:", 6) == 0, "%s", err);
    }
}

Test(modelfile, load_errors)
{
    cosa_model *m;
    char err[512];
    cr_expect_eq(cosa_model_file_load("/nonexistent/x.cosa", &m, err, sizeof err), COSA_EIO);
    cr_expect_null(m);
    cr_expect(strncmp(err, "/nonexistent/x.cosa: ", 21) == 0, "%s", err);
    cr_expect_eq(cosa_model_file_load("/", &m, err, sizeof err), COSA_EIO, "a directory: %s",
                 err);
    cr_expect_eq(cosa_model_file_parse(NULL, 0, "x", &m, err, sizeof err), COSA_ESYNTAX,
                 "no text: no subsystem");
    cr_expect_eq(cosa_model_file_parse("x", 1, "x", NULL, err, sizeof err), COSA_EINVAL);
    cosa_model_free(NULL);
    cosa_model_free((cosa_model *)cosa_model_find("twomass")); /* ignored */
}

Test(modelfile, features)
{
    /* comments and continuations in matrices, let, entries, eye on a
     * rectangular block, row-vector x0, several targets per connect */
    static const char text[] =
        "model demo-1   # a demo\n"
        "tend 2.5e-1\n"
        "param  m = 2 [kg]   # mass\n"
        "param  c = 8\n"
        "initial s0 = 0.5 [m]\n"
        "let w2 = c/m\n"
        "let w = sqrt(w2)\n"
        "subsystem S\n"
        "  states s, v\n"
        "  inputs\n"
        "  outputs s v\n"
        "  A = [ 0, 1   # first row\n"
        "        # a comment line inside the matrix\n"
        "        -w2,\n"
        "        -(w\n"
        "          - w) ]\n"
        "  B = []\n"
        "  C = eye\n"
        "  D = []\n"
        "  x0 = [ s0, w ]\n"
        "end\n"
        "subsystem T\n"
        "  states a b c\n"
        "  inputs p q\n"
        "  outputs o\n"
        "  A = zeros\n"
        "  A[1,1] = -1\n"
        "  A[3, 2] = -m\n"
        "  A[2,2]=-1\n"
        "  A[3,3] = -1\n"
        "  B = eye\n"
        "  C = zeros\n"
        "  D = zeros\n"
        "  x0 = zeros\n"
        "  x0[3] = -s0\n"
        "end\n"
        "connect S.s -> T.p\n"
        "connect S.v -> T.q\n";
    cosa_model *m;
    char err[256];
    cr_assert_eq(parse(text, &m, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_str_eq(m->name, "demo-1");
    cr_expect_str_eq(m->doc, "a demo");
    cr_expect_eq(m->tend, 0.25);
    cr_assert_eq(m->nparam, 3);
    cr_expect_str_eq(m->params[0].unit, "kg");
    cr_expect_str_eq(m->params[0].doc, "mass");
    cr_expect_str_eq(m->params[1].unit, "");
    cr_expect_eq(m->params[2].kind, COSA_PARAM_INITIAL);
    double par[3] = {2, 8, 0.5}, x0[5];
    cosa_system *sys;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys);
    cr_expect_eq(A[1 + 0 * 5], -4.0);
    cr_expect_eq(A[1 + 1 * 5], -0.0);
    cr_expect_eq(A[4 + 3 * 5], -2.0, "A[3,2] of T");
    cr_expect_eq(B[2 + 0 * 5], 1.0);
    cr_expect_eq(B[3 + 1 * 5], 1.0);
    cr_expect_eq(B[4 + 1 * 5], 0.0, "eye on a 3x2 block");
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect(x0[0] == 0.5 && x0[1] == 2.0 && x0[4] == -0.5);
    /* parameters: --set goes through cosa_model_set */
    cr_expect_eq(cosa_model_set(m, par, "c", 18.0), COSA_OK);
    cr_expect_eq(cosa_model_set(m, par, "w", 1.0), COSA_EPARAM, "let is not a parameter");
    cr_assert_eq(m->update(m, par, sys), COSA_OK);
    cr_expect_eq(A[1 + 0 * 5], -9.0);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cr_expect_eq(x0[1], 3.0);
    par[0] = INFINITY;
    cr_expect_eq(m->update(m, par, sys), COSA_ENONFINITE);
    cosa_system_free(sys);
    cosa_model_free(m);
}

Test(modelfile, algebraic_loop_is_reported_by_create)
{
    /* y = u through D = 1 on both sides: I - D L singular */
    static const char text[] =
        "param g = 1\n"
        "subsystem P\n states x\n inputs u\n outputs y\n"
        " A = [ -1 ]\n B = [ 0 ]\n C = [ 0 ]\n D = [ g ]\nend\n"
        "subsystem Q\n states z\n inputs w\n outputs q\n"
        " A = [ -1 ]\n B = [ 0 ]\n C = [ 0 ]\n D = [ 1 ]\nend\n"
        "connect P.y -> Q.w\nconnect Q.q -> P.u\n";
    cosa_model *m;
    char err[256];
    cr_assert_eq(parse(text, &m, err, sizeof err), COSA_OK, "%s", err);
    double par[1] = {1};
    cosa_system *sys = NULL;
    cr_expect_eq(m->create(m, par, &sys), COSA_EALGLOOP);
    par[0] = 0.5;
    cr_expect_eq(m->create(m, par, &sys), COSA_OK);
    cosa_system_free(sys);
    cosa_model_free(m);
}

/* ------------------------------------------------------------------------ */
/* the hand-written twomass file and the built-in twomass                   */
/* ------------------------------------------------------------------------ */

static cosa_model *load_data(const char *rel)
{
    char path[1024], err[512];
    srcpath(path, sizeof path, rel);
    cosa_model *m = NULL;
    cosa_status st = cosa_model_file_load(path, &m, err, sizeof err);
    cr_assert_eq(st, COSA_OK, "%s", err);
    return m;
}

Test(modelfile, twomass_file_equals_builtin)
{
    cosa_model *fm = load_data("data/models/twomass.cosa");
    const cosa_model *bm = cosa_model_find("twomass");
    cr_assert_not_null(bm);
    cr_assert_eq(fm->nparam, bm->nparam);
    cr_expect_eq(fm->tend, bm->tend);
    for (size_t i = 0; i < bm->nparam; i++) {
        cr_expect_str_eq(fm->params[i].name, bm->params[i].name);
        cr_expect_eq(fm->params[i].value, bm->params[i].value, "%s", bm->params[i].name);
        cr_expect_eq(fm->params[i].kind, bm->params[i].kind, "%s", bm->params[i].name);
    }
    /* the same IEEE operations in the same order: bit-identical matrices */
    static const char *const names[] = {"ck", "dk", "m1", "c2", "d1", "v1", "s2"};
    static const double sets[][7] = {
        {2e5, 5e2, 10, 1e7, 1, 100, 0},    {1, 1, 10, 1e7, 1, 100, 0},
        {1e10, 1e7, 10, 1e7, 1, 1, 1},     {1e9, 3.6e5, 3.7, 0, 0, -2, 0.5},
        {37, 0, 0.1, 1e-3, 1e3, 0, -1e-9},
    };
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        double pf[32], pb[32];
        params_of(fm, pf, names, sets[k], 7);
        params_of(bm, pb, names, sets[k], 7);
        cosa_system *sf, *sb;
        cr_assert_eq(fm->create(fm, pf, &sf), COSA_OK);
        cr_assert_eq(bm->create(bm, pb, &sb), COSA_OK);
        cr_expect(same_system(sf, sb), "set %zu: A, B, C, D, L bit-identical", k);
        double xf[4], xb[4];
        cr_assert_eq(fm->initial_state(fm, pf, xf), COSA_OK);
        cr_assert_eq(bm->initial_state(bm, pb, xb), COSA_OK);
        cr_expect(same_bits(xf, xb, 4), "set %zu: x0", k);
        /* update from another parameter set gives the created system */
        cosa_system *su;
        cr_assert_eq(fm->create(fm, pf, &su), COSA_OK);
        double pd[32];
        cosa_model_defaults(fm, pd);
        cr_assert_eq(fm->update(fm, pd, su), COSA_OK);
        cr_assert_eq(fm->update(fm, pf, su), COSA_OK);
        cr_expect(same_system(su, sb), "set %zu: update == create", k);
        cosa_system_free(su);
        cosa_system_free(sf);
        cosa_system_free(sb);
    }
    for (size_t k = 0; k < 4; k++)
        cr_expect_str_eq(fm->state_name(fm, NULL, k), bm->state_name(bm, NULL, k));
    for (size_t k = 0; k < 2; k++)
        cr_expect_str_eq(fm->sub_name(fm, NULL, k), bm->sub_name(bm, NULL, k));
    cr_expect_null(fm->sub_name(fm, NULL, 2));
    for (size_t k = 0; k < 3; k++) {
        cr_expect_str_eq(fm->input_name(fm, NULL, k), bm->input_name(bm, NULL, k));
        cr_expect_str_eq(fm->output_name(fm, NULL, k), bm->output_name(bm, NULL, k));
    }
    cosa_model_free(fm);
}

Test(modelfile, example_files_load)
{
    static const char *const files[] = {"data/models/twomass.cosa", "data/models/twomass-fd.cosa",
                                        "data/models/rotational.cosa", "data/models/chain6.cosa"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        cosa_model *m = load_data(files[i]);
        const cosa_model *b = cosa_model_find(m->name);
        cr_assert_not_null(b, "%s names a built-in model", files[i]);
        double pf[32], pb[32];
        cosa_model_defaults(m, pf);
        cosa_model_defaults(b, pb);
        cosa_system *sf, *sb;
        cr_assert_eq(m->create(m, pf, &sf), COSA_OK);
        cr_assert_eq(b->create(b, pb, &sb), COSA_OK);
        cr_expect(same_system(sf, sb), "%s equals built-in %s", files[i], b->name);
        cosa_system_free(sf);
        cosa_system_free(sb);
        cosa_model_free(m);
    }
}

/* ------------------------------------------------------------------------ */
/* dump: reload gives the same Phi to the last bit                          */
/* ------------------------------------------------------------------------ */

/* Phi of a scheme for both systems, compared bitwise. */
static void expect_same_phi(const cosa_system *a, const cosa_system *b, const char *scheme,
                            double dt, const char *what)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    cosa_layout la;
    cr_assert_eq(cosa_layout_get(a, &s, &la), COSA_OK);
    double *P1 = malloc(la.dim * la.dim * sizeof *P1), *P2 = malloc(la.dim * la.dim * sizeof *P2);
    cosa_phi_workspace *w1 = cosa_phi_workspace_alloc(a, s.order);
    cosa_phi_workspace *w2 = cosa_phi_workspace_alloc(b, s.order);
    cr_assert(P1 && P2 && w1 && w2);
    cr_assert_eq(cosa_phi_build(a, &s, dt, P1, la.dim, w1), COSA_OK);
    cr_assert_eq(cosa_phi_build(b, &s, dt, P2, la.dim, w2), COSA_OK);
    cr_expect(same_bits(P1, P2, la.dim * la.dim), "%s: Phi (%s, dt %g) bit-identical", what,
              scheme, dt);
    cosa_phi_workspace_free(w1);
    cosa_phi_workspace_free(w2);
    free(P1);
    free(P2);
}

/* dump(m, par) reloads to the same system, x0 and Phi; returns the text. */
static char *check_dump(const cosa_model *m, const double *par, const char *what)
{
    cosa_status st;
    char *text = dump_text(m, par, &st);
    cr_assert_eq(st, COSA_OK, "%s: dump: %s", what, cosa_strerror(st));
    cosa_model *r;
    char err[512];
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "dump.cosa", &r, err, sizeof err),
                 COSA_OK, "%s: %s\n%s", what, err, text);
    cr_expect_str_eq(r->name, m->name);
    cr_expect(memcmp(&r->tend, &m->tend, sizeof m->tend) == 0);
    double rp[64];
    cosa_model_defaults(r, rp);
    for (size_t i = 0; i < r->nparam; i++) {
        int k = cosa_model_param_index(m, r->params[i].name);
        cr_assert_geq(k, 0, "%s: dumped parameter %s", what, r->params[i].name);
        cr_expect(memcmp(&rp[i], &par[k], sizeof rp[i]) == 0, "%s: default of %s", what,
                  r->params[i].name);
    }
    cosa_system *s1, *s2;
    cr_assert_eq(m->create(m, par, &s1), COSA_OK);
    cr_assert_eq(r->create(r, rp, &s2), COSA_OK);
    cr_expect(same_system(s1, s2), "%s: same A, B, C, D, L", what);
    size_t nx = cosa_system_nx(s1);
    double *x1 = malloc(nx * sizeof *x1), *x2 = malloc(nx * sizeof *x2);
    cr_assert_eq(m->initial_state(m, par, x1), COSA_OK);
    cr_assert_eq(r->initial_state(r, rp, x2), COSA_OK);
    cr_expect(same_bits(x1, x2, nx), "%s: same x0", what);
    if (nx <= 40) {
        expect_same_phi(s1, s2, "foh+mbcorr", 1e-3, what);
        expect_same_phi(s1, s2, "p3", 3.16e-4, what);
    }
    free(x1);
    free(x2);
    cosa_system_free(s1);
    cosa_system_free(s2);
    cosa_model_free(r);
    return text;
}

Test(dump, builtin_models_keep_expressions)
{
    static const struct { const char *model, *expr; } cases[] = {
        {"twomass", "-(ck + c2)/m2"}, {"twomass-fd", "-(k1 + kc)/m1"},
        {"rotational", "-(c2 + ck)/J2"}, {"chain", "-2*c/m"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cosa_model *m = cosa_model_find(cases[i].model);
        cr_assert_not_null(m, "%s", cases[i].model);
        double par[64];
        cosa_model_defaults(m, par);
        char *text = check_dump(m, par, cases[i].model);
        cr_expect_not_null(strstr(text, cases[i].expr), "%s keeps '%s'", cases[i].model,
                           cases[i].expr);
        free(text);
    }
}

Test(dump, builtin_models_at_other_parameters)
{
    static const struct { const char *model; const char *names[4]; double v[4]; } cases[] = {
        {"twomass", {"ck", "dk", "c1", "v1"}, {1e9, 3.6e5, 0, -3}},
        {"twomass", {"ck", "dk", "m2", "s2"}, {0.1, 1.0 / 3.0, 7.3, 1e-300}},
        {"twomass-fd", {"kc", "cc", "c1", "m1"}, {1e3, 1e-3, 0.7, 0.3}},
        {"rotational", {"ck", "dk", "J1", "phi2"}, {100, 0, 0.01, -0.0}},
        {"chain", {"n", "r", "c", "d"}, {7, 3, 1e6, 0}},
        {"chain", {"n", "r", "m", "v1"}, {2, 2, 0.5, -1}},
        {"chain", {"n", "r", "m", "v1"}, {5, 1, 2, 3}},
        {"chain", {"n", "r", "m", "v1"}, {300, 7, 2, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const cosa_model *m = cosa_model_find(cases[i].model);
        double par[64];
        params_of(m, par, cases[i].names, cases[i].v, 4);
        free(check_dump(m, par, cases[i].model));
    }
}

Test(dump, set_works_on_dumped_file)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_status st;
    char *text = dump_text(m, NULL, &st);
    cr_assert_eq(st, COSA_OK);
    cosa_model *r;
    char err[256];
    cr_assert_eq(parse(text, &r, err, sizeof err), COSA_OK, "%s", err);
    double pr[32], pb[32];
    cosa_model_defaults(r, pr);
    cosa_model_defaults(m, pb);
    cr_assert_eq(cosa_model_set(r, pr, "ck", 1e8), COSA_OK);
    cr_assert_eq(cosa_model_set(m, pb, "ck", 1e8), COSA_OK);
    cosa_system *s1, *s2;
    cr_assert_eq(r->create(r, pr, &s1), COSA_OK);
    cr_assert_eq(m->create(m, pb, &s2), COSA_OK);
    cr_expect(same_system(s1, s2), "--set ck on the dump acts like on the built-in");
    cosa_system_free(s1);
    cosa_system_free(s2);
    cosa_model_free(r);
    free(text);
}

Test(dump, file_model_round_trip_is_idempotent)
{
    cosa_model *m = load_data("data/models/twomass.cosa");
    double par[32];
    cosa_model_defaults(m, par);
    cosa_model_set(m, par, "ck", 1.0 / 7.0);
    char *t1 = check_dump(m, par, "twomass.cosa");
    cosa_model *r;
    char err[256];
    cr_assert_eq(parse(t1, &r, err, sizeof err), COSA_OK);
    cosa_status st;
    char *t2 = dump_text(r, NULL, &st);
    cr_assert_eq(st, COSA_OK);
    cr_expect_str_eq(t1, t2, "dump(load(dump)) == dump");
    free(t1);
    free(t2);
    cosa_model_free(r);
    cosa_model_free(m);
}

/* Fuzzer find (corpus/regress-dump-nan-initial-state): NaN initial-state
 * values do not enter the matrices, so create() accepts them, but a model
 * file cannot hold them: the dump must refuse with COSA_ENONFINITE. */
Test(dump, non_finite_parameters_are_refused)
{
    const cosa_model *m = cosa_model_find("twomass-fd");
    double par[32];
    cosa_model_defaults(m, par);
    par[cosa_model_param_index(m, "v1")] = NAN;
    cosa_status st;
    char *text = dump_text(m, par, &st);
    cr_expect_eq(st, COSA_ENONFINITE);
    cr_expect(!text || !*text, "nothing written");
    free(text);
    cosa_model *fm = load_data("data/models/twomass.cosa");
    cosa_model_defaults(fm, par);
    par[0] = INFINITY;
    text = dump_text(fm, par, &st);
    cr_expect_eq(st, COSA_ENONFINITE);
    free(text);
    cosa_model_free(fm);
}

/* A model cosa has no template for: delegates to twomass under another name. */
static cosa_status fake_create(const cosa_model *m, const double *par, cosa_system **out)
{
    const cosa_model *t = cosa_model_find("twomass");
    return t->create(t, par, out);
}
static cosa_status fake_init(const cosa_model *m, const double *par, double *x0)
{
    const cosa_model *t = cosa_model_find("twomass");
    return t->initial_state(t, par, x0);
}

Test(dump, numeric_fallback_keeps_initial_parameters)
{
    const cosa_model *t = cosa_model_find("twomass");
    cosa_model fake = *t;
    fake.name = "mystery";
    fake.dump_template = NULL; /* no expressions known for it */
    fake.create = fake_create;
    fake.initial_state = fake_init;
    double par[32];
    cosa_model_defaults(t, par);
    cosa_model_set(t, par, "c1", 0.0); /* A entry -0/m1: the sign must survive */
    cosa_model_set(t, par, "ck", 1.0 / 3.0);
    char *text = check_dump(&fake, par, "numeric");
    cr_expect_not_null(strstr(text, "initial v2 = -100"), "%s", text);
    cr_expect_null(strstr(text, "param "), "model parameters are numbers here");
    cr_expect_not_null(strstr(text, "-0"), "negative zero written");
    cr_expect_not_null(strstr(text, "subsystem II"), "subsystem names from input names");
    free(text);
    fake.state_name = fake.input_name = fake.output_name = fake.sub_name = NULL;
    free(check_dump(&fake, par, "numeric, no names"));
}

/* ------------------------------------------------------------------------ */
/* fuzz regression corpus                                                   */
/* ------------------------------------------------------------------------ */

Test(corpus, every_file_parses_without_crashing)
{
    char dir[1024];
    srcpath(dir, sizeof dir, "tests/fuzz/corpus");
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "corpus directory %s", dir);
    size_t nfiles = 0, nok = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        char *text = slurp(path, &len);
        if (!text)
            continue;
        nfiles++;
        cosa_model *m;
        char err[512];
        cosa_status st = cosa_model_file_parse(text, len, e->d_name, &m, err, sizeof err);
        if (st == COSA_OK) {
            nok++;
            double *par = malloc((m->nparam + 1) * sizeof *par);
            cosa_model_defaults(m, par);
            cosa_system *sys = NULL;
            if (m->create(m, par, &sys) == COSA_OK) {
                m->update(m, par, sys);
                cosa_status ds;
                free(dump_text(m, par, &ds));
                cr_expect_eq(ds, COSA_OK, "%s: dump", e->d_name);
            }
            cosa_system_free(sys);
            free(par);
            cosa_model_free(m);
        } else {
            cr_expect(strncmp(err, e->d_name, strlen(e->d_name)) == 0 &&
                          err[strlen(e->d_name)] == ':',
                      "%s: '%s'", e->d_name, err);
        }
        free(text);
    }
    closedir(d);
    cr_expect_gt(nfiles, 10, "corpus has files");
    cr_log_info("corpus: %zu files, %zu parse", nfiles, nok);
}

/* Declared ranges: parsed into cosa_param.range, checked by cosa_param_check
 * (with bounds by other parameters), written back by the dump. */
Test(modelfile, parameter_ranges)
{
    static const char text[] =
        "param n = 4 (integer, >= 1, <= 10)  # count\n"
        "param k = 2 [N/m] (> 0, <= n)\n"
        "param c = 0.5 (>= 0)\n"
        "subsystem P\n  states x\n  inputs u\n  outputs y\n"
        "  A = [ -k ]\n  B = [ 1 ]\n  C = [ 1 ]\n  D = [ 0 ]\nend\n"
        "subsystem Q\n  states z\n  inputs w\n  outputs q\n"
        "  A = [ -n ]\n  B = [ c ]\n  C = [ 1 ]\n  D = zeros\nend\n"
        "connect P.y -> Q.w\nconnect Q.q -> P.u\n";
    cosa_model *m;
    char err[256], buf[128];
    cr_assert_eq(parse(text, &m, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_eq(m->params[0].range.flags, COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE);
    cr_expect_eq(m->params[0].range.lo, 1.0);
    cr_expect_eq(m->params[0].range.hi, 10.0);
    cr_expect_str_eq(m->params[1].range.hi_param, "n");
    cr_expect_str_eq(m->params[0].doc, "count");
    cosa_param_range_text(m, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "> 0, <= n");
    double par[3];
    cosa_model_defaults(m, par);
    cr_expect_eq(cosa_model_check(m, par, NULL, buf, sizeof buf), COSA_OK);
    size_t k = 99;
    par[1] = 5; /* k <= n = 4 violated */
    cr_expect_eq(cosa_model_check(m, par, &k, buf, sizeof buf), COSA_EPARAM);
    cr_expect_eq(k, 1);
    cr_expect_str_eq(buf, "k must be > 0 and <= n (n = 4)");
    par[1] = 2;
    par[0] = 4.5;
    cr_expect_eq(cosa_model_check(m, par, &k, buf, sizeof buf), COSA_EPARAM);
    cr_expect_str_eq(buf, "n must be an integer in 1..10");
    /* the dump writes the ranges; reading it back gives the same ranges */
    cosa_status st;
    char *t = dump_text(m, NULL, &st);
    cr_assert_eq(st, COSA_OK);
    cr_expect_not_null(strstr(t, "(integer, >= 1, <= 10)"), "%s", t);
    cr_expect_not_null(strstr(t, "[N/m] (> 0, <= n)"), "%s", t);
    cosa_model *r;
    cr_assert_eq(parse(t, &r, err, sizeof err), COSA_OK, "%s", err);
    for (size_t i = 0; i < 3; i++) {
        char a[128], b[128];
        cosa_param_range_text(m, i, a, sizeof a);
        cosa_param_range_text(r, i, b, sizeof b);
        cr_expect_str_eq(a, b);
    }
    free(t);
    cosa_model_free(r);
    cosa_model_free(m);
}

/* A UTF-8 byte order mark is skipped: the model is the one without it, bit
 * for bit; a BOM anywhere else stays an error. */
Test(modelfile, byte_order_mark_skipped)
{
    static const char text[] = "param m = 2\n"
                               "subsystem S\n  states s\n  inputs\n  outputs s\n"
                               "  A = [ -1/m ]\n  C = eye\nend\n";
    char bom[sizeof text + 3] = "\xEF\xBB\xBF";
    memcpy(bom + 3, text, sizeof text);
    cosa_model *a = NULL, *b = NULL;
    char err[256];
    cr_assert_eq(parse(text, &a, err, sizeof err), COSA_OK, "%s", err);
    cr_assert_eq(parse(bom, &b, err, sizeof err), COSA_OK, "%s", err);
    cosa_system *sa = NULL, *sb = NULL;
    const double par[1] = {2.0};
    cr_assert_eq(a->create(a, par, &sa), COSA_OK);
    cr_assert_eq(b->create(b, par, &sb), COSA_OK);
    cr_expect(same_bits(cosa_system_A(sa), cosa_system_A(sb), 1));
    cosa_system_free(sa);
    cosa_system_free(sb);
    cosa_model_free(a);
    cosa_model_free(b);
    char mid[sizeof text + 4] = "\n\xEF\xBB\xBF";
    memcpy(mid + 4, text, sizeof text);
    cr_expect_neq(parse(mid, &a, err, sizeof err), COSA_OK, "a BOM on line 2 is no text");
}

/* Which entry became non-finite, and let names (derived, not settable). */
Test(modelfile, nonfinite_entry_and_let_names)
{
    static const char text[] = "param m = 2\nparam c = 8\nlet w2 = c/m\n"
                               "subsystem S\n  states s v\n  inputs\n  outputs s\n"
                               "  A = [ 0, 1; -w2, -1/m ]\n  C = [ 1, 0 ]\n  x0 = [ 1; m ]\nend\n";
    cosa_model *m = NULL;
    char err[256], msg[256];
    cr_assert_eq(parse(text, &m, err, sizeof err), COSA_OK, "%s", err);
    cr_expect(cosa_model_file_is_let(m, "w2"));
    cr_expect(!cosa_model_file_is_let(m, "m"));
    cr_expect(!cosa_model_file_is_let(m, "nope"));
    cr_expect(!cosa_model_file_is_let(cosa_model_find("twomass"), "ck"));
    double par[2] = {2.0, 8.0};
    cr_expect_eq(cosa_model_file_nonfinite(m, par, msg, sizeof msg), COSA_OK);
    par[0] = 0.0; /* w2 = c/0 = inf: the let is named first */
    cr_expect_eq(cosa_model_file_nonfinite(m, par, msg, sizeof msg), COSA_ENONFINITE);
    cr_expect_str_eq(msg, "let 'w2' is not finite (inf)");
    cosa_system *sys = NULL;
    cr_expect_eq(m->create(m, par, &sys), COSA_ENONFINITE, "create refuses what is named");
    cr_expect_null(sys);
    static const char text2[] = "param m = 2\n"
                                "subsystem S\n  states s v\n  inputs\n  outputs s\n"
                                "  A = [ 0, 1; -1, -1/m ]\n  C = [ 1, 0 ]\nend\n";
    cosa_model *m2 = NULL;
    cr_assert_eq(parse(text2, &m2, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_eq(cosa_model_file_nonfinite(m2, par, msg, sizeof msg), COSA_ENONFINITE);
    cr_expect_str_eq(msg, "A[2,2] of subsystem 'S' is not finite (-inf)");
    par[0] = NAN;
    cr_expect_eq(cosa_model_file_nonfinite(m2, par, msg, sizeof msg), COSA_EINVAL);
    cr_expect_eq(cosa_model_file_nonfinite(cosa_model_find("twomass"), par, msg, sizeof msg),
                 COSA_EINVAL);
    cosa_model_free(m);
    cosa_model_free(m2);
}
