/* chain_ff.c -- the nonlinear oscillator chain of the variable-order paper,
 * section 6.2 (Figs 15-16, eqs 37-38), split force/force.
 *
 * n masses m in a line; element i (i = 1..n) joins mass i-1 and mass i
 * (mass 0 is the ground, x_0 = v_0 = 0; mass n is free) with the force (eq 37)
 *   F_i = c w + d z + Cn w^3 + Dn z^3,   w = x_i - x_{i-1},  z = v_i - v_{i-1},
 * acting +F_i on mass i-1 and -F_i on mass i.  Hence
 *   m v_i' = -F_i + F_{i+1} [i < n] + F_imp,i(t) + F_con,i(x_i).
 * Impulses (sect. 6.2): on the masses chosen for them,
 *   F_imp,i(t) = sum_alpha dF_i/2 [tanh((t - t_a)/delta) - tanh((t - t_a - dtimp)/delta)],
 *   t_a = alpha tper (alpha = 0, 1, ...; tper = 0: t_0 = 0 only); delta = 0 or
 *   fimp = 0: none.  Only the pulses with t_a in [t - dtimp - 20 delta,
 *   t + 20 delta] are summed: for the others both tanh are +-1 to within
 *   2 e^-40 < 1e-17 (tanh(20) rounds to 1), so they add nothing.
 * Contacts: on the masses chosen for them, F_con,i = Acon exp(Bcon x_i)
 *   (Acon = 0: none).  f and the Jacobian return 1 (recoverable) when a
 *   value is not finite (an exp or a cube overflowed).
 *
 * Split (as the linear `chain`): r contiguous groups, the first n mod r of
 * them one mass larger.  The element between the last mass a of group s and
 * the first mass b = a + 1 of group s+1 is the coupling element; its force
 * F_b is the coupling variable u_s (eq 38), s = 1..r-1 (nc = r - 1):
 *   c = phi(y):  u_s = F_b(x_b - x_a, v_b - v_a) of the outputs y,
 *   inputs = S c:  +u_s into group s ("fr<a>", the force from the right on
 *                  mass a), -u_s into group s+1 ("fl<b>", from the left on b).
 * Unit s (masses f..l): x = [x_f, v_f, ..., x_l, v_l] (interleaved: banded
 * Jacobian), u = [fl_f (s > 1), fr_l (s < r)], y = [x_f, v_f (s > 1),
 * x_l, v_l (s < r)] (a one-mass group in the middle outputs its mass twice,
 * under the same names).  No feedthrough.  L = S dphi/dy(0) (the linear
 * coupling: exact for Cn = Dn = 0).  r = 1: one unit, no coupling.
 * With Cn = Dn = fimp = fcon = x0max = v0max = 0 this is the linear `chain`
 * at the same n, r, m, c, d, s1, v1 (other split, same monolithic system).
 *
 * Randomness: SplitMix64 (Steele, Lea, Flood 2014; Vigna's splitmix64.c),
 * state = seed, output k (k = 0, 1, ...) = mix(seed + (k+1) 0x9E3779B97F4A7C15),
 * uniform U = (output >> 11) 2^-53 in [0, 1).  Mass i (1-based) owns the six
 * outputs k = 6 (i-1) + j, so its draws depend on seed and i only:
 *   j = 0: impulse selection by Knuth's selection sampling over masses
 *          1..n (TAOCP 3.4.2, Algorithm S): mass i is chosen iff
 *          U < (K - chosen so far) / (n - i + 1), K = floor(fimp n + 1/2):
 *          exactly K masses, every K-subset equally likely;
 *   j = 1: contact selection, the same with K = floor(fcon n + 1/2);
 *   j = 2: |dF_i| = dFmin + (dFmax - dFmin) U;
 *   j = 3: sign of dF_i: negative iff U < 1/2;
 *   j = 4: x_i(0) = x0max (2U - 1);
 *   j = 5: v_i(0) = v0max (2U - 1)
 * (then s1, v1 replace mass 1's initial state).  64-bit integer arithmetic
 * and IEEE basic operations only (no libc generator, no libm): the same
 * choices on every platform. */
