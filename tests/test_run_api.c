/* test_run_api.c -- the one run description, entry point and result
 * (lib/td/run.c, issue 23 item 2): cosa_run gives bitwise the figures of
 * the three configurations' own entry points on the built-in twomass
 * (units from cosa_model_units_create); the documented defaults; the
 * validation statuses; the per-unit counters against the counts the
 * algorithms imply (N macro steps of a single-rate Jacobi scheme = N unit
 * steps, K N for a unit at rate K, ...); rollbacks against rejected
 * attempts and iteration restarts; corrector iterations against the
 * variable-order result's per-attempt record; the one-line reasons of a
 * unit failure, an FMU Discard and a divergence; the description's
 * settings on the loop (one status per invalid setting); every
 * configuration without a reference (the same run, no error figures); the
 * result's trajectory against the configuration's own result (bitwise) and,
 * for a fixed ZOH run of exact linear units, against Phi^n z0. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture: twomass, its units, its exact reference ---------------------- */

struct fx {
    const cosa_model *m;
    double par[64];
    cosa_system *sys;
    cosa_model_units *mu;
    cosa_unitset *set;
    double x0[16];
    unsigned char is_vel[16];
};

static void fx_init(struct fx *f, const char *integrator)
{
    memset(f, 0, sizeof *f);
    f->m = cosa_model_find("twomass");
    cr_assert_not_null(f->m);
    cosa_model_defaults(f->m, f->par);
    cr_assert_eq(f->m->create(f->m, f->par, &f->sys), COSA_OK);
    cr_assert_eq(f->m->initial_state(f->m, f->par, f->x0), COSA_OK);
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse(integrator, &in), COSA_OK);
    const cosa_model_units_opts o = {.integ = &in, .sys = f->sys};
    cr_assert_eq(cosa_model_units_create(f->m, f->par, &o, &f->mu, NULL), COSA_OK);
    f->set = cosa_model_units_set(f->mu);
    /* twomass: per mass (position, velocity) */
    for (size_t i = 0; i < cosa_unitset_nx(f->set); i++)
        f->is_vel[i] = i % 2;
}

static void fx_free(struct fx *f)
{
    cosa_model_units_free(f->mu);
    cosa_system_free(f->sys);
}

static cosa_status ref_exact(void *ctx, size_t n, const double *t, size_t nsel,
                             const size_t *sel, double *X)
{
    (void)nsel;
    (void)sel;
    struct fx *f = ctx;
    return tu_exact_states(f->sys, f->x0, n, t, X);
}

/* bitwise equality of n doubles (NaN included) */
static int same(size_t n, const double *a, const double *b)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

/* The loop's figures of two results are the same, bit for bit (but the
 * wall time). */
static void expect_same_stats(const cosa_run_stats *a, const cosa_run_stats *b)
{
    cr_expect_eq(a->end, b->end);
    cr_expect_eq(a->steps, b->steps);
    cr_expect_eq(a->rejected, b->rejected);
    cr_expect_eq(a->attempts, b->attempts);
    cr_expect(same(1, &a->t_end, &b->t_end) && same(1, &a->h_min, &b->h_min) &&
              same(1, &a->h_mean, &b->h_mean) && same(1, &a->h_max, &b->h_max));
    cr_expect_eq(a->rollbacks, b->rollbacks);
    cr_expect_eq(a->corrector_iterations, b->corrector_iterations);
}

/* ---- defaults, names ----------------------------------------------------------- */

Test(run_api, defaults_as_documented)
{
    cosa_run_opts o;
    memset(&o, 0xab, sizeof o);
    cosa_run_opts_default(&o);
    cr_expect_eq(o.kind, COSA_RUN_FIXED);
    cosa_scheme zoh;
    cr_assert_eq(cosa_scheme_parse("zoh", &zoh), COSA_OK);
    cr_expect(o.scheme.order == 0 && o.scheme.exec == COSA_JACOBI &&
              o.scheme.corr == COSA_CORR_NONE && o.scheme.alpha == 1.0 &&
              o.scheme.relax == 1.0 && !o.scheme.implicit && !o.scheme.q_extra &&
              !o.scheme.seq && !o.scheme.model);
    cr_expect(o.scheme.order == zoh.order && o.scheme.corr == zoh.corr);
    /* the loop's settings */
    cr_expect(o.t0 == 0.0 && o.tend == 0.0 && o.H == 0.0 && !o.controller);
    cr_expect(o.tol == 1e-5 && o.safety == 6.0 && o.rmin == 0.5 && o.rmax == 2.0 &&
              o.hmin == COSA_DEFECT_HMIN && o.hmin == 1e-12);
    cr_expect(o.max_steps == 0 && o.max_attempts == 0 && !o.estimator && !o.start_initial &&
              !o.observers && o.nobservers == 0 && !o.cancel);
    /* the blocks */
    cr_expect(o.fixed.diverge_factor == 0.0 && !o.fixed.defects && o.fixed.defect_out_order == 0 &&
              !o.fixed.energy && !o.fixed.iter);
    cr_expect(o.defect.in_order == 1 && o.defect.out_order == 1 &&
              o.defect.control == COSA_DEFECT_BOTH);
    /* vo: the engine's own defaults (cosa_vo_opts_default, at tol) */
    cosa_vo_opts vo;
    cosa_vo_opts_default(&vo);
    cr_expect(o.tol == vo.rtol && o.safety == vo.sf && o.rmin == vo.rmin && o.rmax == vo.rmax &&
              o.hmin == vo.hmin);
    cr_expect(o.vo.coupling == COSA_VO_EXPLICIT && o.vo.kmax == 5 && o.vo.kmax == vo.kmax &&
              o.vo.atol_x == vo.atol_x && o.vo.atol_v == vo.atol_v &&
              o.vo.atol_u == vo.atol_u && o.vo.rtol_u == 0.0 && !o.vo.ctl_coupling &&
              o.vo.jacobian == COSA_VO_JAC_FD && o.vo.corr_tol == 1e-10 &&
              o.vo.corr_max == 10 && !o.vo.is_vel && o.vo.store_max == vo.store_max);
    cosa_run_opts_default(NULL); /* a no-op */
    cr_expect_str_eq(cosa_run_kind_name(COSA_RUN_FIXED), "fixed");
    cr_expect_str_eq(cosa_run_kind_name(COSA_RUN_DEFECT), "defect");
    cr_expect_str_eq(cosa_run_kind_name(COSA_RUN_VO), "vo");
    cr_expect_null(cosa_run_kind_name(COSA_RUN_KIND_COUNT));
    const char *want[] = {"ok",   "diverged",         "failed",
                          "limit", "hmin", "reference-failed", "terminated"};
    for (int s = 0; s <= COSA_RUN_STATUS_TERMINATED; s++)
        cr_expect_str_eq(cosa_run_status_name((cosa_run_status)s), want[s]);
    cr_expect_null(cosa_run_status_name((cosa_run_status)(COSA_RUN_STATUS_TERMINATED + 1)));
    cr_expect_str_eq(cosa_run_end_name(COSA_RUN_TERMINATED), "terminated");
    cr_expect_null(cosa_run_end_name((cosa_run_end)(COSA_RUN_TERMINATED + 1)));
    cr_expect_str_eq(cosa_strerror(COSA_ETERMINATED),
                     "a unit asked to end the simulation (terminateSimulation)");
    cosa_run_result_free(NULL);
}

