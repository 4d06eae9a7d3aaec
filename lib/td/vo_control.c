/* vo_control.c -- order and macro-step control of the variable-order
 * co-simulation paper (sect. 5, Figs 6 and 7; issue 11).
 *
 * After every attempted macro step T_N -> T_N + H_N of polynomial degree k the
 * controller decides, in the paper's three steps:
 *
 * 1. Local error test (eqs 25-27).  The step passes iff its WRMS error norm
 *    is <= 1 and the implicit corrector converged; the norm is
 *    max(||eps^pos||, ||eps^vel||) for estimators on states (eq 26: ExLocal,
 *    ExMilne, ImMilne) and ||eps^u|| for estimators on coupling variables
 *    (eq 27: ExSLocal, ImSLocal).  An infinite norm fails.  The next step is
 *    T_M -> T_M+1 with M = N + 1 if it passed, M = N if it is repeated
 *    (eq 28).  N_fail counts the consecutive failed attempts of the current
 *    step (0 after a passed one).
 *
 * 2. Degree (sect. 5.2.2, Fig 6; only with params.order = 1).  With
 *    SDN(j) = ||H_N^j P_M+1^{j,(j)}|| of the history ending at T_M (eq 30):
 *      decrease:  k = 1 and SDN(1) <= SDN(2)/2                  -> k_new = 0,
 *                 k > 1 and max(SDN(k), SDN(k-1)) <= SDN(k+1)   -> k_new = k-1;
 *      N_fail:    N_fail > 5 -> k_new = 0;  N_fail > 3 -> min(k_new, 1);
 *      increase:  only after a passed step whose decrease tests left k as it
 *                 was, with k < kmax and N_succ > k (k + 1 passed steps in a
 *                 row at degree k, none smaller than its predecessor):
 *                 k = 0 and SDN(2) < SDN(1)/2                   -> 1,
 *                 k > 0 and SDN(k) <= min(SDN(k+1), SDN(k+2))   -> k - 1,
 *                 k > 0 and SDN(k+2) < SDN(k+1)                 -> k + 1.
 *    A test whose SDN values are not all available (the history callback
 *    returns a negative value: too few points) is skipped, i.e. it leaves
 *    k_new as it is; the increase block needs all of its SDN values, so one
 *    missing value skips the whole block.
 *
 * 3. Macro step (sect. 5.3, eqs 32-34, Fig 7).  r^rho =
 *      unchanged degree, state estimators (eq 32 alpha):
 *          min((SF ||eps^pos||)^(-1/(k+3)), (SF ||eps^vel||)^(-1/(k+2))),
 *      unchanged degree, coupling estimators (eq 32 beta):
 *          (SF ||eps^u||)^(-1/(k+1)),
 *      changed degree (eq 33, with eps~ of eq 31 of degree k_new at T_M+1):
 *          (SF ||eps~||)^(-1/(k_new+1));
 *    a zero norm gives r^rho = +inf.  Then (Fig 7)
 *      N_fail = 0:  r >= rmax -> H = rmax H_N;  r < 1 -> H = min(0.9,
 *                   max(rmin, r)) H_N;  otherwise H = H_N;
 *      N_fail = 1:  H = min(0.9, max(0.25, 0.9 r)) H_N;
 *      N_fail > 1 or corrector failed:  H = 0.25 H_N;
 *    and H <= H_min stops the run.
 *
 * Nothing here allocates or keeps global state: all memory between attempts
 * is the caller's cosa_vo_control_state, and a failed call (bad argument,
 * NaN from a history callback) leaves it and the decision untouched. */
#include "cosa/td.h"

#include <limits.h>
#include <math.h>

/* SDN(j0 .. j0+n-1) of the history ending at T_M into v: 1 if all are
 * available, 0 if one is not (negative: too little history), -1 for a NaN. */
static int sdn_fetch(const cosa_vo_history *h, int passed, int j0, int n, double *v)
{
    int all = 1;
    for (int i = 0; i < n; i++) {
        v[i] = h->sdn(h->ctx, passed, j0 + i);
        if (isnan(v[i]))
            return -1;
        if (v[i] < 0.0)
            all = 0;
    }
    return all;
}

/* Step 2, the degree k_new of the next attempt (sect. 5.2.2, Fig 6).
 * COSA_ERANGE if the history gives a NaN SDN. */
