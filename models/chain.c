/* chain.c -- n equal masses m in a line, spring c and damper d between
 * neighbours, mass 1 tied to the ground by (c, d), mass n free; split into r
 * contiguous groups (the first n mod r groups get one extra mass).
 *
 * States of mass i: s_i (position), v_i (velocity); per group x = [s_f, v_f,
 * ..., s_l, v_l] for its masses f..l.  At the interface between the last
 * mass a of a group and the first mass b = a + 1 of the next group, the right
 * group holds the spring-damper: it takes s_a, v_a and outputs
 *   F_a = c (s_b - s_a) + d (v_b - v_a)
 * (mass b feels -F_a, mass a feels +F_a, F_a is the left group's input).
 * Per group:
 *   u = [F_l (if a right neighbour), s_a, v_a (if a left neighbour)]
 *   y = [s_l, v_l (if a right neighbour), F_a (if a left neighbour)]
 *   m v_i' = -K_i (c s_i + d v_i) + (c s_j + d v_j for in-group neighbours j)
 *            + F_l (i = l, right neighbour) + c s_a + d v_a (i = f, left),
 * where K_i = 1 + [i < l] counts the springs of mass i held by its own group
 * (the left one -- ground, in-group or interface -- and an in-group right one).
 * For n = r = 2 this is the two-mass oscillator of eq 27 with m1 = m2 = m,
 * c1 = ck = c, d1 = dk = d, c2 = d2 = 0. */
#include "builtin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_NMAX 100000 /* masses (the stacked system is dense: (2n)^2 doubles) */

enum { N, R, M, C, D, S1, V1, NPAR };

static const cosa_param params[NPAR] = {
    [N] = {"n", 6.0, "", "number of masses", COSA_PARAM_MODEL,
           {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 1.0, CHAIN_NMAX, NULL, NULL}},
    [R] = {"r", 3.0, "", "number of subsystems, contiguous groups of masses",
           COSA_PARAM_MODEL, {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 1.0, 0.0, NULL, "n"}},
    [M] = {"m", 1.0, "kg", "mass of each body", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C] = {"c", 1e4, "N/m", "spring between neighbours (and mass 1 to ground)",
           COSA_PARAM_MODEL},
    [D] = {"d", 10.0, "N s/m", "damper between neighbours (and mass 1 to ground)",
           COSA_PARAM_MODEL},
    [S1] = {"s1", 0.0, "m", "initial displacement of mass 1 (others start at 0)",
            COSA_PARAM_INITIAL},
    [V1] = {"v1", 1.0, "m/s", "initial velocity of mass 1 (others start at 0)",
            COSA_PARAM_INITIAL},
};

/* Structure for given n, r: group g holds masses first(g) .. first(g)+size(g)-1. */
struct layout {
    size_t n, r, base, extra;
};

static cosa_status get_layout(const double *par, struct layout *L)
{
    double n = par[N], r = par[R];
    if (!(n >= 1.0 && n <= CHAIN_NMAX) || n != floor(n) || !(r >= 1.0 && r <= n) ||
        r != floor(r) || !(par[M] > 0.0))
        return COSA_EPARAM;
    L->n = (size_t)n;
    L->r = (size_t)r;
    L->base = L->n / L->r;
    L->extra = L->n % L->r;
    return COSA_OK;
}

static size_t gsize(const struct layout *L, size_t g) { return L->base + (g < L->extra); }
static size_t gfirst(const struct layout *L, size_t g)
{
    return 1 + g * L->base + (g < L->extra ? g : L->extra);
}
static size_t gnu(const struct layout *L, size_t g)
{
    return (size_t)(g + 1 < L->r) + 2 * (size_t)(g > 0);
}
static size_t gny(const struct layout *L, size_t g)
{
    return 2 * (size_t)(g + 1 < L->r) + (size_t)(g > 0);
}
static size_t gentries(const struct layout *L, size_t g)
{
    size_t nx = 2 * gsize(L, g), nu = gnu(L, g), ny = gny(L, g);
    return nx * nx + nx * nu + ny * nx + ny * nu;
}