/* ---- validation -------------------------------------------------------------------- */

Test(run_api, validation_statuses)
{
    struct fx f;
    fx_init(&f, "exact");
    const double H = 1e-3;
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, H, 20, &ref), COSA_OK);
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.H = H;
    o.tend = 10 * H;
    cosa_run_ref rr = {.traj = ref, .x0 = f.x0, .exact = f.sys, .fn = ref_exact, .ctx = &f};
    cosa_run_result *r = (cosa_run_result *)&r;
    /* NULLs and an unknown configuration: COSA_EINVAL, *out NULL */
    cr_expect_eq(cosa_run(NULL, &o, &rr, &r), COSA_EINVAL);
    cr_expect_null(r);
    cr_expect_eq(cosa_run(f.set, NULL, &rr, &r), COSA_EINVAL);
    cr_expect_eq(cosa_run(f.set, &o, &rr, NULL), COSA_EINVAL);
    o.kind = COSA_RUN_KIND_COUNT;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EINVAL);
    o.kind = (cosa_run_kind)-1;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EINVAL);
    o.nobservers = 1; /* observers counted, none given */
    for (int k = 0; k < COSA_RUN_KIND_COUNT; k++) {
        o.kind = (cosa_run_kind)k;
        cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EINVAL, "%d", k);
    }
    o.nobservers = 0;
    /* the loop's settings out of range: COSA_ERANGE in every configuration
     * (a macro step <= 0 or NaN, a NaN tolerance, safety or floor, a
     * horizon <= 0, a start time that is not a number) */
    struct {
        const char *what;
        double *field, value;
    } bad[] = {{"H < 0", &o.H, -H},        {"H NaN", &o.H, NAN},
               {"tol NaN", &o.tol, NAN},   {"tol 0", &o.tol, 0.0},
               {"safety NaN", &o.safety, NAN}, {"hmin NaN", &o.hmin, NAN},
               {"rmin 1", &o.rmin, 1.0},   {"tend 0", &o.tend, 0.0},
               {"tend inf", &o.tend, INFINITY}, {"t0 NaN", &o.t0, NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        for (int k = 0; k < COSA_RUN_KIND_COUNT; k++) {
            const double keep = *bad[i].field;
            *bad[i].field = bad[i].value;
            o.kind = (cosa_run_kind)k;
            cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_ERANGE, "%s, %s", bad[i].what,
                         cosa_run_kind_name(o.kind));
            cr_expect_null(r);
            *bad[i].field = keep;
        }
    /* H 0: a fixed run on a reference takes the trajectory's; the others
     * have no step */
    o.H = 0.0;
    o.kind = COSA_RUN_DEFECT;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_ERANGE);
    o.kind = COSA_RUN_VO;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_ERANGE);
    o.H = H;
    /* a start other than t = 0: COSA_EUNSUPPORTED in every configuration */
    o.t0 = 1.0;
    for (int k = 0; k < COSA_RUN_KIND_COUNT; k++) {
        o.kind = (cosa_run_kind)k;
        cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED, "t0 1, %s",
                     cosa_run_kind_name(o.kind));
    }
    o.t0 = 0.0;
    /* combinations a configuration cannot honour: COSA_EUNSUPPORTED */
    cosa_cancel *cancel = cosa_cancel_alloc();
    const cosa_controller_type *pi = cosa_controller_lookup("pi");
    const cosa_vo_estimator *imp = cosa_vo_estimator_lookup("imslocal");
    cr_assert(pi && imp && cancel);
    o.kind = COSA_RUN_FIXED;
    o.controller = pi; /* fixed steps only */
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.controller = NULL;
    o.estimator = imp;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.estimator = NULL;
    o.max_attempts = 5;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.max_attempts = 0;
    o.kind = COSA_RUN_DEFECT; /* Taylor inputs: no scheme but zoh, no cancel */
    cr_assert_eq(cosa_scheme_parse("foh", &o.scheme), COSA_OK);
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    cr_assert_eq(cosa_scheme_parse("zoh", &o.scheme), COSA_OK);
    o.cancel = cancel;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.kind = COSA_RUN_VO; /* no cancel, no step limit, plain schemes */
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.cancel = NULL;
    o.max_steps = 10;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.max_steps = 0;
    cr_assert_eq(cosa_scheme_parse("gs:zoh", &o.scheme), COSA_OK);
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    cr_assert_eq(cosa_scheme_parse("zoh", &o.scheme), COSA_OK);
    o.estimator = imp; /* the implicit coupling's estimator on the explicit one */
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EUNSUPPORTED);
    o.estimator = NULL;
    /* a fixed run's H that is not its trajectory's: COSA_EINVAL; the
     * horizon needs more steps than max_steps: COSA_ERANGE */
    o.kind = COSA_RUN_FIXED;
    o.H = 2 * H;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EINVAL);
    o.H = H;
    o.max_steps = 9;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_ERANGE);
    o.max_steps = 10;
    cosa_run_result *ok = NULL;
    cr_expect_eq(cosa_run(f.set, &o, &rr, &ok), COSA_OK);
    cosa_run_result_free(ok);
    o.max_steps = 0;
    /* VO without a reference function needs the start from the units' own
     * states: COSA_EINVAL */
    o.kind = COSA_RUN_VO;
    cr_expect_eq(cosa_run(f.set, &o, NULL, &r), COSA_EINVAL);
    cr_expect_null(r);
    /* the configurations' own entry points say the same (one validation) */
    cosa_reftraj neg = *ref;
    neg.H = -H;
    const cosa_cosim_opts co = {.nsteps = 10};
    cosa_cosim_result *cr = NULL;
    cr_expect_eq(cosa_cosim_run(f.set, &o.scheme, &neg, &co, &cr), COSA_ERANGE);
    cosa_cancel_free(cancel);
    cosa_reftraj_free(ref);
    fx_free(&f);
}

/* ---- FIXED: the fixed-step run ------------------------------------------------------ */

/* cosa_run against cosa_cosim_run for scheme text at H over N steps on the
 * fixture's set: the same arrays and figures; the one result's. */
