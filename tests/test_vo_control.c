/* test_vo_control.c -- the order and macro-step controller of the
 * variable-order paper (lib/td/vo_control.c; sect. 5.1, 5.2.2, 5.3, Figs 6-7)
 * on hand-made histories: every branch of the order control of sect. 5.2.2,
 * every limit of Fig 7, the N_succ / N_fail bookkeeping across calls, and the
 * argument checks.
 *
 * The history is a table of SDN(j) and ||eps~|| (k) values, one for the
 * history ending at T_N (passed = 0) and one ending at T_N+1 (passed = 1),
 * negative meaning "not available"; the callbacks also count which values
 * the controller asked for, so a test can tell that a block did not run.
 *
 * Expected values are the paper's closed forms evaluated here (e.g.
 * pow(6 * 0.5, -1.0 / 3) for eq 32 beta at k = 2).  The controller computes
 * the same forms (one product SF x, one pow, one or two products with 0.9 and
 * H_N) perhaps in another order; glibc's pow is within 1 ulp, each product
 * rounds once, so the two agree to a few ulps: TOL = 8 DBL_EPSILON relative.
 * Factors that are exact (rmax = 2, 0.25, 1) are compared exactly. */
#include <criterion/criterion.h>

#include "cosa.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define TOL (8.0 * DBL_EPSILON)
#define SDN_N (COSA_VO_KMAX + 3) /* SDN(1 .. kmax + 2); index 0 unused */
#define ET_N (COSA_VO_KMAX + 1)  /* eps~ of degree 0 .. kmax */
#define NA (-1.0)                /* not available */

/* ---- a hand-made history ------------------------------------------------- */

typedef struct hist_data {
    double sdn[2][SDN_N]; /* [passed][j] */
    double et[2][ET_N];   /* [passed][k] */
    int sdn_calls[2][SDN_N];
    int et_calls[2][ET_N];
} hist_data;

static double cb_sdn(void *ctx, int passed, int j)
{
    hist_data *d = ctx;
    cr_assert(passed == 0 || passed == 1, "sdn: passed = %d", passed);
    cr_assert(j >= 1 && j < SDN_N, "sdn: j = %d", j);
    d->sdn_calls[passed][j]++;
    return d->sdn[passed][j];
}

static double cb_etilde(void *ctx, int passed, int k)
{
    hist_data *d = ctx;
    cr_assert(passed == 0 || passed == 1, "etilde: passed = %d", passed);
    cr_assert(k >= 0 && k < ET_N, "etilde: k = %d", k);
    d->et_calls[passed][k]++;
    return d->et[passed][k];
}

/* Everything not available, no calls yet. */
static cosa_vo_history hd_init(hist_data *d)
{
    memset(d, 0, sizeof *d);
    for (int p = 0; p < 2; p++) {
        for (int j = 0; j < SDN_N; j++)
            d->sdn[p][j] = NA;
        for (int k = 0; k < ET_N; k++)
            d->et[p][k] = NA;
    }
    return (cosa_vo_history){.sdn = cb_sdn, .etilde = cb_etilde, .ctx = d};
}

/* SDN(1 .. n) = v[0 .. n-1] of the history of a passed (1) or failed (0) step. */
static void hd_sdn(hist_data *d, int passed, int n, const double *v)
{
    for (int j = 1; j <= n; j++)
        d->sdn[passed][j] = v[j - 1];
}

static void hd_clear_calls(hist_data *d)
{
    memset(d->sdn_calls, 0, sizeof d->sdn_calls);
    memset(d->et_calls, 0, sizeof d->et_calls);
}

static int hd_sdn_calls(const hist_data *d, int j)
{
    return d->sdn_calls[0][j] + d->sdn_calls[1][j];
}

/* ---- helpers ------------------------------------------------------------- */

/* The paper's values: SF = 6, rmin = 0.5, rmax = 2, H_min = 1e-12. */
static cosa_vo_control_params par(int kmax)
{
    return (cosa_vo_control_params){
        .order = 1, .kmax = kmax, .sf = 6.0, .rmin = 0.5, .rmax = 2.0, .hmin = 1e-12};
}

/* A step of degree k with an estimator on the coupling variables. */
static cosa_vo_control_input in_u(double H, int k, double err_u)
{
    return (cosa_vo_control_input){.H = H, .k = k, .err_u = err_u};
}

static cosa_vo_control_state fresh(void)
{
    cosa_vo_control_state s;
    memset(&s, 0, sizeof s);
    cosa_vo_control_reset(&s);
    return s;
}

static cosa_vo_decision decide(const cosa_vo_control_params *p, cosa_vo_control_state *s,
                               const cosa_vo_control_input *in, const cosa_vo_history *h)
{
    cosa_vo_decision d;
    memset(&d, 0, sizeof d);
    cosa_status st = cosa_vo_control_decide(p, s, in, h, &d);
    cr_assert_eq(st, COSA_OK, "decide: %s", cosa_strerror(st));
    return d;
}