/* Blocks of group g into buf (A, B, C, D consecutive, column-major). */
static cosa_subsystem fill_group(const struct layout *L, const double *par, size_t g, double *buf)
{
    double m = par[M], c = par[C], d = par[D];
    size_t k = gsize(L, g), nx = 2 * k, nu = gnu(L, g), ny = gny(L, g);
    int right = g + 1 < L->r, left = g > 0;
    size_t jsa = right ? 1 : 0; /* column of the input s_a */
    memset(buf, 0, gentries(L, g) * sizeof *buf);
    double *A = buf, *B = A + nx * nx, *Cm = B + nx * nu, *Dm = Cm + ny * nx;
#define AE(i, j) A[(i) + (j) * nx]
    for (size_t q = 0; q < k; q++) {
        size_t rs = 2 * q, rv = rs + 1;
        AE(rs, rv) = 1.0;
        if (q + 1 < k) { /* K = 2 */
            AE(rv, rs) = (-2.0 * c) / m;
            AE(rv, rv) = (-2.0 * d) / m;
            AE(rv, rs + 2) = c / m;
            AE(rv, rv + 2) = d / m;
        } else {         /* K = 1 */
            AE(rv, rs) = -c / m;
            AE(rv, rv) = -d / m;
        }
        if (q > 0) {
            AE(rv, rs - 2) = c / m;
            AE(rv, rv - 2) = d / m;
        }
    }
#undef AE
    if (right) {
        B[(nx - 1) + 0 * nx] = 1.0 / m;      /* F_l acts on v_l           */
        Cm[0 + (nx - 2) * ny] = 1.0;         /* y = s_l                    */
        Cm[1 + (nx - 1) * ny] = 1.0;         /* y = v_l                    */
    }
    if (left) {
        B[1 + jsa * nx] = c / m;             /* c s_a + d v_a act on v_f   */
        B[1 + (jsa + 1) * nx] = d / m;
        Cm[(ny - 1) + 0 * ny] = c;           /* F_a = c s_f + d v_f - ...  */
        Cm[(ny - 1) + 1 * ny] = d;
        Dm[(ny - 1) + jsa * ny] = -c;        /*     ... - c s_a - d v_a    */
        Dm[(ny - 1) + (jsa + 1) * ny] = -d;
    }
    return (cosa_subsystem){nx, nu, ny, A, B, Cm, Dm};
}

static cosa_status create(const cosa_model *model, const double *par, cosa_system **out)
{
    if (!par || !out)
        return COSA_EINVAL;
    *out = NULL;
    struct layout L;
    cosa_status st = get_layout(par, &L);
    if (st != COSA_OK)
        return st;
    size_t total = 0, nu = 0, ny = 0;
    for (size_t g = 0; g < L.r; g++) {
        total += gentries(&L, g);
        nu += gnu(&L, g);
        ny += gny(&L, g);
    }
    double *buf = malloc(total * sizeof *buf);
    double *Lm = calloc(nu * ny + 1, sizeof *Lm);
    cosa_subsystem *sub = malloc(L.r * sizeof *sub);
    if (!buf || !Lm || !sub) {
        st = COSA_ENOMEM;
        goto done;
    }
    size_t off = 0, ou = 0, oy = 0;
    for (size_t g = 0; g < L.r; g++) {
        sub[g] = fill_group(&L, par, g, buf + off);
        off += gentries(&L, g);
        if (g + 1 < L.r) {
            /* interface a = last mass of g: inputs of g+1 start at ou + gnu(g) */
            size_t ou1 = ou + gnu(&L, g), oy1 = oy + gny(&L, g);
            int right1 = g + 2 < L.r;
            size_t yF = oy1 + (right1 ? 2 : 0);   /* F_a output of g+1          */
            size_t usa = ou1 + (right1 ? 1 : 0);  /* s_a input of g+1           */
            Lm[ou + yF * nu] = 1.0;               /* F_a -> first input of g    */
            Lm[usa + (oy + 0) * nu] = 1.0;        /* s_l of g -> s_a of g+1     */
            Lm[usa + 1 + (oy + 1) * nu] = 1.0;    /* v_l of g -> v_a of g+1     */
        }
        ou += gnu(&L, g);
        oy += gny(&L, g);
    }
    st = cosa_system_create(out, L.r, sub, Lm);
done:
    free(buf);
    free(Lm);
    free(sub);
    return st;
}