static cosa_run_result *fixed_pair(struct fx *f, const char *scheme, size_t N,
                                   const cosa_iter_opts *iter, cosa_cosim_result **direct)
{
    const double H = 1e-3;
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    cr_assert_eq(cosa_scheme_parse(scheme, &o.scheme), COSA_OK);
    o.H = H;
    o.tend = (double)N * H;
    o.fixed.iter = iter;
    const cosa_cosim_opts preset = {.nsteps = N, .iter = iter}; /* the same run */
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f->sys, f->x0, H, (size_t)o.scheme.order + N + 1, &ref),
                 COSA_OK);
    const cosa_run_ref rr = {.traj = ref};
    cosa_run_result *r = NULL;
    cr_assert_eq(cosa_run(f->set, &o, &rr, &r), COSA_OK);
    cr_assert_eq(cosa_cosim_run(f->set, &o.scheme, ref, &preset, direct), COSA_OK);
    const cosa_cosim_result *a = r->fixed, *b = *direct;
    cr_assert_not_null(a);
    cr_expect(r->kind == COSA_RUN_FIXED && !r->defect && !r->vo);
    const size_t nc = N + 1;
    cr_expect(same(nc, a->t, b->t) && same(a->nx * nc, a->x, b->x) &&
                  same(a->ny * nc, a->ybar, b->ybar) && same(a->ny * nc, a->y, b->y) &&
                  same(a->nu * nc, a->u, b->u),
              "%s: the trajectories differ", scheme);
    cr_expect(same(1, &a->e_global, &b->e_global) && same(1, &r->e_global, &b->e_global),
              "%s: e_global", scheme);
    cr_expect_eq(a->ndone, b->ndone);
    expect_same_stats(&r->run, &b->run);
    expect_same_stats(&a->run, &b->run);
    /* the one result's trajectory is the configuration's */
    cr_assert_eq(r->npoints, N + 1);
    cr_assert(r->ny == a->ny && r->nx == a->nx);
    cr_expect(same(nc, r->t, b->t) && same(a->ny * nc, r->y, b->y) &&
                  same(a->nx * nc, r->x, b->x),
              "%s: the result's trajectory differs", scheme);
    cosa_reftraj_free(ref);
    return r;
}

/* A fixed step: status ok, no reason, rejected 0, h_min = h_max = H; a
 * single-rate Jacobi scheme steps every unit once per macro step and
 * restores none; no errors of the other configurations. */
Test(run_api, fixed_step_same_as_direct)
{
    struct fx f;
    fx_init(&f, "exact");
    const char *schemes[] = {"zoh", "foh+mbcorr", "soh"};
    const size_t N = 200;
    for (int s = 0; s < 3; s++) {
        cosa_cosim_result *d = NULL;
        cosa_run_result *r = fixed_pair(&f, schemes[s], N, NULL, &d);
        cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s: %s", schemes[s], r->reason);
        cr_expect_str_eq(r->reason, "");
        cr_expect(isnan(r->t_stop) && r->fail_unit == (size_t)-1);
        cr_expect_eq(r->run.steps, N);
        cr_expect_eq(r->run.rejected, 0u);
        cr_expect(r->run.h_min == 1e-3 && r->run.h_max == 1e-3);
        cr_expect(r->run.rollbacks == 0 && r->run.corrector_iterations == 0);
        cr_expect(isfinite(r->e_global) && r->e_global > 0.0);
        cr_expect(isnan(r->e_output) && isnan(r->e36_all) && isnan(r->e_end));
        cr_expect(isnan(r->seconds_reference) && r->seconds_loop >= 0.0 &&
                  r->seconds_total >= r->seconds_loop);
        cr_assert_eq(r->nunits, 2u);
        for (size_t i = 0; i < 2; i++) {
            cr_expect_eq(r->units[i].steps, N, "%s unit %zu: %zu steps", schemes[s], i,
                         r->units[i].steps);
            cr_expect_eq(r->units[i].restores, 0u);
            /* the direct call left the same counts (each run resets them) */
            cosa_unit_counters c;
            cosa_unit_get_counters(cosa_unitset_unit(f.set, i), &c);
            cr_expect_eq(c.steps, N);
        }
        cosa_run_result_free(r);
        cosa_cosim_result_free(d);
    }
    fx_free(&f);
}

/* Multi-rate (energy paper): unit i at rate K_i takes K_i N steps. */
Test(run_api, multi_rate_unit_steps)
{
    struct fx f;
    fx_init(&f, "rk4");
    const unsigned rate[2] = {1, 3};
    cr_assert_eq(cosa_unitset_set_rates(f.set, rate), COSA_OK);
    const size_t N = 50;
    cosa_cosim_result *d = NULL;
    cosa_run_result *r = fixed_pair(&f, "zoh", N, NULL, &d);
    cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s", r->reason);
    for (size_t i = 0; i < 2; i++)
        cr_expect_eq(r->units[i].steps, rate[i] * N, "unit %zu: %zu steps", i,
                     r->units[i].steps);
    cosa_run_result_free(r);
    cosa_cosim_result_free(d);
    fx_free(&f);
}

/* An iterated scheme with J fixed sweeps per window (README "Iterative
 * coupling"): J N corrector iterations; Jacobi restarts every sweep after
 * the first (J - 1 per window), Gauss-Seidel every one after the first and
 * replays the accepted one (J per window); each unit steps once per sweep
 * plus the replay, and is restored once per rollback. */
Test(run_api, iterations_and_rollbacks)
{
    struct fx f;
    fx_init(&f, "exact");
    const size_t N = 40;
    const unsigned J = 3;
    const cosa_iter_opts io = {.iterations = J, .converge = 0, .tol = 1e-8};
    const char *schemes[] = {"imp:zoh", "gs-imp:zoh"};
    for (int s = 0; s < 2; s++) {
        const int gs = s == 1;
        cosa_cosim_result *d = NULL;
        cosa_run_result *r = fixed_pair(&f, schemes[s], N, &io, &d);
        cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s", r->reason);
        cr_expect_eq(r->run.corrector_iterations, J * N, "%s: %zu", schemes[s],
                     r->run.corrector_iterations);
        cr_expect_eq(r->fixed->iter.sweeps, J * N);
        const size_t rb = (gs ? J : J - 1) * N;
        cr_expect_eq(r->run.rollbacks, rb, "%s: %zu rollbacks", schemes[s], r->run.rollbacks);
        for (size_t i = 0; i < 2; i++) {
            cr_expect_eq(r->units[i].restores, rb, "%s unit %zu: %zu restores", schemes[s], i,
                         r->units[i].restores);
            cr_expect_eq(r->units[i].steps, (gs ? J + 1 : J) * N, "%s unit %zu: %zu steps",
                         schemes[s], i, r->units[i].steps);
        }
        cosa_run_result_free(r);
        cosa_cosim_result_free(d);
    }
    fx_free(&f);
}

/* ---- DEFECT ---------------------------------------------------------------------- */