static int close_to(double a, double b)
{
    if (isinf(b))
        return a == b;
    return fabs(a - b) <= TOL * fabs(b);
}

#define assert_close(a, b, what)                                                             \
    cr_assert(close_to((a), (b)), "%s: %.17g, expected %.17g", (what), (double)(a),          \
              (double)(b))

/* n passed steps of degree k and size H with r in [1, rmax) (err_u = 0.1:
 * (0.6)^(-1/(k+1)) in (1.1, 1.7) for k <= 4), on a history without SDN, so
 * neither the degree nor the step changes: N_succ grows by n. */
static void prime(const cosa_vo_control_params *p, cosa_vo_control_state *s, int k, double H,
                  int n)
{
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_input in = in_u(H, k, 0.1);
    for (int i = 0; i < n; i++) {
        cosa_vo_decision dec = decide(p, s, &in, &h);
        cr_assert(dec.accept && dec.k == k && dec.H == H && !dec.stop);
    }
}

/* ---- 5.2.2: decrease tests ----------------------------------------------- */

Test(vo_order, k1_decrease_to_0)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* SDN(1) = SDN(2)/2 exactly: the test is <=, so the degree drops */
    hd_sdn(&d, 1, 2, (double[]){0.2, 0.4});
    d.et[1][0] = 0.1;
    cosa_vo_control_input in = in_u(0.1, 1, 0.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(dec.accept);
    cr_assert_eq(dec.k, 0);
    cr_assert_eq(d.et_calls[1][0], 1, "eq 33 with eps~ of the new degree 0");
    assert_close(dec.r, pow(6.0 * 0.1, -1.0 / 1), "r~ (eq 33, k_new = 0)");
    cr_assert_eq(dec.H, 0.1, "r in [1, rmax): H = H_N");
    cr_assert_eq(hd_sdn_calls(&d, 3), 0, "the increase block did not run");
    cr_assert_eq(s.nsucc, 0, "a degree change restarts N_succ");
    cr_assert_eq(s.restart, 1);
}

Test(vo_order, k1_kept_when_sdn1_above_half_sdn2)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 1, 2, (double[]){0.2000001, 0.4});
    cosa_vo_control_input in = in_u(0.1, 1, 0.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 1);
    cr_assert_eq(d.et_calls[1][0] + d.et_calls[0][0], 0);
    /* unchanged degree: eq 32 beta; r = 3^(-1/2) in [rmin, 0.9]: H = r H_N */
    const double r = pow(6.0 * 0.5, -1.0 / 2);
    assert_close(dec.r, r, "r^u (eq 32 beta, k = 1)");
    assert_close(dec.H, r * 0.1, "H = max(rmin, r) H_N");
    cr_assert_eq(s.nsucc, 1);
}

Test(vo_order, k_gt_1_decrease)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* k = 3: max(SDN(3), SDN(2)) = 0.3 <= SDN(4) = 0.3 -> 2 */
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.2, 0.3, 0.3});
    d.et[1][2] = 0.01;
    cosa_vo_control_input in = in_u(0.1, 3, 0.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(dec.accept);
    cr_assert_eq(dec.k, 2);
    for (int j = 0; j < SDN_N; j++)
        cr_assert_eq(d.sdn_calls[0][j], 0, "a passed step reads the history ending at T_N+1");
    cr_assert_eq(d.et_calls[1][2], 1);
    const double r = pow(6.0 * 0.01, -1.0 / 3); /* exponent 1/(k_new + 1) */
    assert_close(dec.r, r, "r~ (eq 33, k_new = 2)");
    cr_assert(r > 2.0);
    cr_assert_eq(dec.H, 0.2, "r >= rmax: H = rmax H_N");
}

Test(vo_order, k_gt_1_kept)
{
    cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_input in = in_u(0.1, 3, 0.5);
    /* SDN(3) = 0.3 > SDN(4) = 0.29 */
    cosa_vo_control_state s = fresh();
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.2, 0.3, 0.29});
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 3);
    const double r = pow(6.0 * 0.5, -1.0 / 4);
    assert_close(dec.r, r, "r^u (eq 32 beta, k = 3)");
    assert_close(dec.H, r * 0.1, "H = r H_N");
    /* SDN(k-1) counts too: SDN(2) = 0.35 > SDN(4) = 0.3 >= SDN(3) */
    s = fresh();
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.35, 0.2, 0.3});
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 3);
}

