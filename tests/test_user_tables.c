/* test_user_tables.c -- an error estimator and step controllers written by a
 * user against the public API only (<cosa.h>), run in the variable-order
 * engine's loop (issue 23 "Tests"):
 *   - a user copy of a built-in estimator (ExMilne, eqs 19/20, on states;
 *     ImSLocal, eq 24, on coupling variables) gives the same run bit for
 *     bit, and a copy perturbed in its last bits does not (the comparison
 *     can fail);
 *   - a user controller that always accepts and grows the step by a fixed
 *     ratio, one that rejects every other attempt, and one that cycles the
 *     degree (its own decide()) drive the loop as designed: step counts,
 *     rejections, step sizes and degrees computed here by hand.
 * Model: the linear two-mass oscillator (twomass) as exact units, with its
 * exact monolithic solution as the reference. */
#include "testutil.h"
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <cosa.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture: twomass as exact units (tu_units, testutil.h) ------------------ */

static cosa_vo_opts opts(tu_units *f, cosa_vo_coupling_kind c, int k, double H, double tend)
{
    return tu_vo_opts(f->is_vel, c, k, 3, H, tend);
}

/* Two runs bit for bit: every attempt (time, H, degree, verdict, norms,
 * corrector iterations) and every accepted macro point's states. */
static int same_run(const cosa_vo_result *a, const cosa_vo_result *b)
{
    if (a->status != b->status || a->steps != b->steps || a->nattempts != b->nattempts ||
        a->rejected != b->rejected || a->nx != b->nx)
        return 0;
    const size_t na = a->nattempts, dsz = na * sizeof(double), isz = na * sizeof(int);
    if (memcmp(a->at, b->at, dsz) || memcmp(a->aH, b->aH, dsz) ||
        memcmp(a->aerr_pos, b->aerr_pos, dsz) || memcmp(a->aerr_vel, b->aerr_vel, dsz) ||
        memcmp(a->aerr_u, b->aerr_u, dsz) || memcmp(a->ak, b->ak, isz) ||
        memcmp(a->aacc, b->aacc, isz) || memcmp(a->aiters, b->aiters, isz))
        return 0;
    const size_t np = a->steps + 1;
    return !memcmp(a->t, b->t, np * sizeof(double)) &&
           !memcmp(a->x, b->x, np * a->nx * sizeof(double));
}

/* ---- user estimators ---------------------------------------------------------- */

/* ExMilne (eqs 19, 20) as a user writes it from the paper: on states,
 * eps_i = (C^{k+1}/C^k) |z_i - z^_i| with C of eq 17 for positions and of
 * eq 20 for velocities; z^ the comparative solution of the degree-k
 * interpolation through (T_{N+1}, P^{k+1}(T_{N+1})) (comparative = 2).
 * user_data: NULL, or a factor applied to every entry (the perturbed copy). */
static cosa_status my_milne(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    const double fpos = s->cpos[1] / s->cpos[0], fvel = s->cvel[1] / s->cvel[0];
    const double *scale = user_data;
    for (size_t i = 0; i < s->nx; i++) {
        eps[i] = (s->is_vel[i] ? fvel : fpos) * fabs(s->x1[i] - s->xh[i]);
        if (scale)
            eps[i] *= *scale;
    }
    return COSA_OK;
}

/* ImSLocal (eq 24): on the coupling variables, |u^pre_{N+1} - u_{N+1}|. */
static cosa_status my_slocal(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)user_data;
    for (size_t i = 0; i < s->nc; i++)
        eps[i] = fabs(s->cpred[i] - s->c1[i]);
    return COSA_OK;
}

/* 1 + 2^-40: far below any tolerance, far above nothing -- the controller's
 * r = (SF err)^(-1/(k+3)) changes in its last bits, so the run must differ. */
static const double nudge = 1.0 + 0x1p-40;

static const cosa_vo_estimator user_milne = {.name = "user-milne", .implicit = 0,
                                             .on_states = 1, .comparative = 2,
                                             .estimate = my_milne};
static const cosa_vo_estimator user_milne_nudged = {
    .name = "user-milne-nudged", .implicit = 0, .on_states = 1, .comparative = 2,
    .estimate = my_milne, .user_data = (void *)&nudge};