static cosa_run_result *defect_pair(struct fx *f, double H, double tol)
{
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.kind = COSA_RUN_DEFECT;
    /* controlled: the "pi" controller from the first step 1e-4 */
    o.H = tol > 0.0 ? 1e-4 : H;
    o.controller = tol > 0.0 ? cosa_controller_lookup("pi") : NULL;
    if (tol > 0.0)
        o.tol = tol;
    o.tend = 0.2;
    /* the same run as the preset's options (in_order, out_order 1: the
     * description's defaults) */
    const cosa_defect_opts preset = {.in_order = 1, .out_order = 1, .H = H, .tol = tol,
                                     .h0 = tol > 0.0 ? 1e-4 : 0.0, .tend = 0.2,
                                     .control = COSA_DEFECT_BOTH};
    const cosa_run_ref rr = {.x0 = f->x0, .exact = f->sys};
    cosa_run_result *r = NULL;
    cosa_defect_result *b = NULL;
    cr_assert_eq(cosa_run(f->set, &o, &rr, &r), COSA_OK);
    cr_assert_eq(cosa_defect_run(f->set, f->x0, f->sys, &preset, &b), COSA_OK);
    const cosa_defect_result *a = r->defect;
    cr_assert_not_null(a);
    cr_assert_eq(a->nsteps, b->nsteps);
    const size_t n = a->nsteps, ny = a->ny, nu = a->nu;
    cr_expect(same(n, a->t, b->t) && same(n, a->h, b->h) && same(n, a->eps, b->eps) &&
              same(ny * n, a->step_out, b->step_out) && same(nu * n, a->step_conn, b->step_conn));
    cr_expect(same(ny, a->error, b->error) && same(ny, a->defect_out, b->defect_out) &&
              same(ny, a->y_end, b->y_end));
    expect_same_stats(&r->run, &b->run);
    /* the one result's errors are the configuration's largest */
    double e = 0.0, dout = 0.0;
    for (size_t l = 0; l < ny; l++)
        e = fmax(e, b->error[l]), dout = fmax(dout, b->defect_out[l]);
    cr_expect(r->e_output == e && r->defect_out == dout && isnan(r->e_global));
    cr_expect(r->seconds_reference >= 0.0 && r->seconds_reference <= r->seconds_total);
    /* the trajectory: t = 0 (no outputs recorded there: NaN), then every
     * step's end with y^(0) there -- the last one is y_end */
    cr_assert_eq(r->npoints, n + 1);
    cr_expect(r->ny == ny && r->nx == 0 && r->t[0] == 0.0 && isnan(r->y[0]));
    cr_expect(same(n, r->t + 1, b->t), "trajectory times");
    cr_expect(same(ny, r->y + n * ny, b->y_end), "the last point is y_end");
    for (size_t k = 0; k < n; k++)
        cr_expect(same(ny, r->y + (k + 1) * ny, b->coef + k * ny * (size_t)(b->out_order + 1)),
                  "step %zu: y^(0)", k);
    cosa_defect_result_free(b);
    return r;
}

/* Fixed and controlled: the same figures; Algorithm 1 never rejects; the
 * mid-step sample of every step is a half step from a snapshot, then a
 * restore (cosa_master_opts.sample_mid): 2 unit steps and 1 restore per
 * macro step, none of them a rollback of the run. */
Test(run_api, defect_same_as_direct)
{
    struct fx f;
    fx_init(&f, "exact");
    /* controlled: the defects are in the outputs' units (N, m/s; twomass's
     * force is of order 1e5 N), so tol 100 asks for a few hundred steps */
    const double tol[2] = {0.0, 100.0};
    for (int c = 0; c < 2; c++) {
        cosa_run_result *r = defect_pair(&f, tol[c] > 0.0 ? 0.0 : 1e-3, tol[c]);
        cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s", r->reason);
        const size_t N = r->run.steps;
        cr_expect(c > 0 || N == 200, "fixed: %zu steps", N);
        cr_expect(r->run.rejected == 0 && r->run.rollbacks == 0);
        if (c == 0)
            cr_expect(r->run.h_min == 1e-3 && r->run.h_max == 1e-3);
        else
            cr_expect(r->run.h_max > r->run.h_min);
        for (size_t i = 0; i < 2; i++)
            cr_expect(r->units[i].steps == 2 * N && r->units[i].restores == N,
                      "unit %zu: %zu steps, %zu restores over %zu macro steps", i,
                      r->units[i].steps, r->units[i].restores, N);
        cosa_run_result_free(r);
    }
    fx_free(&f);
}

/* ---- VO -------------------------------------------------------------------------------- */

/* The run description of the preset's options vo: the degree as the
 * scheme's order, the control kind as the controller of that name, the
 * tolerances and limits on the loop, the rest in the vo block. */
static void vo_describe(const cosa_vo_opts *vo, cosa_run_opts *o)
{
    cosa_run_opts_default(o);
    o->kind = COSA_RUN_VO;
    cr_assert_eq(cosa_scheme_parse("zoh", &o->scheme), COSA_OK);
    o->scheme.order = vo->k;
    o->H = vo->H;
    o->tend = vo->tend;
    o->controller = vo->control == COSA_VO_CONTROL_ORDER  ? cosa_controller_lookup("order")
                    : vo->control == COSA_VO_CONTROL_STEP ? cosa_controller_lookup("step")
                                                          : NULL;
    o->tol = vo->rtol;
    o->safety = vo->sf;
    o->rmin = vo->rmin;
    o->rmax = vo->rmax;
    o->hmin = vo->hmin;
    o->max_attempts = vo->max_attempts;
    o->estimator = vo->estimator;
    o->start_initial = vo->start_initial;
    o->vo = (cosa_run_vo_opts){.coupling = vo->coupling, .kmax = vo->kmax, .atol_x = vo->atol_x,
                               .atol_v = vo->atol_v, .atol_u = vo->atol_u, .rtol_u = vo->rtol_u,
                               .ctl_coupling = vo->ctl_coupling, .jacobian = vo->jacobian,
                               .corr_tol = vo->corr_tol, .corr_max = vo->corr_max,
                               .is_vel = vo->is_vel, .store_max = vo->store_max};
}

static cosa_run_result *vo_pair(struct fx *f, const cosa_vo_opts *vo)
{
    cosa_run_opts o;
    vo_describe(vo, &o);
    const cosa_run_ref rr = {.fn = ref_exact, .ctx = f};
    cosa_run_result *r = NULL;
    cosa_vo_result *b = NULL;
    cr_assert_eq(cosa_run(f->set, &o, &rr, &r), COSA_OK);
    cr_assert_eq(cosa_vo_run(f->set, ref_exact, f, vo, &b), COSA_OK);
    const cosa_vo_result *a = r->vo;
    cr_assert_not_null(a);
    cr_assert(a->steps == b->steps && a->nattempts == b->nattempts && a->nx == b->nx);
    const size_t n = a->steps + 1, na = a->nattempts;
    cr_expect(same(n, a->t, b->t) && same(a->nx * n, a->x, b->x) &&
              same(a->nx * n, a->xref, b->xref) && same(na, a->aH, b->aH));
    cr_expect(same(1, &a->e36_all, &b->e36_all) && same(1, &r->e36_all, &b->e36_all) &&
              same(1, &r->e36_coupling, &b->e36_coupling) && same(1, &r->e_end, &b->e_end));
    cr_expect(a->corrector_iters == b->corrector_iters && a->rejected == b->rejected);
    expect_same_stats(&r->run, &b->run);
    cr_expect(r->seconds_reference >= 0.0 && isnan(r->e_global));
    /* the trajectory: every state kept (twomass: 4 <= store_max) */
    cr_assert(a->all_stored && r->npoints == n && r->nx == a->nx && r->ny == a->ny);
    cr_expect(same(n, r->t, b->t) && same(r->nx * n, r->x, b->x) && same(r->ny * n, r->y, b->y),
              "the result's trajectory differs");
    cosa_vo_result_free(b);
    return r;
}