Test(vo_order, decrease_after_rejection_reads_history_at_TN)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 0, 3, (double[]){0.1, 0.1, 0.2}); /* decreases k = 2 */
    hd_sdn(&d, 1, 3, (double[]){1.0, 0.5, 0.1}); /* would not */
    d.et[0][1] = 0.001;
    cosa_vo_control_input in = in_u(0.1, 2, 2.0);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(!dec.accept);
    cr_assert_eq(dec.k, 1);
    for (int j = 0; j < SDN_N; j++)
        cr_assert_eq(d.sdn_calls[1][j], 0, "a failed step reads the history ending at T_N");
    cr_assert_eq(d.et_calls[0][1], 1);
    const double r = pow(6.0 * 0.001, -1.0 / 2);
    assert_close(dec.r, r, "r~ (eq 33, k_new = 1, passed = 0)");
    /* N_fail = 1: min(0.9, max(0.25, 0.9 r)) with 0.9 r > 0.9 */
    cr_assert(0.9 * r > 0.9);
    assert_close(dec.H, 0.9 * 0.1, "N_fail = 1: the 0.9 cap");
}

Test(vo_order, sdn_not_available_skips_decrease)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* SDN(1) and SDN(3) would decrease k = 2, SDN(2) is missing */
    hd_sdn(&d, 1, 3, (double[]){0.1, NA, 0.2});
    cosa_vo_control_input in = in_u(0.1, 2, 0.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 2);
    /* k = 1 with SDN(2) missing */
    s = fresh();
    hd_init(&d);
    hd_sdn(&d, 1, 1, (double[]){0.0});
    in.k = 1;
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 1);
}

/* ---- 5.2.2: N_fail rules ------------------------------------------------- */

Test(vo_order, nfail_gt_3_caps_to_1_and_gt_5_to_0)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d); /* no SDN: only the N_fail rules act */
    d.et[0][1] = 0.5;
    d.et[0][0] = 0.25;
    cosa_vo_control_input in = in_u(0.1, 3, 3.0);
    for (int n = 1; n <= 3; n++) {
        cosa_vo_decision dec = decide(&p, &s, &in, &h);
        cr_assert(!dec.accept);
        cr_assert_eq(s.nfail, n);
        cr_assert_eq(dec.k, 3, "N_fail = %d <= 3 keeps k", n);
        assert_close(dec.r, pow(6.0 * 3.0, -1.0 / 4), "r^u (k = 3)");
        if (n == 1)
            assert_close(dec.H, 0.9 * pow(18.0, -1.0 / 4) * 0.1, "N_fail = 1: 0.9 r H_N");
        else
            cr_assert_eq(dec.H, 0.025, "N_fail > 1: 0.25 H_N");
    }
    cosa_vo_decision dec = decide(&p, &s, &in, &h); /* N_fail = 4 */
    cr_assert_eq(s.nfail, 4);
    cr_assert_eq(dec.k, 1, "N_fail > 3: min(k_new, 1)");
    assert_close(dec.r, pow(6.0 * 0.5, -1.0 / 2), "r~ of degree 1 (eq 33)");
    cr_assert_eq(dec.H, 0.025);

    in.k = 1;
    dec = decide(&p, &s, &in, &h); /* N_fail = 5: min(1, 1) */
    cr_assert_eq(s.nfail, 5);
    cr_assert_eq(dec.k, 1);
    assert_close(dec.r, pow(6.0 * 3.0, -1.0 / 2), "r^u (k = 1)");
    dec = decide(&p, &s, &in, &h); /* N_fail = 6 */
    cr_assert_eq(s.nfail, 6);
    cr_assert_eq(dec.k, 0, "N_fail > 5: k_new = 0");
    assert_close(dec.r, pow(6.0 * 0.25, -1.0 / 1), "r~ of degree 0 (eq 33)");
    cr_assert_eq(dec.H, 0.025);

    /* a passed step clears N_fail */
    in = in_u(0.025, 0, 0.1);
    dec = decide(&p, &s, &in, &h);
    cr_assert(dec.accept);
    cr_assert_eq(s.nfail, 0);
}

Test(vo_order, nfail_boundaries_from_state)
{
    cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    d.et[0][1] = 0.5;
    d.et[0][0] = 0.5;
    cosa_vo_control_input in = in_u(0.1, 2, 3.0);
    /* N_fail = 5 (not > 5): min(2, 1) = 1 */
    cosa_vo_control_state s = fresh();
    s.nfail = 4;
    cr_assert_eq(decide(&p, &s, &in, &h).k, 1);
    /* N_fail = 6: 0 */
    s = fresh();
    s.nfail = 5;
    cr_assert_eq(decide(&p, &s, &in, &h).k, 0);
    /* k = 0 stays 0 and reads no eps~ (unchanged degree) */
    s = fresh();
    s.nfail = 9;
    in.k = 0;
    hd_clear_calls(&d);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 0);
    cr_assert_eq(d.et_calls[0][0], 0);
    assert_close(dec.r, pow(18.0, -1.0), "r^u (k = 0)");
    /* a decrease to 0 is not raised back by the N_fail > 3 cap */
    s = fresh();
    s.nfail = 3;
    in.k = 1;
    hd_sdn(&d, 0, 2, (double[]){0.1, 0.3});
    cr_assert_eq(decide(&p, &s, &in, &h).k, 0);
}