/* n and r fix the structure: a system built for other n, r gives COSA_EINVAL. */
static cosa_status update(const cosa_model *model, const double *par, cosa_system *sys)
{
    if (!par || !sys)
        return COSA_EINVAL;
    struct layout L;
    cosa_status st = get_layout(par, &L);
    if (st != COSA_OK)
        return st;
    if (cosa_system_nsub(sys) != L.r || cosa_system_nx(sys) != 2 * L.n)
        return COSA_EINVAL;
    size_t most = 0;
    for (size_t g = 0; g < L.r; g++)
        if (gentries(&L, g) > most)
            most = gentries(&L, g);
    double *buf = malloc(most * sizeof *buf);
    if (!buf)
        return COSA_ENOMEM;
    for (size_t g = 0; g < L.r && st == COSA_OK; g++) {
        cosa_subsystem s = fill_group(&L, par, g, buf);
        st = cosa_system_store_subsystem(sys, g, &s);
    }
    free(buf);
    /* validate once, after every group is stored (never a half-updated system) */
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

static cosa_status initial_state(const cosa_model *model, const double *par, double *x0)
{
    if (!par || !x0)
        return COSA_EINVAL;
    struct layout L;
    cosa_status st = get_layout(par, &L);
    if (st != COSA_OK)
        return st;
    memset(x0, 0, 2 * L.n * sizeof *x0);
    x0[0] = par[S1];
    x0[1] = par[V1];
    return COSA_OK;
}

/* Names "s1".."s999", "v1".., "F1".., "g1".. (groups) as static strings
 * (no storage per call; NAMES999 in builtin.h). */
static const char *const sname[NAMED] = {NAMES999("s")};
static const char *const vname[NAMED] = {NAMES999("v")};
static const char *const fname[NAMED] = {NAMES999("F")};
static const char *const gname[NAMED] = {NAMES999("g")};

/* kind 0/1/2 = s/v/F of mass (or interface) i (1-based); NULL past 999. */
static const char *qname(int kind, size_t i)
{
    const char *const *t = kind == 0 ? sname : kind == 1 ? vname : fname;
    size_t idx = i - 1; /* wraps for i = 0 */
    return idx < NAMED ? t[idx] : NULL;
}

static const char *state_name(const cosa_model *model, const double *par, size_t k)
{
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK || k >= 2 * L.n)
        return NULL;
    return qname((int)(k % 2), k / 2 + 1);
}

static const char *input_name(const cosa_model *model, const double *par, size_t k)
{
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK)
        return NULL;
    for (size_t g = 0; g < L.r; g++) {
        size_t nu = gnu(&L, g), f = gfirst(&L, g), l = f + gsize(&L, g) - 1;
        if (k >= nu) {
            k -= nu;
            continue;
        }
        if (g + 1 < L.r) {
            if (k == 0)
                return qname(2, l);
            k--;
        }
        return qname((int)k, f - 1);
    }
    return NULL;
}

static const char *output_name(const cosa_model *model, const double *par, size_t k)
{
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK)
        return NULL;
    for (size_t g = 0; g < L.r; g++) {
        size_t ny = gny(&L, g), f = gfirst(&L, g), l = f + gsize(&L, g) - 1;
        if (k >= ny) {
            k -= ny;
            continue;
        }
        if (g + 1 < L.r) {
            if (k < 2)
                return qname((int)k, l);
            k -= 2;
        }
        return qname(2, f - 1);
    }
    return NULL;
}

static const char *sub_name(const cosa_model *model, const double *par, size_t k)
{
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK || k >= L.r || k >= NAMED)
        return NULL;
    return gname[k];
}

/* The model-file form of the chain for cosa_model_dump (README "Model
 * files") for the n and r of par, which the file fixes: the entries of
 * fill_group() as expressions of m, c, d, operation for operation (masses
 * i = 1..n, states [s_i, v_i]; group g holds masses f..l; the interface
 * between masses a = f-1 and b = f is held by the right group: outputs F_a,
 * inputs s_a, v_a).  The dump uses it only if reading it back gives the
 * chain's matrices bit for bit. */