/* Implicit, fixed steps: the corrector iterations are the sum of the
 * per-attempt record (aiters), and every one restarted the units (a
 * rollback). */
Test(run_api, vo_implicit_corrector_iterations)
{
    struct fx f;
    fx_init(&f, "exact");
    cosa_vo_opts vo;
    cosa_vo_opts_default(&vo);
    vo.coupling = COSA_VO_IMPLICIT;
    vo.k = 1;
    vo.H = 1e-3;
    vo.tend = 0.05;
    vo.is_vel = f.is_vel;
    cosa_run_result *r = vo_pair(&f, &vo);
    cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s", r->reason);
    size_t sum = 0;
    for (size_t a = 0; a < r->vo->nattempts; a++)
        sum += (size_t)r->vo->aiters[a];
    cr_expect(sum >= r->vo->nattempts, "at least one corrector iteration per step");
    cr_expect_eq(r->run.corrector_iterations, sum);
    cr_expect_eq(r->run.rejected, 0u);
    cr_expect_eq(r->run.rollbacks, sum);
    cr_expect(r->run.h_min == 1e-3 && r->run.h_max == 1e-3);
    cosa_run_result_free(r);
    fx_free(&f);
}

/* Controlled, explicit, an estimator without a comparative integration
 * (exslocal): the only restores of the units are the rejected attempts'. */
Test(run_api, vo_controlled_rollbacks_are_rejections)
{
    struct fx f;
    fx_init(&f, "exact");
    cosa_vo_opts vo;
    cosa_vo_opts_default(&vo);
    vo.k = 1;
    vo.H = 1e-4;
    vo.tend = 0.1;
    vo.is_vel = f.is_vel;
    vo.estimator = cosa_vo_estimator_lookup("exslocal");
    vo.control = COSA_VO_CONTROL_ORDER;
    cosa_run_result *r = vo_pair(&f, &vo);
    cr_expect_eq(r->status, COSA_RUN_STATUS_OK, "%s", r->reason);
    cr_assert(r->run.rejected > 0, "the run must reject attempts for this test to mean anything");
    cr_expect_eq(r->run.rollbacks, r->run.rejected);
    cr_expect_eq(r->run.rejected, r->vo->nattempts - r->vo->steps);
    cr_expect_eq(r->run.corrector_iterations, 0u);
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq(r->units[i].restores, r->run.rejected, "unit %zu: %zu restores", i,
                     r->units[i].restores);
        cr_expect_eq(r->units[i].steps, r->vo->nattempts, "unit %zu: %zu steps", i,
                     r->units[i].steps);
    }
    cosa_run_result_free(r);
    fx_free(&f);
}

/* ---- failures: status and one-line reason ------------------------------------------- */

/* A unit's integrator that cannot take the step (RK4 past its micro-step
 * limit): failed at the first step, the reason names the unit, the step's
 * end and the call. */
Test(run_api, unit_failure_reason)
{
    struct fx f;
    memset(&f, 0, sizeof f);
    f.m = cosa_model_find("twomass");
    cosa_model_defaults(f.m, f.par);
    cr_assert_eq(f.m->create(f.m, f.par, &f.sys), COSA_OK);
    cr_assert_eq(f.m->initial_state(f.m, f.par, f.x0), COSA_OK);
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse("rk4", &in), COSA_OK);
    in.hmicro = 1e-12; /* 1e9 micro steps per 1 ms macro step > COSA_MICRO_STEPS_MAX */
    const cosa_model_units_opts uo = {.integ = &in, .sys = f.sys};
    cr_assert_eq(cosa_model_units_create(f.m, f.par, &uo, &f.mu, NULL), COSA_OK);
    f.set = cosa_model_units_set(f.mu);
    cr_expect_str_eq(cosa_unitset_unit_name(f.set, 0), "I");
    cr_expect_str_eq(cosa_unitset_unit_name(f.set, 1), "II");
    cr_expect_null(cosa_unitset_unit_name(f.set, 2));
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, 1e-3, 20, &ref), COSA_OK);
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    cr_assert_eq(cosa_scheme_parse("foh", &o.scheme), COSA_OK);
    o.tend = 10 * 1e-3; /* H 0: the trajectory's */
    const cosa_run_ref rr = {.traj = ref};
    cosa_run_result *r = NULL;
    cr_assert_eq(cosa_run(f.set, &o, &rr, &r), COSA_OK);
    cr_expect_eq(r->status, COSA_RUN_STATUS_FAILED);
    cr_expect_eq(r->fail_unit, 0u);
    cr_expect_eq(r->t_stop, 2e-3); /* the first step, from p H = 1 ms */
    cr_expect_eq(r->run.steps, 0u);
    /* the failed attempt ends the run: not retried, no rollback (and a
     * fixed-step master keeps no snapshots: no unit was restored) */
    cr_expect(r->run.rollbacks == 0 && r->units[0].restores == 0 && r->units[1].restores == 0);
    /* and no rejection: a fixed step rejects nothing; the attempt counts */
    cr_expect(r->run.rejected == 0 && r->run.attempts == 1, "rejected %zu, attempts %zu",
              r->run.rejected, r->run.attempts);
    cr_expect(strstr(r->reason, "unit I (0), step to t = 0.002: rk4: the step from t = 0.001") ==
                  r->reason,
              "reason: %s", r->reason);
    cr_expect(strstr(r->reason, "micro steps") != NULL, "reason: %s", r->reason);
    cosa_run_result_free(r);
    cosa_reftraj_free(ref);
    fx_free(&f);
}

/* Divergence (the driver's test with a factor that every output passes):
 * diverged at the first macro point, the reason gives the time. */
Test(run_api, divergence_reason)
{
    struct fx f;
    fx_init(&f, "exact");
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, 1e-3, 20, &ref), COSA_OK);
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.tend = 10 * 1e-3;
    o.fixed.diverge_factor = 1e-300;
    const cosa_run_ref rr = {.traj = ref};
    cosa_run_result *r = NULL;
    cr_assert_eq(cosa_run(f.set, &o, &rr, &r), COSA_OK);
    cr_expect_eq(r->status, COSA_RUN_STATUS_DIVERGED, "%s", cosa_run_status_name(r->status));
    cr_expect_eq(r->t_stop, 1e-3);
    cr_expect_eq(r->run.steps, 1u);
    cr_expect(strstr(r->reason, "t = 0.001: output ") == r->reason, "reason: %s", r->reason);
    cr_expect(isinf(r->e_global));
    cosa_run_result_free(r);
    cosa_reftraj_free(ref);
    fx_free(&f);
}

/* The two-mass oscillator as two FMUs, II failing in its doStep reaching
 * t = 0.01 (tests/fmu), with its linear form, initial state and units. */