static const cosa_vo_estimator user_slocal = {.name = "user-slocal", .implicit = 1,
                                              .on_states = 0, .comparative = 0,
                                              .estimate = my_slocal};

/* Order and step control with a user estimator against the same run with
 * the built-in entry: bit for bit (the same error vectors in the same
 * loop); the nudged copy must change the run (else same_run could not fail). */
Test(user_estimator, milne_copy_gives_the_builtin_run_bitwise)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.05);
    o.control = COSA_VO_CONTROL_ORDER;
    o.estimator = cosa_vo_estimator_lookup("exmilne");
    cosa_vo_result *rb = tu_vo_run(&f, &o);
    o.estimator = &user_milne;
    cosa_vo_result *ru = tu_vo_run(&f, &o);
    o.estimator = &user_milne_nudged;
    cosa_vo_result *rn = tu_vo_run(&f, &o);
    cr_expect_eq(rb->status, COSA_VO_OK, "%s", rb->reason);
    cr_expect(rb->rejected > 0 && rb->k_changes > 0,
              "the run should exercise rejections and degree changes (%zu, %zu)", rb->rejected,
              rb->k_changes);
    cr_expect(same_run(rb, ru), "user ExMilne: %zu steps %zu rejected, built-in %zu %zu",
              ru->steps, ru->rejected, rb->steps, rb->rejected);
    cr_expect_not(same_run(rb, rn), "a nudged estimate left the run unchanged");
    cr_log_info("exmilne, order control, 50 ms: %zu steps, %zu rejected, %zu degree changes\n",
                rb->steps, rb->rejected, rb->k_changes);
    cosa_vo_result_free(rb);
    cosa_vo_result_free(ru);
    cosa_vo_result_free(rn);
    tu_units_free(&f);
}

Test(user_estimator, implicit_slocal_copy_gives_the_builtin_run_bitwise)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    cosa_vo_opts o = opts(&f, COSA_VO_IMPLICIT, 1, 1e-4, 0.01);
    o.control = COSA_VO_CONTROL_STEP;
    o.jacobian = COSA_VO_JAC_EXACT;
    o.estimator = cosa_vo_estimator_lookup("imslocal");
    cosa_vo_result *rb = tu_vo_run(&f, &o);
    o.estimator = &user_slocal;
    cosa_vo_result *ru = tu_vo_run(&f, &o);
    cr_expect_eq(rb->status, COSA_VO_OK, "%s", rb->reason);
    cr_expect(same_run(rb, ru), "user ImSLocal: %zu steps %zu rejected, built-in %zu %zu",
              ru->steps, ru->rejected, rb->steps, rb->rejected);
    cosa_vo_result_free(rb);
    cosa_vo_result_free(ru);
    tu_units_free(&f);
}

/* A failing user estimator: its step fails the error test (norms +inf) and
 * is retried smaller until the step floor stops the run -- a result. */
static cosa_status my_failing(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)s, (void)eps, (void)user_data;
    return COSA_ERANGE;
}

Test(user_estimator, failing_estimate_rejects_the_step)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const cosa_vo_estimator failing = {.name = "failing", .on_states = 0,
                                       .estimate = my_failing};
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 1, 1e-4, 0.05);
    o.control = COSA_VO_CONTROL_STEP;
    o.estimator = &failing;
    o.hmin = 1e-6;
    cosa_vo_result *r = tu_vo_run(&f, &o);
    cr_expect_eq(r->status, COSA_VO_HMIN, "status %s", cosa_vo_status_name(r->status));
    cr_expect_eq(r->steps, 0u);
    /* step control after failed attempts: 0.9 r floored at 0.25 (r = 0 for an
     * infinite norm), then 0.25 H_N: H = 1e-4 4^-j, so the floor 1e-6 is
     * passed at j = 4 (3.9e-7): four rejected attempts, then the stop */
    cr_expect_eq(r->nattempts, 4u, "attempts %zu", r->nattempts);
    for (size_t a = 0; a < r->nattempts; a++)
        cr_expect(isinf(r->aerr_u[a]) && !r->aacc[a], "attempt %zu: norm %g", a, r->aerr_u[a]);
    cosa_vo_result_free(r);
    /* a descriptor without estimate() or with an unknown comparative kind */
    cosa_vo_estimator bad = {.name = "bad", .on_states = 1};
    o.estimator = &bad;
    cosa_vo_result *rr = NULL;
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &rr), COSA_EINVAL);
    bad.estimate = my_milne;
    bad.comparative = 3;
    cr_expect_eq(cosa_vo_run(f.set, tu_units_ref, &f, &o, &rr), COSA_EINVAL);
    cr_expect_null(rr);
    tu_units_free(&f);
}