static cosa_status order_decide(const cosa_vo_history *h, int kmax, int k, int passed,
                                int nfail, int nsucc, int *knew)
{
    double v[3];
    int got;
    int kn = k;

    /* decrease tests, on the history ending at T_M (eq 28) */
    if (k == 1) {
        if ((got = sdn_fetch(h, passed, 1, 2, v)) < 0)
            return COSA_ERANGE;
        if (got && v[0] <= 0.5 * v[1])
            kn = 0;
    } else if (k > 1) {
        /* v = SDN(k-1), SDN(k), SDN(k+1) */
        if ((got = sdn_fetch(h, passed, k - 1, 3, v)) < 0)
            return COSA_ERANGE;
        if (got && fmax(v[1], v[0]) <= v[2])
            kn = k - 1;
    }

    /* consecutive failed attempts of the current step */
    if (nfail > 5)
        kn = 0;
    else if (nfail > 3 && kn > 1)
        kn = 1;

    /* increase block: passed, k untouched so far, room to grow, N_succ > k */
    if (passed && kn == k && k < kmax && nsucc > k) {
        if (k == 0) {
            if ((got = sdn_fetch(h, 1, 1, 2, v)) < 0)
                return COSA_ERANGE;
            if (got && v[1] < 0.5 * v[0])
                kn = 1;
        } else {
            /* v = SDN(k), SDN(k+1), SDN(k+2) */
            if ((got = sdn_fetch(h, 1, k, 3, v)) < 0)
                return COSA_ERANGE;
            if (got && v[0] <= fmin(v[1], v[2]))
                kn = k - 1;
            else if (got && v[2] < v[1])
                kn = k + 1;
        }
    }
    *knew = kn;
    return COSA_OK;
}

/* (SF x)^(-1/q), the factor that brings the norm x to 1/SF at convergence
 * order q (eqs 32-33); +inf for x = 0, 0 for x = inf. */
static double ratio(double sf, double x, int q)
{
    if (x == 0.0)
        return INFINITY;
    return pow(sf * x, -1.0 / q);
}

/* Step 3a, r^rho of eq 34.  A changed degree reads ||eps~|| of degree knew
 * (eq 33); should the history not have it (negative: too few points), the
 * a-posteriori factor of eq 32 at the attempted degree k stands in.
 * COSA_ERANGE if the history gives a NaN. */
static cosa_status rho_compute(const cosa_vo_control_params *p, const cosa_vo_control_input *in,
                               const cosa_vo_history *h, int passed, int knew, double *r)
{
    if (knew != in->k) {
        const double e = h->etilde(h->ctx, passed, knew);
        if (isnan(e))
            return COSA_ERANGE;
        if (e >= 0.0) {
            *r = ratio(p->sf, e, knew + 1);
            return COSA_OK;
        }
    }
    if (in->state_est)
        *r = fmin(ratio(p->sf, in->err_pos, in->k + 3), ratio(p->sf, in->err_vel, in->k + 2));
    else
        *r = ratio(p->sf, in->err_u, in->k + 1);
    return COSA_OK;
}

/* Step 3b, the limits of Fig 7: the next macro step from r^rho and H_N. */
static double step_limit(const cosa_vo_control_params *p, int nfail, int corr_failed, double r,
                         double H)
{
    double f;
    if (nfail > 1 || corr_failed)
        f = 0.25;
    else if (nfail == 1)
        f = fmin(0.9, fmax(0.25, 0.9 * r));
    else if (r >= p->rmax)
        f = p->rmax;
    else if (r < 1.0)
        f = fmin(0.9, fmax(p->rmin, r));
    else
        f = 1.0;
    return f * H;
}

/* A WRMS norm: >= 0, +inf allowed (it fails the test), NaN not. */
static int norm_ok(double x) { return x >= 0.0; }

void cosa_vo_control_reset(cosa_vo_control_state *s)
{
    if (!s)
        return;
    s->nfail = 0;
    s->nsucc = 0;
    s->restart = 1;
    s->hprev = 0.0;
}