/* ---- 5.2.2: increase block ----------------------------------------------- */

Test(vo_order, increase_k0_to_1)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* k = 0: the first passed step already has N_succ = 1 > 0 */
    hd_sdn(&d, 1, 2, (double[]){1.0, 0.4});
    d.et[1][1] = 0.02;
    cosa_vo_control_input in = in_u(0.1, 0, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 1, "SDN(2) < SDN(1)/2");
    assert_close(dec.r, pow(6.0 * 0.02, -1.0 / 2), "r~ (eq 33, k_new = 1)");
    cr_assert_eq(dec.H, 0.2);
    /* SDN(2) = SDN(1)/2: strict test, not adjusted */
    s = fresh();
    hd_sdn(&d, 1, 2, (double[]){1.0, 0.5});
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 0);
    assert_close(dec.r, pow(6.0 * 0.1, -1.0), "r^u (k = 0)");
    cr_assert_eq(dec.H, 0.1);
}

Test(vo_order, increase_block_decreases)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 2, 0.1, 2);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* no decrease (max(SDN(2), SDN(1)) = 1 > SDN(3)); N_succ = 3 > 2;
     * SDN(2) = 0.1 <= min(SDN(3), SDN(4)) = 0.1 -> 1 */
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.1, 0.1, 0.2});
    d.et[1][1] = 0.3;
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 1);
    const double r = pow(6.0 * 0.3, -1.0 / 2);
    assert_close(dec.r, r, "r~ (k_new = 1)");
    assert_close(dec.H, r * 0.1, "H = r H_N");
}

Test(vo_order, increase_block_increases)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 2, 0.1, 2);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* SDN(2) = 0.5 > min(0.3, 0.2); SDN(4) = 0.2 < SDN(3) = 0.3 -> 3 */
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.2});
    d.et[1][3] = 1e-3;
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 3);
    cr_assert_eq(d.et_calls[1][3], 1);
    const double r = pow(6.0 * 1e-3, -1.0 / 4); /* 1/(k_new + 1), not 1/(k + 1) */
    assert_close(dec.r, r, "r~ (eq 33, k_new = 3)");
    cr_assert(fabs(dec.r - pow(6.0 * 1e-3, -1.0 / 3)) > 1.0);
    cr_assert_eq(dec.H, 0.2);
    cr_assert_eq(s.nsucc, 0);
}

Test(vo_order, increase_block_not_adjusted)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 2, 0.1, 2);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* SDN(4) = SDN(3): neither branch */
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.3});
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 2);
    cr_assert_eq(d.sdn_calls[1][4], 1, "the block ran");
    assert_close(dec.r, pow(0.6, -1.0 / 3), "r^u (k = 2)");
    cr_assert_eq(dec.H, 0.1);
    cr_assert_eq(s.nsucc, 3);
    /* SDN(k+2) not available: the block is skipped */
    s = fresh();
    prime(&p, &s, 2, 0.1, 2);
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, NA});
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
}

Test(vo_order, increase_block_needs_nsucc_gt_k)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.2}); /* the increase pattern */
    d.et[1][3] = 1e-3;
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    for (int n = 1; n <= 2; n++) {
        cosa_vo_decision dec = decide(&p, &s, &in, &h);
        cr_assert_eq(s.nsucc, n);
        cr_assert_eq(dec.k, 2, "N_succ = %d <= k", n);
        cr_assert_eq(d.sdn_calls[1][4], 0, "SDN(k+2) not computed");
    }
    cr_assert_eq(decide(&p, &s, &in, &h).k, 3, "N_succ = 3 > k");
}

Test(vo_order, increase_block_skipped_at_kmax)
{
    cosa_vo_control_params p = par(2);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 2, 0.1, 5);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.2}); /* would raise */
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.1, 0.1, 0.2}); /* would lower (block) */
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    cr_assert_eq(d.sdn_calls[1][4], 0);
}

Test(vo_order, increase_block_skipped_after_rejection)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 2, 0.1, 5);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 0, 4, (double[]){1.0, 0.5, 0.3, 0.2});
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.2});
    d.et[1][3] = 1e-3;
    cosa_vo_control_input in = in_u(0.1, 2, 1.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(!dec.accept);
    cr_assert_eq(dec.k, 2);
    cr_assert_eq(hd_sdn_calls(&d, 4), 0);
    cr_assert_eq(s.nsucc, 0);
    /* the run restarts: the block needs three more passed steps at k = 2,
     * even at the same step size */
    in.err_u = 0.1;
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    cr_assert_eq(s.nsucc, 1);
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    cr_assert_eq(decide(&p, &s, &in, &h).k, 3);
}