/* ---- user controllers ------------------------------------------------------------ */

/* Accept every step and grow it by the ratio kp (params: the user's own use
 * of the gain field). */
static void ratio_defaults(cosa_controller_params *p) { p->kp = 1.5; }
static cosa_status ratio_reset(const cosa_controller_params *p, double *state, double h0)
{
    (void)p, (void)state, (void)h0;
    return COSA_OK;
}
static cosa_status ratio_next(const cosa_controller_params *p, double *state, double h,
                              double err, double *hnext, int *accept)
{
    (void)state, (void)err;
    *hnext = p->kp * h;
    *accept = 1;
    return COSA_OK;
}
static const cosa_controller_type user_ratio = {.name = "user-ratio", .nstate = 0,
                                                .defaults = ratio_defaults,
                                                .reset = ratio_reset, .next = ratio_next};

/* Reject every other attempt (state[0] counts them), keeping the step: the
 * rejected attempt is restored and repeated. */
static cosa_status alt_reset(const cosa_controller_params *p, double *state, double h0)
{
    (void)p, (void)h0;
    state[0] = 0.0;
    return COSA_OK;
}
static cosa_status alt_next(const cosa_controller_params *p, double *state, double h,
                            double err, double *hnext, int *accept)
{
    (void)p, (void)err;
    *accept = fmod(state[0], 2.0) == 1.0;
    state[0] += 1.0;
    *hnext = h;
    return COSA_OK;
}
static const cosa_controller_type user_alternate = {.name = "user-alternate", .nstate = 1,
                                                    .reset = alt_reset, .next = alt_next};

/* The step H0 = h, growing by 1.5 from the start t_s, the last step clipped
 * to end at t_s + tend (the engine's rule: a step within 1e-12 of what is
 * left, or beyond it, ends there): the steps by hand. */
Test(user_controller, fixed_ratio_steps_as_computed_by_hand)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const double H0 = 1e-4, tend = 0.05, q = 1.5;
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 2, H0, tend);
    o.control = COSA_VO_CONTROL_STEP;
    o.estimator = cosa_vo_estimator_lookup("exmilne");
    o.controller = &user_ratio;
    cosa_vo_result *r = tu_vo_run(&f, &o);
    cr_expect_eq(r->status, COSA_VO_OK, "%s", r->reason);
    /* by hand: sum_{j<n} H0 q^j >= tend first at n = ceil(log(1 + tend (q-1)/H0) / log q)
     * = ceil(log(251) / log 1.5) = ceil(13.63) = 14 */
    const size_t n = (size_t)ceil(log(1.0 + tend * (q - 1.0) / H0) / log(q));
    cr_expect_eq(n, 14u);
    cr_expect_eq(r->steps, n, "steps %zu, by hand %zu", r->steps, n);
    cr_expect_eq(r->rejected, 0u);
    cr_expect_eq(r->k_hist[2], r->steps, "the degree changed");
    /* H_j = H0 q^j to rounding (repeated products: j roundings of 1 ulp) */
    for (size_t a = 0; a + 1 < r->nattempts; a++) {
        const double Hj = H0 * pow(q, (double)a);
        cr_expect(fabs(r->aH[a] - Hj) <= 16.0 * 0x1p-52 * Hj, "step %zu: H %.17g, by hand %.17g",
                  a, r->aH[a], Hj);
    }
    cr_expect_eq(r->t_end, r->t_start + tend);
    cosa_vo_result_free(r);
    tu_units_free(&f);
}