#include "builtin.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHAIN_FF_NMAX 1000000         /* masses (issue 11: n up to 1e6)         */
#define SEED_MAX 4294967295.0         /* 2^32 - 1                               */
#define PULSES_MAX 1e6                /* overlapping pulses per evaluation      */
#define TANH_CUT 20.0                 /* |arg| beyond which tanh is +-1         */

enum {
    N, R, M, C, D, CN, DN, FIMP, DFMIN, DFMAX, TPER, DELTA, DTIMP, FCON, ACON, BCON, X0MAX,
    V0MAX, SEED, S1, V1, NPAR
};

#define RANGE_FRACTION {COSA_RANGE_GE | COSA_RANGE_LE, 0.0, 1.0, NULL, NULL}

static const cosa_param params[NPAR] = {
    [N] = {"n", 6.0, "", "number of masses", COSA_PARAM_MODEL,
           {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 2.0, CHAIN_FF_NMAX, NULL, NULL}},
    [R] = {"r", 3.0, "", "number of subsystems, contiguous groups of masses",
           COSA_PARAM_MODEL, {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 1.0, 0.0, NULL, "n"}},
    [M] = {"m", 1.0, "kg", "mass of each body", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [C] = {"c", 1e4, "N/m", "linear stiffness of every element (eq 37)", COSA_PARAM_MODEL},
    [D] = {"d", 10.0, "N s/m", "linear damping of every element (eq 37)", COSA_PARAM_MODEL},
    [CN] = {"Cn", 0.0, "N/m^3", "cubic stiffness of every element (eq 37)", COSA_PARAM_MODEL},
    [DN] = {"Dn", 0.0, "Ns^3/m^3", "cubic damping of every element (eq 37)", COSA_PARAM_MODEL},
    [FIMP] = {"fimp", 0.0, "", "fraction of the masses with impulse forces", COSA_PARAM_MODEL,
              RANGE_FRACTION},
    [DFMIN] = {"dFmin", 0.0, "N", "smallest impulse amplitude |dF|", COSA_PARAM_MODEL,
               RANGE_NONNEGATIVE},
    [DFMAX] = {"dFmax", 0.0, "N", "largest impulse amplitude |dF| (uniform, random sign)",
               COSA_PARAM_MODEL, {COSA_RANGE_GE, 0.0, 0.0, "dFmin", NULL}},
    [TPER] = {"tper", 0.0, "s", "impulse period (impulses at 0, tper, 2 tper, ...; 0: at 0 only)",
              COSA_PARAM_MODEL, RANGE_NONNEGATIVE},
    [DELTA] = {"delta", 0.0, "s", "impulse edge time delta (0: no impulses)", COSA_PARAM_MODEL,
               RANGE_NONNEGATIVE},
    [DTIMP] = {"dtimp", 0.0, "s", "impulse duration", COSA_PARAM_MODEL, RANGE_NONNEGATIVE},
    [FCON] = {"fcon", 0.0, "", "fraction of the masses with contact forces", COSA_PARAM_MODEL,
              RANGE_FRACTION},
    [ACON] = {"Acon", 0.0, "N", "contact force amplitude A (F_con = A exp(B x_i))",
              COSA_PARAM_MODEL},
    [BCON] = {"Bcon", 0.0, "1/m", "contact force exponent B (F_con = A exp(B x_i))",
              COSA_PARAM_MODEL},
    [X0MAX] = {"x0max", 0.0, "m", "initial displacements uniform in [-x0max, x0max]",
               COSA_PARAM_INITIAL, RANGE_NONNEGATIVE},
    [V0MAX] = {"v0max", 0.0, "m/s", "initial velocities uniform in [-v0max, v0max]",
               COSA_PARAM_INITIAL, RANGE_NONNEGATIVE},
    [SEED] = {"seed", 0.0, "", "seed of the random choices (SplitMix64)", COSA_PARAM_MODEL,
              {COSA_RANGE_INT | COSA_RANGE_GE | COSA_RANGE_LE, 0.0, SEED_MAX, NULL, NULL}},
    [S1] = {"s1", 0.0, "m", "initial displacement x1(0) of mass 1", COSA_PARAM_INITIAL},
    [V1] = {"v1", 1.0, "m/s", "initial velocity v1(0) of mass 1", COSA_PARAM_INITIAL},
};

/* ---- random choices ------------------------------------------------------- */

static uint64_t splitmix64_at(uint64_t seed, uint64_t k)
{
    uint64_t z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

enum { DRAW_IMP, DRAW_CON, DRAW_AMP, DRAW_SIGN, DRAW_X0, DRAW_V0, DRAWS };

/* Draw j of mass i (1-based), uniform in [0, 1). */
static double draw(const double *par, size_t i, int j)
{
    const uint64_t k = (uint64_t)(i - 1) * DRAWS + (uint64_t)j;
    return (double)(splitmix64_at((uint64_t)par[SEED], k) >> 11) * 0x1.0p-53;
}

/* Knuth's selection sampling over masses 1..n with draw j: flags (n). */
static void select_masses(const double *par, size_t n, double frac, int j, unsigned char *flag)
{
    size_t want = (size_t)floor(frac * (double)n + 0.5), got = 0;
    for (size_t i = 1; i <= n; i++) {
        flag[i - 1] = draw(par, i, j) < (double)(want - got) / (double)(n - i + 1);
        got += flag[i - 1];
    }
}

/* ---- structure ------------------------------------------------------------ */

struct layout {
    size_t n, r, base, extra;
};

static cosa_status get_layout(const double *par, struct layout *L)
{
    const double n = par[N], r = par[R];
    if (!(n >= 2.0 && n <= CHAIN_FF_NMAX) || n != floor(n) || !(r >= 1.0 && r <= n) ||
        r != floor(r))
        return COSA_EPARAM;
    L->n = (size_t)n;
    L->r = (size_t)r;
    L->base = L->n / L->r;
    L->extra = L->n % L->r;
    return COSA_OK;
}

/* Every parameter rule: the declared ranges, plus, with impulses, a bound
 * on the pulses summed at one time, (dtimp + 40 delta) / tper <= 1e6
 * (which no range can declare). */
static cosa_status check(const double *par, struct layout *L)
{
    cosa_status st = get_layout(par, L);
    if (st != COSA_OK)
        return st;
    if (!(par[M] > 0.0) || !(par[FIMP] >= 0.0 && par[FIMP] <= 1.0) ||
        !(par[FCON] >= 0.0 && par[FCON] <= 1.0) || !(par[DFMIN] >= 0.0) ||
        !(par[DFMAX] >= par[DFMIN]) || !(par[TPER] >= 0.0) || !(par[DELTA] >= 0.0) ||
        !(par[DTIMP] >= 0.0) || !(par[X0MAX] >= 0.0) || !(par[V0MAX] >= 0.0) ||
        !(par[SEED] >= 0.0 && par[SEED] <= SEED_MAX) || par[SEED] != floor(par[SEED]))
        return COSA_EPARAM;
    if (par[FIMP] > 0.0 && par[DELTA] > 0.0 && par[TPER] > 0.0 &&
        !((par[DTIMP] + 2.0 * TANH_CUT * par[DELTA]) / par[TPER] <= PULSES_MAX))
        return COSA_EPARAM;
    return COSA_OK;
}

static size_t gsize(const struct layout *L, size_t g) { return L->base + (g < L->extra); }
static size_t gfirst(const struct layout *L, size_t g)
{
    return 1 + g * L->base + (g < L->extra ? g : L->extra);
}
static size_t gnu(const struct layout *L, size_t g)
{
    return (size_t)(g > 0) + (size_t)(g + 1 < L->r);
}
static size_t gny(const struct layout *L, size_t g) { return 2 * gnu(L, g); }

/* ---- the model's data ------------------------------------------------------ */

struct cff;

struct cff_unit {
    const struct cff *d;
    size_t g, f, k;              /* group, its first mass (1-based), size    */
};

struct cff {
    double p[NPAR];
    struct layout L;
    double *dF;                  /* n: impulse amplitude (0: none)            */
    unsigned char *con;          /* n: contact                                */
    unsigned char *kick;         /* 2 max k: 0, 1, 0, 1, ...                  */
    struct cff_unit *unit;       /* r                                         */
    size_t *ya, *yb;             /* nc: outputs x_a (v_a next), x_b (v_b)     */
    size_t ny;
    int impulses, contacts;
};

static void cff_free(void *p)
{
    struct cff *d = p;
    if (!d)
        return;
    free(d->dF);
    free(d->con);
    free(d->kick);
    free(d->unit);
    free(d->ya);
    free(d->yb);
    free(d);
}

/* F_imp(t) / dF of a mass (sum over the pulses near t). */
static double pulse_sum(const struct cff *d, double t)
{
    const double *p = d->p, del = p[DELTA], dt = p[DTIMP], W = TANH_CUT * del;
    double a0 = 0.0, a1 = 0.0;
    if (p[TPER] > 0.0) {
        a0 = fmax(0.0, ceil((t - dt - W) / p[TPER]));
        a1 = floor((t + W) / p[TPER]);
    }
    double s = 0.0;
    for (double a = a0; a <= a1; a += 1.0) {
        const double ta = a * p[TPER];
        s += 0.5 * (tanh((t - ta) / del) - tanh((t - (ta + dt)) / del));
    }
    return s;
}

/* Element force and its partial derivatives (eq 37). */
static double element(const double *p, double w, double z)
{
    return p[C] * w + p[D] * z + p[CN] * w * w * w + p[DN] * z * z * z;
}
static void element_diff(const double *p, double w, double z, double *Fw, double *Fz)
{
    *Fw = p[C] + 3.0 * p[CN] * w * w;
    *Fz = p[D] + 3.0 * p[DN] * z * z;
}

static int f_unit(double t, const double *x, const double *u, double *out, void *ud)
{
    const struct cff_unit *un = ud;
    const struct cff *d = un->d;
    const double *p = d->p;
    const size_t k = un->k, f = un->f;
    const int left = un->g > 0, right = un->g + 1 < d->L.r;
    const double P = d->impulses ? pulse_sum(d, t) : 0.0;
    /* Fl: the force on mass f+q from the element on its left, -F_{f+q} */
    double Fl = left ? u[0] : -element(p, x[0], x[1]); /* left: ground (f = 1) */
    for (size_t q = 0; q < k; q++) {
        const size_t i = f + q;
        double Fr = 0.0; /* from the element on its right, +F_{i+1} */
        if (q + 1 < k)
            Fr = element(p, x[2 * q + 2] - x[2 * q], x[2 * q + 3] - x[2 * q + 1]);
        else if (right)
            Fr = u[left ? 1 : 0];
        double F = Fl + Fr;
        if (d->impulses && d->dF[i - 1] != 0.0)
            F += d->dF[i - 1] * P;
        if (d->contacts && d->con[i - 1])
            F += p[ACON] * exp(p[BCON] * x[2 * q]);
        out[2 * q] = x[2 * q + 1];
        out[2 * q + 1] = F / p[M];
        Fl = -Fr;
    }
    for (size_t r = 0; r < 2 * k; r++)
        if (!isfinite(out[r]))
            return 1;
    return 0;
}

static int g_unit(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t, (void)u;
    const struct cff_unit *un = ud;
    const size_t k = un->k;
    size_t o = 0;
    if (un->g > 0) {
        out[o++] = x[0];
        out[o++] = x[1];
    }
    if (un->g + 1 < un->d->L.r) {
        out[o++] = x[2 * k - 2];
        out[o++] = x[2 * k - 1];
    }
    return 0;
}

/* Dense A (2k x 2k), B (2k x nu), C (ny x 2k), D = 0 (ny x nu). */
static int jac_unit(double t, const double *x, const double *u, double *A, double *B, double *Cm,
                    double *Dm, void *ud)
{
    (void)t, (void)u;
    const struct cff_unit *un = ud;
    const struct cff *d = un->d;
    const double *p = d->p, m = p[M];
    const size_t k = un->k, nx = 2 * k, f = un->f;
    const int left = un->g > 0, right = un->g + 1 < d->L.r;
    const size_t nu = (size_t)left + (size_t)right, ny = 2 * nu;
    memset(A, 0, nx * nx * sizeof *A);
    memset(B, 0, nx * nu * sizeof *B);
    memset(Cm, 0, ny * nx * sizeof *Cm);
    memset(Dm, 0, ny * nu * sizeof *Dm);
#define AE(i, j) A[(i) + (j) * nx]
    for (size_t q = 0; q < k; q++) {
        const size_t rx = 2 * q, rv = rx + 1, i = f + q;
        double Fw, Fz;
        AE(rx, rv) = 1.0;
        if (q > 0) { /* -F_i(x_i - x_{i-1}, ...) */
            element_diff(p, x[rx] - x[rx - 2], x[rv] - x[rv - 2], &Fw, &Fz);
            AE(rv, rx) -= Fw / m;
            AE(rv, rv) -= Fz / m;
            AE(rv, rx - 2) += Fw / m;
            AE(rv, rv - 2) += Fz / m;
        } else if (!left) { /* the ground element of mass 1 */
            element_diff(p, x[rx], x[rv], &Fw, &Fz);
            AE(rv, rx) -= Fw / m;
            AE(rv, rv) -= Fz / m;
        }
        if (q + 1 < k) { /* +F_{i+1}(x_{i+1} - x_i, ...) */
            element_diff(p, x[rx + 2] - x[rx], x[rv + 2] - x[rv], &Fw, &Fz);
            AE(rv, rx + 2) += Fw / m;
            AE(rv, rv + 2) += Fz / m;
            AE(rv, rx) -= Fw / m;
            AE(rv, rv) -= Fz / m;
        }
        if (d->contacts && d->con[i - 1])
            AE(rv, rx) += p[ACON] * p[BCON] * exp(p[BCON] * x[rx]) / m;
    }
#undef AE
    if (left)
        B[1] = 1.0 / m; /* fl_f on v_f */
    if (right)
        B[(nx - 1) + (left ? 1 : 0) * nx] = 1.0 / m; /* fr_l on v_l */
    size_t o = 0;
    if (left) {
        Cm[o + 0 * ny] = 1.0;
        Cm[o + 1 + 1 * ny] = 1.0;
        o += 2;
    }
    if (right) {
        Cm[o + (nx - 2) * ny] = 1.0;
        Cm[o + 1 + (nx - 1) * ny] = 1.0;
    }
    for (size_t r = 0; r < nx * nx; r++)
        if (!isfinite(A[r]))
            return 1;
    return 0;
}

/* u_s = F_b(x_b - x_a, v_b - v_a) (eq 38) and dphi/dy (nc x ny). */
static cosa_status phi(void *ctx, double t, const double *y, double *c, double *J)
{
    (void)t;
    const struct cff *d = ctx;
    const size_t nc = d->L.r - 1;
    if (J)
        memset(J, 0, nc * d->ny * sizeof *J);
    for (size_t s = 0; s < nc; s++) {
        const size_t a = d->ya[s], b = d->yb[s];
        const double w = y[b] - y[a], z = y[b + 1] - y[a + 1];
        c[s] = element(d->p, w, z);
        if (J) {
            double Fw, Fz;
            element_diff(d->p, w, z, &Fw, &Fz);
            J[s + a * nc] = -Fw;
            J[s + (a + 1) * nc] = -Fz;
            J[s + b * nc] = Fw;
            J[s + (b + 1) * nc] = Fz;
        }
    }
    return COSA_OK;
}

/* The model's data for par (validated). */
static cosa_status cff_build(const double *par, const struct layout *L, struct cff **out)
{
    *out = NULL;
    struct cff *d = calloc(1, sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    memcpy(d->p, par, sizeof d->p);
    d->L = *L;
    const size_t n = L->n, r = L->r, nc = r - 1, kmax = L->base + (L->extra > 0);
    d->dF = calloc(n, sizeof *d->dF);
    d->con = calloc(n, 1);
    d->kick = calloc(2 * kmax, 1);
    d->unit = calloc(r, sizeof *d->unit);
    d->ya = calloc(nc + 1, sizeof *d->ya);
    d->yb = calloc(nc + 1, sizeof *d->yb);
    if (!d->dF || !d->con || !d->kick || !d->unit || !d->ya || !d->yb) {
        cff_free(d);
        return COSA_ENOMEM;
    }
    for (size_t q = 0; q < kmax; q++)
        d->kick[2 * q + 1] = 1; /* x drifts, v is kicked */
    d->impulses = par[FIMP] > 0.0 && par[DELTA] > 0.0;
    d->contacts = par[FCON] > 0.0 && par[ACON] != 0.0;
    if (d->impulses) {
        unsigned char *sel = d->con; /* scratch until the contacts are chosen */
        select_masses(par, n, par[FIMP], DRAW_IMP, sel);
        for (size_t i = 1; i <= n; i++)
            if (sel[i - 1]) {
                const double a = par[DFMIN] + (par[DFMAX] - par[DFMIN]) * draw(par, i, DRAW_AMP);
                d->dF[i - 1] = draw(par, i, DRAW_SIGN) < 0.5 ? -a : a;
            }
        memset(d->con, 0, n);
    }
    if (d->contacts)
        select_masses(par, n, par[FCON], DRAW_CON, d->con);
    size_t oy = 0;
    for (size_t g = 0; g < r; g++) {
        d->unit[g] = (struct cff_unit){d, g, gfirst(L, g), gsize(L, g)};
        if (g > 0)
            d->yb[g - 1] = oy;                /* x_f, v_f of group g      */
        if (g + 1 < r)
            d->ya[g] = oy + 2 * (size_t)(g > 0); /* x_l, v_l of group g   */
        oy += gny(L, g);
    }
    d->ny = oy;
    *out = d;
    return COSA_OK;
}

static cosa_status create_ode(const cosa_model *m, const double *par, cosa_odesys **out)
{
    (void)m;
    if (!par || !out)
        return COSA_EINVAL;
    *out = NULL;
    struct layout L;
    cosa_status st = check(par, &L);
    if (st != COSA_OK)
        return st;
    struct cff *d = NULL;
    if ((st = cff_build(par, &L, &d)) != COSA_OK)
        return st;
    const size_t r = L.r, nc = r - 1, ny = d->ny;
    size_t nu = 0;
    for (size_t g = 0; g < r; g++)
        nu += gnu(&L, g);
    cosa_ode *subs = calloc(r, sizeof *subs);
    double *S = calloc(nu * nc + 1, sizeof *S);
    double *J0 = calloc(nc * ny + 1, sizeof *J0), *c0 = calloc(nc + 1, sizeof *c0);
    double *y0 = calloc(ny + 1, sizeof *y0), *Lm = calloc(nu * ny + 1, sizeof *Lm);
    if (!subs || !S || !J0 || !c0 || !y0 || !Lm) {
        cff_free(d);
        st = COSA_ENOMEM;
        goto done;
    }
    size_t ou = 0;
    for (size_t g = 0; g < r; g++) {
        const size_t k = gsize(&L, g);
        /* banded: x_i' = v_i (upper 1), v_i' = f(x_{i-1}, v_{i-1}, x_i, v_i,
         * x_{i+1}, v_{i+1}) (lower 3, upper 2) with the states interleaved;
         * CVODE then never forms a dense matrix (long chains) */
        subs[g] = (cosa_ode){.nx = 2 * k, .nu = gnu(&L, g), .ny = gny(&L, g), .f = f_unit,
                             .g = g_unit, .jac = jac_unit, .kick = d->kick,
                             .user_data = &d->unit[g], .banded = 1,
                             .band_lower = 2 * k - 1 < 3 ? 2 * k - 1 : 3,
                             .band_upper = 2 * k - 1 < 2 ? 2 * k - 1 : 2};
        if (g > 0)
            S[ou + (g - 1) * nu] = -1.0;           /* fl_f = -u_{g-1}     */
        if (g + 1 < r)
            S[ou + (g > 0) + g * nu] = 1.0;        /* fr_l = +u_g         */
        ou += gnu(&L, g);
    }
    /* L = S dphi/dy(0) */
    if (nc) {
        phi(d, 0.0, y0, c0, J0);
        for (size_t j = 0; j < ny; j++)
            for (size_t s = 0; s < nc; s++)
                for (size_t i = 0; i < nu; i++)
                    if (S[i + s * nu] != 0.0)
                        Lm[i + j * nu] += S[i + s * nu] * J0[s + j * nc];
    }
    st = cosa_odesys_create(out, r, subs, Lm, d, cff_free); /* owns d from here */
    /* the whole chain, masses in order: the same bands (the coupling
     * elements join neighbouring masses) */
    if (st == COSA_OK)
        st = cosa_odesys_set_band(*out, 3, 2);
    if (st == COSA_OK && nc) {
        const cosa_coupling cpl = {.nc = nc, .phi = phi, .S = S, .ctx = d};
        st = cosa_odesys_set_coupling(*out, &cpl);
        if (st != COSA_OK) {
            cosa_odesys_free(*out);
            *out = NULL;
        }
    }
    /* Cn = Dn = 0, no impulse and no contact force: linear units and a
     * linear phi (exact units, issue 23) */
    if (st == COSA_OK) { /* (d is alive: *out owns it) */
        int forced = 0;
        for (size_t i = 0; i < L.n; i++)
            forced |= (d->impulses && d->dF[i] != 0.0) || (d->contacts && d->con[i]);
        if (par[CN] == 0.0 && par[DN] == 0.0 && !forced)
            st = cosa_odesys_set_linear(*out);
    }
done:
    free(subs);
    free(S);
    free(J0);
    free(c0);
    free(y0);
    free(Lm);
    return st;
}

static cosa_status initial_state(const cosa_model *m, const double *par, double *x0)
{
    (void)m;
    if (!par || !x0)
        return COSA_EINVAL;
    struct layout L;
    cosa_status st = check(par, &L);
    if (st != COSA_OK)
        return st;
    for (size_t i = 1; i <= L.n; i++) {
        const double ux = draw(par, i, DRAW_X0), uv = draw(par, i, DRAW_V0);
        x0[2 * i - 2] = par[X0MAX] > 0.0 ? par[X0MAX] * (2.0 * ux - 1.0) : 0.0;
        x0[2 * i - 1] = par[V0MAX] > 0.0 ? par[V0MAX] * (2.0 * uv - 1.0) : 0.0;
    }
    x0[0] = par[S1];
    x0[1] = par[V1];
    return COSA_OK;
}

/* ---- names ----------------------------------------------------------------- */

static const char *const xname[NAMED] = {NAMES999("x")};
static const char *const vname[NAMED] = {NAMES999("v")};
static const char *const flname[NAMED] = {NAMES999("fl")};
static const char *const frname[NAMED] = {NAMES999("fr")};
static const char *const gname[NAMED] = {NAMES999("g")};

/* Entry i (1-based) of table t; NULL past 999. */
static const char *nth(const char *const *t, size_t i)
{
    return i >= 1 && i <= NAMED ? t[i - 1] : NULL;
}

static const char *state_name(const cosa_model *m, const double *par, size_t k)
{
    (void)m;
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK || k >= 2 * L.n)
        return NULL;
    return nth(k % 2 ? vname : xname, k / 2 + 1);
}

static const char *input_name(const cosa_model *m, const double *par, size_t k)
{
    (void)m;
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK)
        return NULL;
    for (size_t g = 0; g < L.r; g++) {
        const size_t nu = gnu(&L, g), f = gfirst(&L, g), l = f + gsize(&L, g) - 1;
        if (k >= nu) {
            k -= nu;
            continue;
        }
        if (g > 0 && k == 0)
            return nth(flname, f);
        return nth(frname, l);
    }
    return NULL;
}

static const char *output_name(const cosa_model *m, const double *par, size_t k)
{
    (void)m;
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK)
        return NULL;
    for (size_t g = 0; g < L.r; g++) {
        const size_t ny = gny(&L, g), f = gfirst(&L, g), l = f + gsize(&L, g) - 1;
        if (k >= ny) {
            k -= ny;
            continue;
        }
        const size_t i = g > 0 && k < 2 ? f : l;
        return nth(k % 2 ? vname : xname, i);
    }
    return NULL;
}

static const char *sub_name(const cosa_model *m, const double *par, size_t k)
{
    (void)m;
    struct layout L;
    if (!par || get_layout(par, &L) != COSA_OK || k >= L.r)
        return NULL;
    return nth(gname, k + 1);
}

const cosa_model model_chain_ff = {
    .name = "chain-ff",
    .doc = "nonlinear oscillator chain, force/force split into r groups, impulses and contacts "
           "(variable-order paper section 6.2, eqs 37-38)",
    .nparam = NPAR,
    .params = params,
    .tend = 0.5,
    .create_ode = create_ode,
    .initial_state = initial_state,
    .state_name = state_name,
    .input_name = input_name,
    .output_name = output_name,
    .sub_name = sub_name,
};