struct fmu_fx {
    cosa_model *m;
    double *par, x0[16];
    unsigned char is_vel[16];
    cosa_system *sys;
    cosa_model_units *mu;
    cosa_unitset *set;
};

static void fmu_fx_init(struct fmu_fx *f, const char *first, const char *second)
{
    const char *d = getenv("COSA_FMUDIR");
    char text[9000], err[512];
    memset(f, 0, sizeof *f);
    snprintf(text, sizeof text,
             "model twomass-fmu\nfmu I = %s/%s\nfmu II = %s/%s\n"
             "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n",
             d ? d : "tests/fmu", first, d ? d : "tests/fmu", second);
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "net", &f->m, err, sizeof err),
                 COSA_OK, "%s", err);
    f->par = calloc(f->m->nparam + 1, sizeof *f->par);
    cosa_model_defaults(f->m, f->par);
    cr_assert_eq(f->m->create(f->m, f->par, &f->sys), COSA_OK);
    cr_assert_eq(f->m->initial_state(f->m, f->par, f->x0), COSA_OK);
    cosa_integrator ex;
    cr_assert_eq(cosa_integrator_parse("exact", &ex), COSA_OK);
    const cosa_model_units_opts uo = {.integ = &ex, .sys = f->sys};
    cr_assert_eq(cosa_model_units_create(f->m, f->par, &uo, &f->mu, NULL), COSA_OK);
    f->set = cosa_model_units_set(f->mu);
    for (size_t i = 0; i < cosa_unitset_nx(f->set); i++)
        f->is_vel[i] = i % 2;
}

static void fmu_fx_free(struct fmu_fx *f)
{
    cosa_model_units_free(f->mu);
    cosa_system_free(f->sys);
    free(f->par);
    cosa_model_free(f->m);
}

static cosa_status fmu_ref(void *ctx, size_t n, const double *t, size_t nsel, const size_t *sel,
                           double *X)
{
    (void)nsel;
    (void)sel;
    struct fmu_fx *f = ctx;
    return tu_exact_states(f->sys, f->x0, n, t, X);
}

/* One run description per configuration over [0, 0.02] at 1 ms. */
static void fmu_opts(cosa_run_opts *o, cosa_run_kind kind, const struct fmu_fx *f)
{
    cosa_run_opts_default(o);
    o->kind = kind;
    o->H = 1e-3;
    o->tend = 0.02;
    o->defect.in_order = o->defect.out_order = 0;
    o->vo.is_vel = f->is_vel;
}

/* FMI 2.0, II's doStep discards: a result in every configuration; the
 * reason names the unit, the time and the FMU call. */
Test(run_api, fmu_discard_reason)
{
    struct fmu_fx f;
    fmu_fx_init(&f, "twomass1_fmi2.fmu", "fail_discard_fmi2.fmu");
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, 1e-3, 30, &ref), COSA_OK);
    const char *call = ": FMU II: fmi2DoStep at t = 0.0090000000000000011 returned Discard";
    for (int k = 0; k < COSA_RUN_KIND_COUNT; k++) {
        cosa_run_opts o;
        fmu_opts(&o, (cosa_run_kind)k, &f);
        const char *kn = cosa_run_kind_name(o.kind);
        const cosa_run_ref rr = {.traj = ref, .x0 = f.x0, .exact = f.sys, .fn = fmu_ref,
                                 .ctx = &f};
        cosa_run_result *r = NULL;
        cr_assert_eq(cosa_run(f.set, &o, &rr, &r), COSA_OK, "%s", kn);
        cr_expect_eq(r->status, COSA_RUN_STATUS_FAILED, "%s", kn);
        cr_expect_eq(r->fail_unit, 1u);
        /* the step that ends at 0.01: (k + 1) H for the fixed steps; the
         * variable-order run sums t_s + H over 9 steps, 9 roundings of at
         * most half an ulp of 0.01 each: 4.5 ulp */
        cr_expect(fabs(r->t_stop - 0.01) <= 4.5 * 0.01 * DBL_EPSILON, "%s: t_stop %.17g", kn,
                  r->t_stop);
        char head[64];
        snprintf(head, sizeof head, "unit II (1), step to t = %.17g", r->t_stop);
        cr_expect(strstr(r->reason, head) == r->reason && strstr(r->reason, call) &&
                      strlen(strstr(r->reason, call)) == strlen(call),
                  "%s: %s", kn, r->reason);
        cr_expect_eq(r->run.steps, k == COSA_RUN_VO ? 8u : 9u, "%s: %zu steps", kn,
                     r->run.steps);
        cosa_run_result_free(r);
    }
    cosa_reftraj_free(ref);
    fmu_fx_free(&f);
}

/* FMI 3.0, II's doStep returns Error: an error of the run (a returned
 * status, no result), in every configuration. */
Test(run_api, fmu_error_is_an_error)
{
    struct fmu_fx f;
    fmu_fx_init(&f, "twomass1_fmi3.fmu", "fail_error_fmi3.fmu");
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, 1e-3, 30, &ref), COSA_OK);
    for (int k = 0; k < COSA_RUN_KIND_COUNT; k++) {
        cosa_run_opts o;
        fmu_opts(&o, (cosa_run_kind)k, &f);
        const cosa_run_ref rr = {.traj = ref, .x0 = f.x0, .exact = f.sys, .fn = fmu_ref,
                                 .ctx = &f};
        cosa_run_result *r = (cosa_run_result *)&r;
        cr_expect_eq(cosa_run(f.set, &o, &rr, &r), COSA_EFMU, "%s", cosa_run_kind_name(o.kind));
        cr_expect_null(r);
    }
    cosa_reftraj_free(ref);
    fmu_fx_free(&f);
}

/* A fixed run without a reference (cosa_run_ref.traj NULL, cosa_run_opts.H;
 * issue 31: black boxes): from the units' own states at t = 0 it is the run
 * that starts there on a reference (start_initial), bit for bit -- the run
 * does not read the reference after its start -- with e_global and the
 * reference outputs NaN; without H it is refused. */