/* Every other attempt rejected: twice the attempts of the steps, half of
 * them rejected, and -- since a rejection restores the units and the history
 * exactly -- the accepted points bit for bit those of the built-in "fixed"
 * controller with the same step. */
Test(user_controller, rejecting_every_other_attempt)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const double H0 = 1e-3, tend = 0.05;
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 2, H0, tend);
    o.control = COSA_VO_CONTROL_STEP;
    o.estimator = cosa_vo_estimator_lookup("exmilne");
    o.controller = &user_alternate;
    cosa_vo_result *r = tu_vo_run(&f, &o);
    o.controller = cosa_controller_lookup("fixed");
    cosa_vo_result *rf = tu_vo_run(&f, &o);
    /* by hand: tend / H0 = 50 steps (the last one within 1e-12 of the end) */
    cr_expect_eq(r->status, COSA_VO_OK, "%s", r->reason);
    cr_expect_eq(r->steps, 50u, "steps %zu", r->steps);
    cr_expect_eq(r->nattempts, 100u, "attempts %zu", r->nattempts);
    cr_expect_eq(r->rejected, 50u, "rejected %zu", r->rejected);
    for (size_t a = 0; a < r->nattempts; a++)
        cr_expect_eq(r->aacc[a], (int)(a % 2), "attempt %zu", a);
    cr_expect_eq(rf->steps, 50u);
    cr_expect_eq(rf->rejected, 0u);
    cr_expect(r->steps == rf->steps &&
                  !memcmp(r->t, rf->t, (r->steps + 1) * sizeof(double)) &&
                  !memcmp(r->x, rf->x, (r->steps + 1) * r->nx * sizeof(double)),
              "the accepted points differ from the fixed controller's");
    cosa_vo_result_free(r);
    cosa_vo_result_free(rf);
    tu_units_free(&f);
}

/* A controller of its own decide(): accept, keep H, and cycle the degree
 * 0 -> 1 -> 2 -> 0 (kmax 2, order control so that the start-up gives the
 * history of degree 2). */
static cosa_status cycle_decide(const cosa_controller_params *p, double *state,
                                const cosa_vo_control_input *in, const cosa_vo_history *hist,
                                cosa_vo_decision *out)
{
    (void)p, (void)state, (void)hist;
    *out = (cosa_vo_decision){.accept = 1, .k = (in->k + 1) % 3, .H = in->H, .r = NAN};
    return COSA_OK;
}
static const cosa_controller_type user_cycle = {.name = "user-cycle", .nstate = 0,
                                                .reset = ratio_reset, .next = ratio_next,
                                                .decide = cycle_decide};

Test(user_controller, own_decide_cycles_the_degree)
{
    tu_units f;
    tu_units_init(&f, "twomass", "exact");
    const double H0 = 1e-3, tend = 0.05;
    cosa_vo_opts o = opts(&f, COSA_VO_EXPLICIT, 0, H0, tend);
    o.kmax = 2;
    o.control = COSA_VO_CONTROL_ORDER;
    o.estimator = cosa_vo_estimator_lookup("exmilne");
    o.controller = &user_cycle;
    cosa_vo_result *r = tu_vo_run(&f, &o);
    cr_expect_eq(r->status, COSA_VO_OK, "%s", r->reason);
    /* 50 steps of degrees 0, 1, 2, 0, ...: 17, 17, 16; every decision a
     * change (the last one too: 50) */
    cr_expect_eq(r->steps, 50u);
    cr_expect_eq(r->rejected, 0u);
    cr_expect(r->k_hist[0] == 17 && r->k_hist[1] == 17 && r->k_hist[2] == 16,
              "k_hist %zu %zu %zu", r->k_hist[0], r->k_hist[1], r->k_hist[2]);
    cr_expect_eq(r->k_changes, 50u, "k_changes %zu", r->k_changes);
    for (size_t a = 0; a < r->nattempts; a++)
        cr_expect_eq(r->ak[a], (int)(a % 3), "attempt %zu: degree %d", a, r->ak[a]);
    cosa_vo_result_free(r);
    tu_units_free(&f);
}