Test(vo_order, increase_block_skipped_when_decrease_changed_k)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    prime(&p, &s, 3, 0.1, 5);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* decrease: max(0.2, 0.2) <= 0.3 -> 2; the block on k = 3 would give
     * 4 (0.2 > min(0.3, 0.1), 0.1 < 0.3) */
    hd_sdn(&d, 1, 5, (double[]){1.0, 0.2, 0.2, 0.3, 0.1});
    d.et[1][2] = 0.05;
    cosa_vo_control_input in = in_u(0.1, 3, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 2);
    cr_assert_eq(d.sdn_calls[1][5], 0);
    assert_close(dec.r, pow(0.3, -1.0 / 3), "r~ (k_new = 2)");
    cr_assert_eq(dec.H, 0.1);
}

Test(vo_order, order_0_never_changes_degree)
{
    cosa_vo_control_params p = par(4);
    p.order = 0;
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 0, 4, (double[]){1.0, 0.1, 0.1, 0.2});
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.5, 0.3, 0.2});
    cosa_vo_control_input in = in_u(0.1, 2, 0.1);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    in.err_u = 5.0;
    for (int i = 0; i < 7; i++)
        cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    cr_assert_eq(s.nfail, 7);
    for (int j = 0; j < SDN_N; j++)
        cr_assert_eq(hd_sdn_calls(&d, j), 0);
    /* without degree control no history is needed */
    cosa_vo_decision dec = decide(&p, &s, &in, NULL);
    cr_assert_eq(dec.k, 2);
    cr_assert_eq(dec.H, 0.025);
}

/* ---- N_succ bookkeeping -------------------------------------------------- */

Test(vo_order, nsucc_sequence)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    struct {
        double H, err; /* the attempt */
        int nsucc;     /* N_succ after it */
        double hprev;
    } seq[] = {
        {0.1, 0.1, 1, 0.1},  {0.1, 0.1, 2, 0.1},
        {0.2, 0.1, 3, 0.2},  /* larger: the run goes on */
        {0.15, 0.1, 1, 0.15}, /* smaller than its predecessor: restart */
        {0.15, 0.1, 2, 0.15}, {0.15, 5.0, 0, 0.15}, /* rejection */
        {0.15, 0.1, 1, 0.15}, /* restarted though not smaller */
        {0.15, 0.1, 2, 0.15},
    };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        cosa_vo_control_input in = in_u(seq[i].H, 1, seq[i].err);
        decide(&p, &s, &in, &h);
        cr_assert_eq(s.nsucc, seq[i].nsucc, "attempt %zu", i);
        cr_assert_eq(s.hprev, seq[i].hprev, "attempt %zu", i);
    }
    /* a degree change (1 -> 2, N_succ = 3 > 1) restarts the run */
    hd_sdn(&d, 1, 3, (double[]){1.0, 0.5, 0.2});
    d.et[1][2] = 0.1;
    cosa_vo_control_input in = in_u(0.15, 1, 0.1);
    cr_assert_eq(decide(&p, &s, &in, &h).k, 2);
    cr_assert_eq(s.nsucc, 0);
    hd_init(&d);
    in.k = 2;
    decide(&p, &s, &in, &h);
    cr_assert_eq(s.nsucc, 1);
}

/* ---- 5.3: r^rho and the limits of Fig 7 ---------------------------------- */

Test(vo_step, rmax_cap)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_input in = in_u(0.1, 1, 1e-4);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    assert_close(dec.r, pow(6e-4, -1.0 / 2), "r^u");
    cr_assert_eq(dec.H, 0.2);
    /* r = rmax exactly (SF = 4, ||eps|| = 1/8, k = 0) is capped too */
    p.sf = 4.0;
    in = in_u(0.1, 0, 0.125);
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.r, 2.0);
    cr_assert_eq(dec.H, 0.2);
    /* just below rmax: H = H_N */
    in.err_u = 0.13;
    dec = decide(&p, &s, &in, &h);
    cr_assert(dec.r < 2.0 && dec.r >= 1.0);
    cr_assert_eq(dec.H, 0.1);
}

Test(vo_step, r_below_1_rmin_floor_and_09_cap)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* ||eps|| = 1 still passes; r = 1/6 < rmin */
    cosa_vo_control_input in = in_u(0.1, 0, 1.0);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(dec.accept);
    assert_close(dec.r, 1.0 / 6.0, "r^u");
    cr_assert_eq(dec.H, 0.5 * 0.1, "rmin floor");
    /* r = 1.08^(-1/2) in (0.9, 1): the 0.9 cap */
    in = in_u(0.1, 1, 0.18);
    dec = decide(&p, &s, &in, &h);
    cr_assert(dec.r > 0.9 && dec.r < 1.0);
    assert_close(dec.H, 0.9 * 0.1, "0.9 cap");
    /* r = 2/3 in [rmin, 0.9]: H = r H_N */
    in = in_u(0.1, 0, 0.25);
    dec = decide(&p, &s, &in, &h);
    assert_close(dec.H, pow(1.5, -1.0) * 0.1, "r H_N");
}