static int write_template(FILE *f, const cosa_model *m, const double *par)
{
    int kn = cosa_model_param_index(m, "n"), kr = cosa_model_param_index(m, "r");
    if (kn < 0 || kr < 0)
        return -1;
    double dn = par[kn], dr = par[kr];
    if (!(dn >= 1 && dn <= 1e6 && dr >= 1 && dr <= dn) || dn != floor(dn) || dr != floor(dr))
        return -1;
    size_t n = (size_t)dn, r = (size_t)dr, base = n / r, extra = n % r, f0 = 1;
    fprintf(f, "# chain with n = %zu masses in r = %zu groups (n and r are fixed here)\n", n, r);
    for (size_t g = 0; g < r; g++) {
        size_t k = base + (g < extra), l = f0 + k - 1;
        int left = g > 0, right = g + 1 < r;
        fprintf(f, "\nsubsystem g%zu\n  states ", g + 1);
        for (size_t i = f0; i <= l; i++)
            fprintf(f, " s%zu v%zu", i, i);
        fprintf(f, "\n  inputs ");
        if (right)
            fprintf(f, " F%zu", l);
        if (left)
            fprintf(f, " s%zu v%zu", f0 - 1, f0 - 1);
        fprintf(f, "\n  outputs");
        if (right)
            fprintf(f, " s%zu v%zu", l, l);
        if (left)
            fprintf(f, " F%zu", f0 - 1);
        fprintf(f, "\n  A = zeros\n");
        for (size_t i = f0; i <= l; i++) {
            size_t rs = 2 * (i - f0) + 1, rv = rs + 1;
            const char *kc = i < l ? "-2*c/m" : "-c/m", *kd = i < l ? "-2*d/m" : "-d/m";
            fprintf(f, "  A[%zu,%zu] = 1\n", rs, rv);
            if (i > f0)
                fprintf(f, "  A[%zu,%zu] = c/m\n  A[%zu,%zu] = d/m\n", rv, rs - 2, rv, rv - 2);
            fprintf(f, "  A[%zu,%zu] = %s\n  A[%zu,%zu] = %s\n", rv, rs, kc, rv, rv, kd);
            if (i < l)
                fprintf(f, "  A[%zu,%zu] = c/m\n  A[%zu,%zu] = d/m\n", rv, rs + 2, rv, rv + 2);
        }
        size_t nu = (size_t)right + 2 * (size_t)left, ny = 2 * (size_t)right + (size_t)left;
        size_t rvl = 2 * k, jsa = right ? 2 : 1;
        fprintf(f, "  B = %s\n", nu ? "zeros" : "[]");
        if (right)
            fprintf(f, "  B[%zu,1] = 1/m\n", rvl);
        if (left)
            fprintf(f, "  B[2,%zu] = c/m\n  B[2,%zu] = d/m\n", jsa, jsa + 1);
        fprintf(f, "  C = %s\n", ny ? "zeros" : "[]");
        if (right)
            fprintf(f, "  C[1,%zu] = 1\n  C[2,%zu] = 1\n", rvl - 1, rvl);
        if (left)
            fprintf(f, "  C[%zu,1] = c\n  C[%zu,2] = d\n", ny, ny);
        fprintf(f, "  D = %s\n", nu && ny ? "zeros" : "[]");
        if (left)
            fprintf(f, "  D[%zu,%zu] = -c\n  D[%zu,%zu] = -d\n", ny, jsa, ny, jsa + 1);
        fprintf(f, "  x0 = zeros\n");
        if (g == 0)
            fprintf(f, "  x0[1] = s1\n  x0[2] = v1\n");
        fprintf(f, "end\n");
        f0 = l + 1;
    }
    fprintf(f, "\n");
    f0 = 1;
    for (size_t g = 0; g + 1 < r; g++) {
        size_t l = f0 + base + (g < extra) - 1;
        fprintf(f, "connect g%zu.s%zu -> g%zu.s%zu\n", g + 1, l, g + 2, l);
        fprintf(f, "connect g%zu.v%zu -> g%zu.v%zu\n", g + 1, l, g + 2, l);
        fprintf(f, "connect g%zu.F%zu -> g%zu.F%zu\n", g + 2, l, g + 1, l);
        f0 = l + 1;
    }
    return ferror(f) ? -1 : 0;
}

static const char *const structural[] = {"n", "r", NULL};
static const cosa_model_template dump_template = {.write = write_template, .fixed = structural};

const cosa_model model_chain = {
    .name = "chain",
    .doc = "n masses in a line (springs/dampers between neighbours) split into r groups",
    .nparam = NPAR,
    .params = params,
    .tend = 1.0,
    .create = create,
    .update = update,
    .initial_state = initial_state,
    .state_name = state_name,
    .input_name = input_name,
    .output_name = output_name,
    .data = NULL,
    .sub_name = sub_name,
    .dump_template = &dump_template,
};