cosa_status cosa_vo_control_decide(const cosa_vo_control_params *p, cosa_vo_control_state *s,
                                   const cosa_vo_control_input *in, const cosa_vo_history *hist,
                                   cosa_vo_decision *out)
{
    if (!p || !s || !in || !out)
        return COSA_EINVAL;
    /* the history is read only when the degree is controlled */
    if (p->order && (!hist || !hist->sdn || !hist->etilde))
        return COSA_EINVAL;
    if ((p->order != 0 && p->order != 1) || p->kmax < 0 || p->kmax > COSA_VO_KMAX ||
        !(isfinite(p->sf) && p->sf > 0.0) || !(p->rmin > 0.0 && p->rmin < 1.0) ||
        !(isfinite(p->rmax) && p->rmax > 1.0) || !(isfinite(p->hmin) && p->hmin > 0.0))
        return COSA_ERANGE;
    if (s->nfail < 0 || s->nsucc < 0 || !(isfinite(s->hprev) && s->hprev >= 0.0))
        return COSA_ERANGE;
    if (in->k < 0 || in->k > p->kmax || !(isfinite(in->H) && in->H > 0.0))
        return COSA_ERANGE;
    /* only the norms the estimator kind reads */
    if (in->state_est ? !(norm_ok(in->err_pos) && norm_ok(in->err_vel)) : !norm_ok(in->err_u))
        return COSA_ERANGE;

    /* step 1: local error test (eqs 25-27) and M (eq 28) */
    const double err = in->state_est ? fmax(in->err_pos, in->err_vel) : in->err_u;
    const int passed = err <= 1.0 && !in->corr_failed;
    int nfail, nsucc, restart;
    double hprev;
    if (passed) {
        /* one more passed step at degree k, unless the run of them was broken
         * (rejection, degree change) or this step is smaller than the last */
        nfail = 0;
        nsucc = s->restart || in->H < s->hprev ? 1 : (s->nsucc < INT_MAX ? s->nsucc + 1 : INT_MAX);
        restart = 0;
        hprev = in->H;
    } else {
        nfail = s->nfail < INT_MAX ? s->nfail + 1 : INT_MAX;
        nsucc = 0;
        restart = 1;
        hprev = s->hprev;
    }

    /* step 2: degree */
    int knew = in->k;
    if (p->order) {
        cosa_status st = order_decide(hist, p->kmax, in->k, passed, nfail, nsucc, &knew);
        if (st != COSA_OK)
            return st;
    }

    /* step 3: r^rho and the limited macro step */
    double r;
    cosa_status st = rho_compute(p, in, hist, passed, knew, &r);
    if (st != COSA_OK)
        return st;
    const double H = step_limit(p, nfail, in->corr_failed, r, in->H);
    if (!isfinite(H))
        return COSA_ERANGE; /* rmax H_N overflowed */

    if (knew != in->k) {
        nsucc = 0; /* a new degree starts a new run of passed steps */
        restart = 1;
    }
    s->nfail = nfail;
    s->nsucc = nsucc;
    s->restart = restart;
    s->hprev = hprev;
    out->accept = passed;
    out->k = knew;
    out->H = H;
    out->r = r;
    out->stop = H <= p->hmin;
    return COSA_OK;
}

/* ---- the controller table's entries "order" and "step" (lib/td/control.c) ---------- */

/* state[0..3] = nfail, nsucc, restart, hprev (cosa_controller keeps doubles) */
static void load_state(const double *state, cosa_vo_control_state *s)
{
    s->nfail = (int)state[0];
    s->nsucc = (int)state[1];
    s->restart = (int)state[2];
    s->hprev = state[3];
}

static void store_state(const cosa_vo_control_state *s, double *state)
{
    state[0] = s->nfail;
    state[1] = s->nsucc;
    state[2] = s->restart;
    state[3] = s->hprev;
}

static void defaults_common(cosa_controller_params *p, int order)
{
    p->vo = (cosa_vo_control_params){.order = order, .kmax = order ? 5 : COSA_VO_KMAX,
                                     .sf = 6.0, .rmin = 0.5, .rmax = 2.0, .hmin = 1e-12};
    p->grow = p->vo.rmax;
}

static void order_defaults(cosa_controller_params *p) { defaults_common(p, 1); }
static void step_defaults(cosa_controller_params *p) { defaults_common(p, 0); }

static cosa_status vo_reset(const cosa_controller_params *p, double *state, double h0)
{
    (void)p, (void)h0;
    cosa_vo_control_state s;
    cosa_vo_control_reset(&s);
    store_state(&s, state);
    return COSA_OK;
}

static cosa_status vo_decide(const cosa_controller_params *p, double *state,
                             const cosa_vo_control_input *in, const cosa_vo_history *hist,
                             cosa_vo_decision *out)
{
    cosa_vo_control_params q = p->vo;
    q.rmax = p->grow;
    cosa_vo_control_state s;
    load_state(state, &s);
    cosa_status st = cosa_vo_control_decide(&q, &s, in, hist, out);
    if (st == COSA_OK)
        store_state(&s, state);
    return st;
}

/* next(): the same rules for a scalar norm err of a degree-0 estimate on
 * coupling variables: r = (SF err)^-1, the degree fixed */
static cosa_status vo_next(const cosa_controller_params *p, double *state, double h, double err,
                           double *hnext, int *accept)
{
    cosa_vo_control_params q = p->vo;
    q.order = 0;
    q.rmax = p->grow;
    const cosa_vo_control_input in = {.H = h, .k = 0, .state_est = 0, .err_u = err};
    cosa_vo_control_state s;
    load_state(state, &s);
    cosa_vo_decision d;
    cosa_status st = cosa_vo_control_decide(&q, &s, &in, NULL, &d);
    if (st != COSA_OK)
        return st;
    store_state(&s, state);
    *hnext = d.H;
    *accept = d.accept;
    return COSA_OK;
}

const cosa_controller_type vo_controller_order = {
    .name = "order", .nstate = 4, .defaults = order_defaults, .reset = vo_reset,
    .next = vo_next, .decide = vo_decide};
const cosa_controller_type vo_controller_step = {
    .name = "step", .nstate = 4, .defaults = step_defaults, .reset = vo_reset,
    .next = vo_next, .decide = vo_decide};