Test(vo_step, r_in_1_rmax_keeps_H)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_input in = in_u(0.1, 0, 0.1);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    assert_close(dec.r, 1.0 / 0.6, "r^u");
    cr_assert_eq(dec.H, 0.1);
    /* r = 1 exactly (SF = 4, ||eps|| = 1/4, k = 0): not < 1 */
    p.sf = 4.0;
    in.err_u = 0.25;
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.r, 1.0);
    cr_assert_eq(dec.H, 0.1);
}

Test(vo_step, nfail_1_limits)
{
    cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* r = 9^(-1/2) = 1/3: H = 0.9 r H_N */
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input in = in_u(0.1, 1, 1.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(!dec.accept);
    cr_assert_eq(s.nfail, 1);
    assert_close(dec.H, 0.9 * pow(9.0, -1.0 / 2) * 0.1, "0.9 r H_N");
    /* r = 24^(-1/2): 0.9 r < 0.25, the floor */
    s = fresh();
    in.err_u = 4.0;
    dec = decide(&p, &s, &in, &h);
    cr_assert(0.9 * dec.r < 0.25);
    cr_assert_eq(dec.H, 0.025);
    /* SF = 0.5 < 1: a failed step can have 0.9 r > 0.9, the cap */
    p.sf = 0.5;
    s = fresh();
    in.err_u = 1.2;
    dec = decide(&p, &s, &in, &h);
    assert_close(dec.r, pow(0.6, -1.0 / 2), "r^u");
    assert_close(dec.H, 0.9 * 0.1, "0.9 cap");
}

Test(vo_step, nfail_gt_1_and_corrector_failure)
{
    cosa_vo_control_params p = par(4);
    p.sf = 0.5; /* 0.9 r > 0.9: the N_fail = 1 rule would give 0.9 H_N */
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input in = in_u(0.1, 1, 1.2);
    decide(&p, &s, &in, &h);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(s.nfail, 2);
    cr_assert_eq(dec.H, 0.025, "N_fail > 1: 0.25 H_N");
    /* a corrector failure rejects a step whose error passes, at 0.25 H_N */
    p = par(4);
    s = fresh();
    in = in_u(0.1, 1, 0.5);
    in.corr_failed = 1;
    dec = decide(&p, &s, &in, &h);
    cr_assert(!dec.accept);
    cr_assert_eq(s.nfail, 1);
    cr_assert_eq(dec.H, 0.025, "corrector failure: 0.25 H_N");
}

Test(vo_step, hmin_stops)
{
    cosa_vo_control_params p = par(4);
    p.hmin = 1e-3;
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input in = in_u(0.004, 1, 2.0);
    cosa_vo_decision dec = decide(&p, &s, &in, &h); /* 0.9 * 12^(-1/2) * 0.004 */
    cr_assert(dec.H > 1e-3);
    cr_assert_eq(dec.stop, 0);
    dec = decide(&p, &s, &in, &h); /* 0.25 * 0.004 = 0.001 (exact scaling) */
    cr_assert_eq(dec.H, 1e-3);
    cr_assert_eq(dec.stop, 1, "H <= H_min");
    p.hmin = 0.999e-3;
    s = fresh();
    s.nfail = 1;
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.stop, 0);
}

Test(vo_step, zero_and_infinite_norms)
{
    cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input in = in_u(0.1, 1, 0.0);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(isinf(dec.r) && dec.r > 0.0, "zero norm: r = inf");
    cr_assert_eq(dec.H, 0.2);
    /* states: both zero */
    in = (cosa_vo_control_input){.H = 0.1, .k = 1, .state_est = 1};
    dec = decide(&p, &s, &in, &h);
    cr_assert(isinf(dec.r));
    /* zero eps~ on a degree change */
    s = fresh();
    hd_sdn(&d, 1, 2, (double[]){1.0, 0.1});
    d.et[1][1] = 0.0;
    in = in_u(0.1, 0, 0.5);
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 1);
    cr_assert(isinf(dec.r));
    cr_assert_eq(dec.H, 0.2);
    /* an infinite norm fails: r = 0, 0.25 floor */
    hd_init(&d);
    s = fresh();
    in = in_u(0.1, 1, INFINITY);
    dec = decide(&p, &s, &in, &h);
    cr_assert(!dec.accept);
    cr_assert_eq(dec.r, 0.0);
    cr_assert_eq(dec.H, 0.025);
}