Test(run_api, fixed_without_reference)
{
    struct fx f;
    fx_init(&f, "exact");
    const double H = 1e-4;
    const size_t N = 200;
    for (size_t i = 0; i < cosa_unitset_count(f.set); i++) {
        size_t ox;
        cosa_unitset_offsets(f.set, i, &ox, NULL, NULL);
        cr_assert_eq(cosa_unit_set_state(cosa_unitset_unit(f.set, i), 0.0, f.x0 + ox), COSA_OK);
    }
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, H, N + 1, &ref), COSA_OK);
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.tend = (double)N * H;
    o.start_initial = 1;
    cosa_run_result *a = NULL, *b = NULL;
    const cosa_run_ref with = {.traj = ref}, without = {0};
    cr_assert_eq(cosa_run(f.set, &o, &with, &a), COSA_OK); /* H 0: the trajectory's */
    /* no H: nothing says the macro step */
    cr_expect_eq(cosa_run(f.set, &o, &without, &b), COSA_ERANGE);
    cr_expect_eq(cosa_run(f.set, &o, NULL, &b), COSA_ERANGE);
    o.H = H;
    for (size_t i = 0; i < cosa_unitset_count(f.set); i++) { /* the run moved the units */
        size_t ox;
        cosa_unitset_offsets(f.set, i, &ox, NULL, NULL);
        cr_assert_eq(cosa_unit_set_state(cosa_unitset_unit(f.set, i), 0.0, f.x0 + ox), COSA_OK);
    }
    cr_assert_eq(cosa_run(f.set, &o, &without, &b), COSA_OK);
    const size_t ny = a->fixed->ny, nx = a->fixed->nx;
    cr_expect_eq(b->status, COSA_RUN_STATUS_OK);
    cr_expect_eq(b->fixed->ndone, N);
    cr_expect(same(ny * (N + 1), a->fixed->ybar, b->fixed->ybar), "ybar differs");
    cr_expect(same(nx * (N + 1), a->fixed->x, b->fixed->x), "x differs");
    cr_expect(isfinite(a->e_global) && isnan(b->e_global), "e_global %g %g", a->e_global,
              b->e_global);
    cr_expect(isnan(b->fixed->yref[ny]), "yref %g", b->fixed->yref[ny]);
    cosa_run_result_free(a);
    cosa_run_result_free(b);
    cosa_reftraj_free(ref);
    fx_free(&f);
}

/* ---- the horizon on the run description (cosa_run_opts.tend) ---------------------------- */

static void units_to_x0(struct fx *f)
{
    for (size_t i = 0; i < cosa_unitset_count(f->set); i++) {
        size_t ox;
        cosa_unitset_offsets(f->set, i, &ox, NULL, NULL);
        cr_assert_eq(cosa_unit_set_state(cosa_unitset_unit(f->set, i), 0.0, f->x0 + ox), COSA_OK);
    }
}

/* A fixed run without a reference described by H and tend alone: tend 3 at
 * H 0.064 is 46 full steps and one of 0.056 (floor(3 / 0.064) = 46), the
 * last point at t = 3 (46 H + (3 - 46 H): one rounding of the sum, 2 ulps);
 * the 46 grid columns are bitwise the run of 46 steps (the short step only
 * adds a column).  A whole number of steps (0.3 / 1e-3, 299.99999999999994
 * in double) is 300 steps, no short one, bitwise fixed.nsteps = 300.  A
 * horizon shorter than H, or not finite, is COSA_ERANGE. */
Test(run_api, fixed_tend_on_the_description)
{
    struct fx f;
    fx_init(&f, "exact");
    const cosa_run_ref none = {0};
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.H = 0.064;
    o.tend = 3.0;
    cosa_run_result *a = NULL, *b = NULL, *c = NULL;
    units_to_x0(&f);
    cr_assert_eq(cosa_run(f.set, &o, &none, &a), COSA_OK);
    cr_expect_eq(a->status, COSA_RUN_STATUS_OK);
    cr_expect_eq(a->fixed->ndone, 47);
    cr_expect_eq(a->fixed->clipped, 1);
    cr_expect_eq(a->run.steps, 47);
    const double tlast = a->fixed->t[a->fixed->ndone];
    cr_expect(fabs(tlast - 3.0) <= 2.0 * DBL_EPSILON * 3.0, "last point at %.17g", tlast);
    o.tend = 46 * 0.064; /* 46.000000000000007 H: 46 steps */
    units_to_x0(&f);
    cr_assert_eq(cosa_run(f.set, &o, &none, &b), COSA_OK);
    const size_t nx = a->fixed->nx, ny = a->fixed->ny;
    cr_expect(same(nx * 47, a->fixed->x, b->fixed->x), "grid states differ");
    cr_expect(same(ny * 47, a->fixed->y, b->fixed->y), "grid outputs differ");
    cr_expect_eq(b->fixed->ndone, 46);
    cr_expect_eq(b->fixed->clipped, 0);
    /* a whole number of steps: the preset's run of 300 steps from the units'
     * own states on no reference, bitwise */
    o.H = 1e-3;
    o.tend = 0.3;
    units_to_x0(&f);
    cr_assert_eq(cosa_run(f.set, &o, &none, &c), COSA_OK);
    cr_expect_eq(c->fixed->ndone, 300);
    cr_expect_eq(c->fixed->clipped, 0);
    units_to_x0(&f);
    cosa_reftraj *nt = NULL;
    cr_assert_eq(cosa_reftraj_none(f.set, NULL, 1e-3, 301, &nt), COSA_OK);
    const cosa_cosim_opts preset = {.nsteps = 300, .start_initial = 1};
    cosa_cosim_result *d = NULL;
    cr_assert_eq(cosa_cosim_run(f.set, &o.scheme, nt, &preset, &d), COSA_OK);
    cr_expect(same(nx * 301, c->fixed->x, d->x) && same(ny * 301, c->fixed->y, d->y),
              "300 steps differ");
    cr_expect(same(nx * 301, c->x, d->x) && same(ny * 301, c->y, d->y) && same(301, c->t, d->t),
              "the result's trajectory differs");
    cosa_cosim_result_free(d);
    cosa_reftraj_free(nt);
    /* no whole step; not finite */
    cosa_run_result *e = NULL;
    o.tend = 5e-4;
    cr_expect_eq(cosa_run(f.set, &o, &none, &e), COSA_ERANGE);
    o.tend = NAN;
    cr_expect_eq(cosa_run(f.set, &o, &none, &e), COSA_ERANGE);
    o.tend = -1.0;
    cr_expect_eq(cosa_run(f.set, &o, &none, &e), COSA_ERANGE);
    cr_expect_null(e);
    cosa_run_result_free(a);
    cosa_run_result_free(b);
    cosa_run_result_free(c);
    fx_free(&f);
}

/* ---- no reference, the trajectory against Phi^n ------------------------------------ */

/* The defect run without a reference (ref NULL: the units' own states, no
 * exact solution) is the run from the same x0 without exact, bit for bit,
 * and the run with exact too (the reference only measures it: its error
 * figures, a divergence bound no output reaches here); e_output is NaN
 * without. */
Test(run_api, defect_without_reference)
{
    struct fx f;
    fx_init(&f, "exact");
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.kind = COSA_RUN_DEFECT;
    o.H = 1e-3;
    o.tend = 0.05;
    const cosa_run_ref with = {.x0 = f.x0, .exact = f.sys}, start = {.x0 = f.x0};
    cosa_run_result *a = NULL, *b = NULL, *c = NULL;
    cr_assert_eq(cosa_run(f.set, &o, &with, &a), COSA_OK);
    cr_assert_eq(cosa_run(f.set, &o, &start, &b), COSA_OK);
    units_to_x0(&f); /* the units' own states: the fixture's x0 */
    cr_assert_eq(cosa_run(f.set, &o, NULL, &c), COSA_OK);
    cr_expect(a->status == COSA_RUN_STATUS_OK && c->status == COSA_RUN_STATUS_OK, "%s",
              c->reason);
    cr_assert(a->npoints == c->npoints && b->npoints == c->npoints && c->npoints == 51);
    const size_t n = c->npoints, ny = c->ny;
    cr_expect(same(n, a->t, c->t) && same(ny * n, a->y, c->y) && same(ny * n, b->y, c->y),
              "the trajectory depends on the reference");
    cr_expect(same(1, &a->defect_out, &c->defect_out) && same(1, &a->defect_conn, &c->defect_conn));
    cr_expect(isfinite(a->e_output) && isnan(b->e_output) && isnan(c->e_output));
    cr_expect(isnan(c->seconds_reference));
    cosa_run_result_free(a);
    cosa_run_result_free(b);
    cosa_run_result_free(c);
    fx_free(&f);
}