Test(vo_step, state_estimators)
{
    cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_control_state s = fresh();
    /* err_u is not read with state estimators (NaN is no error here) */
    cosa_vo_control_input in = {.H = 0.1, .k = 1, .state_est = 1, .err_u = NAN};
    /* velocity limits: r^vel = 3^(-1/3) < r^pos = 0.06^(-1/4) */
    in.err_pos = 0.01;
    in.err_vel = 0.5;
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert(dec.accept);
    const double rv = pow(6.0 * 0.5, -1.0 / 3), rp0 = pow(6.0 * 0.01, -1.0 / 4);
    cr_assert(rv < rp0);
    assert_close(dec.r, rv, "r^vel (k + 2 = 3)");
    assert_close(dec.H, rv * 0.1, "r H_N");
    /* position limits: r^pos = 3^(-1/4) < r^vel = 0.06^(-1/3) */
    in.err_pos = 0.5;
    in.err_vel = 0.01;
    dec = decide(&p, &s, &in, &h);
    const double rp = pow(6.0 * 0.5, -1.0 / 4), rv0 = pow(6.0 * 0.01, -1.0 / 3);
    cr_assert(rp < rv0);
    assert_close(dec.r, rp, "r^pos (k + 3 = 4)");
    assert_close(dec.H, rp * 0.1, "r H_N");
    /* the test is on max(err_pos, err_vel) (eq 26) */
    in.err_pos = 0.5;
    in.err_vel = 1.5;
    cr_assert(!decide(&p, &s, &in, &h).accept);
    in.err_pos = 1.5;
    in.err_vel = 0.5;
    cr_assert(!decide(&p, &s, &in, &h).accept);
    in.err_pos = 1.0;
    in.err_vel = 1.0;
    cr_assert(decide(&p, &s, &in, &h).accept);
    /* a changed degree uses eps~ (eq 33) with state estimators too */
    s = fresh();
    hd_sdn(&d, 1, 2, (double[]){0.1, 0.3});
    d.et[1][0] = 0.25;
    in.k = 1;
    dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 0);
    assert_close(dec.r, pow(1.5, -1.0), "r~ (k_new = 0)");
}

Test(vo_step, etilde_not_available_falls_back_to_eq32)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    hd_sdn(&d, 1, 4, (double[]){1.0, 0.2, 0.2, 0.3}); /* k = 3 -> 2 */
    cosa_vo_control_input in = in_u(0.1, 3, 0.5);
    cosa_vo_decision dec = decide(&p, &s, &in, &h);
    cr_assert_eq(dec.k, 2);
    cr_assert_eq(d.et_calls[1][2], 1);
    assert_close(dec.r, pow(6.0 * 0.5, -1.0 / 4), "r^u of the attempted degree 3");
}

/* ---- reset and argument checks ------------------------------------------- */

Test(vo_args, reset)
{
    cosa_vo_control_state s = {.nfail = 3, .nsucc = 7, .restart = 0, .hprev = 0.5};
    cosa_vo_control_reset(&s);
    cr_assert_eq(s.nfail, 0);
    cr_assert_eq(s.nsucc, 0);
    cr_assert_eq(s.restart, 1);
    cr_assert_eq(s.hprev, 0.0);
    cosa_vo_control_reset(NULL);
}

/* The call fails with want and touches neither the state nor the decision. */
static void expect_fail(const cosa_vo_control_params *p, const cosa_vo_control_input *in,
                        const cosa_vo_history *h, cosa_status want, const char *what)
{
    cosa_vo_control_state s = fresh(), s0;
    s.nsucc = 2;
    s.hprev = 0.1;
    s0 = s;
    cosa_vo_decision dec, dec0;
    memset(&dec, 0x5a, sizeof dec);
    dec0 = dec;
    cosa_status st = cosa_vo_control_decide(p, &s, in, h, &dec);
    cr_assert_eq(st, want, "%s: %s", what, cosa_strerror(st));
    cr_assert(memcmp(&s, &s0, sizeof s) == 0, "%s: state changed", what);
    cr_assert(memcmp(&dec, &dec0, sizeof dec) == 0, "%s: decision changed", what);
}

Test(vo_args, null_arguments)
{
    cosa_vo_control_params p = par(4);
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input in = in_u(0.1, 1, 0.5);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    cosa_vo_decision dec;
    cr_assert_eq(cosa_vo_control_decide(NULL, &s, &in, &h, &dec), COSA_EINVAL);
    cr_assert_eq(cosa_vo_control_decide(&p, NULL, &in, &h, &dec), COSA_EINVAL);
    cr_assert_eq(cosa_vo_control_decide(&p, &s, NULL, &h, &dec), COSA_EINVAL);
    cr_assert_eq(cosa_vo_control_decide(&p, &s, &in, &h, NULL), COSA_EINVAL);
    expect_fail(&p, &in, NULL, COSA_EINVAL, "hist NULL with order = 1");
    cosa_vo_history h2 = h;
    h2.sdn = NULL;
    expect_fail(&p, &in, &h2, COSA_EINVAL, "sdn NULL");
    h2 = h;
    h2.etilde = NULL;
    expect_fail(&p, &in, &h2, COSA_EINVAL, "etilde NULL");
}

Test(vo_args, out_of_range)
{
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    const cosa_vo_control_input in = in_u(0.1, 1, 0.5);
    struct {
        const char *what;
        cosa_vo_control_params p;
    } bad_p[] = {
        {"order 2", {2, 4, 6.0, 0.5, 2.0, 1e-12}},
        {"order -1", {-1, 4, 6.0, 0.5, 2.0, 1e-12}},
        {"kmax -1", {1, -1, 6.0, 0.5, 2.0, 1e-12}},
        {"kmax > COSA_VO_KMAX", {1, COSA_VO_KMAX + 1, 6.0, 0.5, 2.0, 1e-12}},
        {"sf 0", {1, 4, 0.0, 0.5, 2.0, 1e-12}},
        {"sf < 0", {1, 4, -6.0, 0.5, 2.0, 1e-12}},
        {"sf NaN", {1, 4, NAN, 0.5, 2.0, 1e-12}},
        {"sf inf", {1, 4, INFINITY, 0.5, 2.0, 1e-12}},
        {"rmin 1", {1, 4, 6.0, 1.0, 2.0, 1e-12}},
        {"rmin 0", {1, 4, 6.0, 0.0, 2.0, 1e-12}},
        {"rmin NaN", {1, 4, 6.0, NAN, 2.0, 1e-12}},
        {"rmax 1", {1, 4, 6.0, 0.5, 1.0, 1e-12}},
        {"rmax NaN", {1, 4, 6.0, 0.5, NAN, 1e-12}},
        {"rmax inf", {1, 4, 6.0, 0.5, INFINITY, 1e-12}},
        {"hmin < 0", {1, 4, 6.0, 0.5, 2.0, -1e-12}},
        {"hmin NaN", {1, 4, 6.0, 0.5, 2.0, NAN}},
    };
    for (size_t i = 0; i < sizeof bad_p / sizeof bad_p[0]; i++)
        expect_fail(&bad_p[i].p, &in, &h, COSA_ERANGE, bad_p[i].what);

    const cosa_vo_control_params p = par(4);
    struct {
        const char *what;
        cosa_vo_control_input in;
    } bad_in[] = {
        {"k < 0", in_u(0.1, -1, 0.5)},
        {"k > kmax", in_u(0.1, 5, 0.5)},
        {"H 0", in_u(0.0, 1, 0.5)},
        {"H < 0", in_u(-0.1, 1, 0.5)},
        {"H NaN", in_u(NAN, 1, 0.5)},
        {"H inf", in_u(INFINITY, 1, 0.5)},
        {"err_u < 0", in_u(0.1, 1, -0.5)},
        {"err_u NaN", in_u(0.1, 1, NAN)},
        {"err_pos < 0", {.H = 0.1, .k = 1, .state_est = 1, .err_pos = -1.0}},
        {"err_pos NaN", {.H = 0.1, .k = 1, .state_est = 1, .err_pos = NAN}},
        {"err_vel NaN", {.H = 0.1, .k = 1, .state_est = 1, .err_vel = NAN}},
    };
    for (size_t i = 0; i < sizeof bad_in / sizeof bad_in[0]; i++)
        expect_fail(&p, &bad_in[i].in, &h, COSA_ERANGE, bad_in[i].what);

    /* infinite norms are allowed (they fail the test) */
    cosa_vo_control_state s = fresh();
    cosa_vo_control_input inf_in = {.H = 0.1, .k = 1, .state_est = 1, .err_vel = INFINITY};
    cr_assert(!decide(&p, &s, &inf_in, &h).accept);

    /* a corrupted state */
    cosa_vo_decision dec;
    s = fresh();
    s.nfail = -1;
    cr_assert_eq(cosa_vo_control_decide(&p, &s, &in, &h, &dec), COSA_ERANGE);
    s = fresh();
    s.hprev = NAN;
    cr_assert_eq(cosa_vo_control_decide(&p, &s, &in, &h, &dec), COSA_ERANGE);

    /* rmax H_N overflows */
    const cosa_vo_control_input huge = in_u(DBL_MAX, 1, 0.0);
    expect_fail(&p, &huge, &h, COSA_ERANGE, "rmax H_N overflows");
}

Test(vo_args, nan_from_history)
{
    const cosa_vo_control_params p = par(4);
    hist_data d;
    cosa_vo_history h = hd_init(&d);
    /* a NaN SDN */
    hd_sdn(&d, 1, 2, (double[]){NAN, 0.4});
    cosa_vo_control_input in = in_u(0.1, 1, 0.5);
    expect_fail(&p, &in, &h, COSA_ERANGE, "SDN NaN");
    /* a NaN eps~ on a degree change */
    hd_sdn(&d, 1, 2, (double[]){0.1, 0.4});
    d.et[1][0] = NAN;
    expect_fail(&p, &in, &h, COSA_ERANGE, "eps~ NaN");
}