/* The variable-order run without a reference function: from the units'
 * own states (start_initial), x(0) read from the units; the same run as
 * the one that takes x(0) from the exact reference, bit for bit (after the
 * start the engine reads the reference only for its error figures and its
 * divergence bound, which no state reaches here), its status the loop's,
 * the error figures NaN; fixed steps and step control
 * (ExSLocal estimates from the coupling variables, not the reference). */
Test(run_api, vo_without_reference)
{
    struct fx f;
    fx_init(&f, "exact");
    for (int ctl = 0; ctl < 2; ctl++) {
        cosa_run_opts o;
        cosa_run_opts_default(&o);
        o.kind = COSA_RUN_VO;
        cr_assert_eq(cosa_scheme_parse("foh", &o.scheme), COSA_OK);
        o.H = ctl ? 1e-5 : 1e-4;
        o.tend = ctl ? 0.004 : 0.01;
        o.start_initial = 1;
        o.vo.is_vel = f.is_vel;
        if (ctl) {
            o.controller = cosa_controller_lookup("step");
            o.estimator = cosa_vo_estimator_lookup("exslocal");
            o.tol = 1e-3;
        }
        const cosa_run_ref with = {.fn = ref_exact, .ctx = &f};
        cosa_run_result *a = NULL, *b = NULL;
        units_to_x0(&f);
        cr_assert_eq(cosa_run(f.set, &o, &with, &a), COSA_OK);
        units_to_x0(&f);
        cr_assert_eq(cosa_run(f.set, &o, NULL, &b), COSA_OK);
        cr_expect_eq(a->status, COSA_RUN_STATUS_OK, "%s", a->reason);
        cr_expect_eq(b->status, COSA_RUN_STATUS_OK, "%s", b->reason);
        cr_expect_str_eq(b->reason, "");
        cr_assert(a->npoints == b->npoints && a->npoints > 10 && a->nx == b->nx && a->nx == 4);
        const size_t n = a->npoints;
        cr_expect(same(n, a->t, b->t) && same(a->nx * n, a->x, b->x) &&
                      same(a->ny * n, a->y, b->y),
                  "control %d: the trajectory depends on the reference", ctl);
        expect_same_stats(&a->run, &b->run);
        cr_expect(isfinite(a->e36_all) && isnan(b->e36_all) && isnan(b->e_end));
        cr_expect_eq(b->vo->status, COSA_VO_OK);
        cr_expect(isnan(b->vo->xref[b->nx]), "the reference after t = 0 is unknown");
        cr_expect(ctl == 0 || b->run.h_max > b->run.h_min, "the step never changed");
        cosa_run_result_free(a);
        cosa_run_result_free(b);
    }
    fx_free(&f);
}

/* The trajectory of a fixed ZOH run with exact units against the
 * propagation matrix: z_n = Phi^n z0 (z = states and the held outputs;
 * cosa_z0_build is the start on the exact reference at t = 0), the states
 * at t[n] = n H.  Both routes are products of matrix exponentials and sums,
 * backward stable: an error of a few d eps |Phi| |z| per step (d the
 * dimension of z), carried by a stable Phi (rho < 1) over the N steps.  The
 * check is the scale-free ratio |x_run - x_phi| / (N d eps s_i), s_i the
 * largest sum_j |Phi_ij| |z_j| over the steps (the magnitude of what step
 * i adds up), below 10.  A formula error (a wrong hold, a step of the
 * wrong length) is O(H) relative, a ratio of 1e10. */
Test(run_api, fixed_trajectory_against_phi)
{
    struct fx f;
    fx_init(&f, "exact");
    const double H = 1e-3;
    const size_t N = 100;
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.H = H;
    o.tend = (double)N * H;
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(f.sys, f.x0, H, N + 1, &ref), COSA_OK);
    const cosa_run_ref rr = {.traj = ref};
    cosa_run_result *r = NULL;
    cr_assert_eq(cosa_run(f.set, &o, &rr, &r), COSA_OK);
    cr_assert_eq(r->npoints, N + 1);
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(f.sys, &o.scheme, &lay), COSA_OK);
    const size_t d = lay.dim, nx = r->nx;
    cr_assert_eq(nx, cosa_system_nx(f.sys));
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(f.sys, 1);
    double *Phi = calloc(d * d, sizeof *Phi), *z = calloc(d, sizeof *z),
           *zn = calloc(d, sizeof *zn), *s = calloc(d, sizeof *s);
    cr_assert(w && Phi && z && zn && s);
    cr_assert_eq(cosa_phi_build(f.sys, &o.scheme, H, Phi, d, w), COSA_OK);
    cr_assert_eq(cosa_z0_build(f.sys, &o.scheme, H, f.x0, z, w), COSA_OK);
    double worst = 0.0;
    double *dx = calloc(nx * (N + 1), sizeof *dx);
    cr_assert_not_null(dx);
    for (size_t n = 0; n <= N; n++) {
        cr_expect(r->t[n] == (double)n * H || fabs(r->t[n] - (double)n * H) <= 4 * DBL_EPSILON *
                                                                                   (double)n * H,
                  "t[%zu] = %.17g", n, r->t[n]);
        for (size_t i = 0; i < nx; i++)
            dx[i + n * nx] = fabs(r->x[i + n * nx] - z[i]);
        for (size_t i = 0; i < d; i++) {
            double acc = 0.0;
            for (size_t j = 0; j < d; j++)
                acc += fabs(Phi[i + j * d]) * fabs(z[j]);
            s[i] = fmax(s[i], acc);
        }
        tu_phi_apply(Phi, d, z, zn);
    }
    for (size_t n = 0; n <= N; n++)
        for (size_t i = 0; i < nx; i++)
            worst = fmax(worst, dx[i + n * nx] / ((double)N * (double)d * DBL_EPSILON * s[i]));
    cr_log_info("fixed ZOH vs Phi^n z0: ratio %.3g\n", worst);
    cr_expect_leq(worst, 10.0, "|x_run - Phi^n z0| ratio %.3g", worst);
    free(dx);
    free(Phi);
    free(z);
    free(zn);
    free(s);
    cosa_phi_workspace_free(w);
    cosa_run_result_free(r);
    cosa_reftraj_free(ref);
    fx_free(&f);
}
