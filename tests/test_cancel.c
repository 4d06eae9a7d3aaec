/* test_cancel.c -- the caller's cancellation flag (cosa_cancel, cosa/core.h):
 * a sweep stops at the next grid point once the flag is set (exactly at the
 * point its progress callback asked for on one thread; within the points in
 * flight on two), leaves NaN and COSA_ECANCELLED where it stopped and the
 * other values bitwise those of the whole sweep; a map of the one-call API
 * cancelled from another thread computes fewer than all its points, the
 * delay derived from a measured per-point cost; a limit scan stops at the
 * next evaluation; a run stops at the next macro step with no result; every
 * call of a case with a set flag returns COSA_ECANCELLED with its one line,
 * and works again without the flag. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

Test(cancel, flag)
{
    cosa_cancel *c = cosa_cancel_alloc();
    cr_assert_not_null(c);
    cr_expect_eq(cosa_cancel_requested(c), 0);
    cosa_cancel_request(c);
    cr_expect_eq(cosa_cancel_requested(c), 1);
    cosa_cancel_request(c); /* stays set */
    cr_expect_eq(cosa_cancel_requested(c), 1);
    cr_expect_eq(cosa_cancel_requested(NULL), 0);
    cosa_cancel_request(NULL); /* no-ops */
    cosa_cancel_free(NULL);
    cosa_cancel_free(c);
    cr_expect_str_eq(cosa_strerror(COSA_ECANCELLED), "cancelled by the caller");
}

/* ---- sweeps ------------------------------------------------------------------ */

struct stop_at {
    cosa_cancel *flag;
    size_t at;   /* request the cancellation once done >= at */
    size_t seen; /* done when it was requested */
};

static void progress_stop(size_t done, size_t total, void *ud)
{
    (void)total;
    struct stop_at *s = ud;
    if (!s->seen && done >= s->at) {
        s->seen = done;
        cosa_cancel_request(s->flag);
    }
}

/* twomass over (ck, dk), ZOH, rho at dt = 1e-3 (the Fig 4 plane). */
static void twomass_spec(cosa_sweep_spec *sp, cosa_scheme *zoh, const double *dt, size_t n)
{
    memset(sp, 0, sizeof *sp);
    sp->model = cosa_model_find("twomass");
    cr_assert_not_null(sp->model);
    cr_assert_eq(cosa_scheme_parse("zoh", zoh), COSA_OK);
    sp->x = (cosa_sweep_axis){cosa_model_param_index(sp->model, "ck"), 1.0, 1e10, 1, n, 0};
    sp->y = (cosa_sweep_axis){cosa_model_param_index(sp->model, "dk"), 1.0, 1e7, 1, n, 0};
    sp->dt = dt;
    sp->ndt = 1;
    sp->schemes = zoh;
    sp->nscheme = 1;
    sp->metric = COSA_METRIC_RHO;
}

/* One thread: the progress callback runs after the point that made done
 * reach `at` and requests the stop there; the next point sees the flag, so
 * exactly `seen` points are computed -- bitwise the whole sweep's values --
 * and the others are NaN with COSA_ECANCELLED. */
static void sweep_stops(int threads, size_t n)
{
    const double dt = 1e-3;
    cosa_scheme zoh;
    cosa_sweep_spec sp;
    twomass_spec(&sp, &zoh, &dt, n);
    sp.threads = threads;
    const size_t total = cosa_sweep_size(&sp);
    double *whole = malloc(total * sizeof *whole), *v = malloc(total * sizeof *v);
    cosa_status *st = malloc(total * sizeof *st);
    cr_assert(whole && v && st);
    cr_assert_eq(cosa_sweep_run(&sp, whole, NULL, NULL), COSA_OK);

    struct stop_at s = {cosa_cancel_alloc(), total / 4, 0};
    cr_assert_not_null(s.flag);
    sp.cancel = s.flag;
    sp.progress = progress_stop;
    sp.user_data = &s;
    size_t nfailed = 99;
    cr_expect_eq(cosa_sweep_run(&sp, v, st, &nfailed), COSA_ECANCELLED);
    cr_expect_eq(nfailed, 0, "cancelled points are not failed points");
    size_t computed = 0, mismatched = 0;
    for (size_t i = 0; i < total; i++) {
        if (st[i] == COSA_ECANCELLED) {
            cr_expect(isnan(v[i]), "point %zu: cancelled but %g", i, v[i]);
            continue;
        }
        cr_expect_eq(st[i], COSA_OK);
        computed++;
        mismatched += memcmp(&v[i], &whole[i], sizeof v[i]) != 0;
    }
    cr_expect_eq(mismatched, 0, "%zu computed values differ from the whole sweep's", mismatched);
    cr_expect(s.seen >= s.at && s.seen < total, "requested at %zu of %zu", s.seen, total);
    if (threads == 1) {
        cr_expect_eq(computed, s.seen, "one thread: %zu computed, requested after %zu", computed,
                     s.seen);
    } else {
        /* the other threads finish the point they are in (one each) plus
         * those they finished between thread 0's count and its request (a
         * few instructions: 16 per thread is a wide margin) */
        const size_t slack = (size_t)threads * 17;
        cr_expect(computed >= s.seen && computed <= s.seen + slack,
                  "%d threads: %zu computed, requested after %zu (slack %zu)", threads, computed,
                  s.seen, slack);
    }
    cr_expect(computed < total);
    cosa_cancel_free(s.flag);
    free(whole);
    free(v);
    free(st);
}

Test(cancel, sweep_one_thread_stops_at_the_next_point) { sweep_stops(1, 60); }
Test(cancel, sweep_two_threads_stop_within_the_points_in_flight) { sweep_stops(2, 60); }

Test(cancel, sweep_cancelled_before_it_starts)
{
    const double dt = 1e-3;
    cosa_scheme zoh;
    cosa_sweep_spec sp;
    twomass_spec(&sp, &zoh, &dt, 8);
    cosa_cancel *c = cosa_cancel_alloc();
    cosa_cancel_request(c);
    sp.cancel = c;
    double v[64];
    cosa_status st[64];
    cr_expect_eq(cosa_sweep_run(&sp, v, st, NULL), COSA_ECANCELLED);
    for (size_t i = 0; i < 64; i++)
        cr_expect(st[i] == COSA_ECANCELLED && isnan(v[i]));
    /* a list sweep too */
    const size_t list[3] = {5, 0, 63};
    cr_expect_eq(cosa_sweep_run_list(&sp, list, 3, v, st, NULL), COSA_ECANCELLED);
    cosa_cancel_free(c);
}

/* ---- the one-call API: a map cancelled from another thread ----------------------- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct canceller {
    cosa_cancel *flag;
    double delay; /* s */
    double t_request;
};

static void *cancel_later(void *ud)
{
    struct canceller *k = ud;
    const struct timespec d = {(time_t)k->delay, (long)(1e9 * (k->delay - floor(k->delay)))};
    nanosleep(&d, NULL);
    k->t_request = now_s();
    cosa_cancel_request(k->flag);
    return NULL;
}

Test(cancel, case_map_from_another_thread)
{
    cosa_case *c = NULL;
    char err[256];
    cr_assert_eq(cosa_case_builtin("twomass", &c, err, sizeof err), COSA_OK);
    const int threads = 2;
    /* the per-point cost, measured on a small map of the same plane */
    cosa_case_axis x = {"ck", 1.0, 1e10, 1, 32}, y = {"dk", 1.0, 1e7, 1, 32};
    const size_t big = 256;
    double *v = malloc(big * big * sizeof *v);
    cosa_status *st = malloc(big * big * sizeof *st);
    cr_assert(v && st);
    double t0 = now_s();
    cr_assert_eq(cosa_case_map(c, "zoh", 1e-3, COSA_METRIC_RHO, &x, &y, 0.0, threads, v, st,
                               NULL, err, sizeof err),
                 COSA_OK, "%s", err);
    const double per_point = (now_s() - t0) / (32.0 * 32.0);
    /* the whole map would take big^2 points at that cost; the request comes
     * after 1/20 of it, so the map stops with fewer than all points unless
     * the machine slowed down 20-fold between the two maps */
    x.n = y.n = big;
    struct canceller k = {cosa_cancel_alloc(), fmax(1e-3, per_point * big * big / 20.0), 0.0};
    cr_assert_not_null(k.flag);
    cosa_case_set_cancel(c, k.flag);
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, cancel_later, &k), 0);
    t0 = now_s();
    const cosa_status s = cosa_case_map(c, "zoh", 1e-3, COSA_METRIC_RHO, &x, &y, 0.0, threads,
                                        v, st, NULL, err, sizeof err);
    const double t_end = now_s();
    pthread_join(th, NULL);
    cr_expect_eq(s, COSA_ECANCELLED);
    cr_expect_str_eq(err, "cancelled by the caller");
    size_t computed = 0;
    for (size_t i = 0; i < big * big; i++)
        computed += st[i] != COSA_ECANCELLED;
    cr_expect(computed < big * big, "computed %zu of %zu points", computed, big * big);
    cr_log_info("map cancelled: %zu of %zu points, %.3g s after the request (%.3g us/point)",
                computed, big * big, t_end - k.t_request, 1e6 * per_point);
    /* without the flag the case computes again */
    cosa_case_set_cancel(c, NULL);
    x.n = y.n = 4;
    cr_expect_eq(cosa_case_map(c, "zoh", 1e-3, COSA_METRIC_RHO, &x, &y, 0.0, 1, v, st, NULL, err,
                               sizeof err),
                 COSA_OK);
    cosa_cancel_free(k.flag);
    cosa_case_free(c);
    free(v);
    free(st);
}

/* Every call of a case whose flag is set: COSA_ECANCELLED, one line, no result. */
Test(cancel, case_calls_with_the_flag_set)
{
    cosa_case *c = NULL;
    char err[256];
    cr_assert_eq(cosa_case_builtin("twomass", &c, err, sizeof err), COSA_OK);
    cosa_cancel *k = cosa_cancel_alloc();
    cosa_cancel_request(k);
    cosa_case_set_cancel(c, k);
    cosa_point_result pr;
    err[0] = '\0';
    cr_expect_eq(cosa_case_point(c, "zoh", 1e-3, 0.0, &pr, NULL, 0, err, sizeof err),
                 COSA_ECANCELLED);
    cr_expect_str_eq(err, "cancelled by the caller");
    cosa_limit lim;
    cosa_crossing cross[4];
    err[0] = '\0';
    cr_expect_eq(cosa_case_limit(c, "zoh", COSA_CRIT_STABLE, 0.01, 1e-6, 1e-2, 10, 0.0, &lim,
                                 cross, 4, err, sizeof err),
                 COSA_ECANCELLED);
    cr_expect_str_eq(err, "cancelled by the caller");
    cosa_case_advise_opts ao;
    cosa_case_advise_defaults(&ao);
    ao.tol = 1e-3;
    cosa_advice adv[32];
    size_t n = 0;
    err[0] = '\0';
    cr_expect_eq(cosa_case_advise(c, &ao, adv, 32, &n, NULL, err, sizeof err), COSA_ECANCELLED);
    cr_expect_str_eq(err, "cancelled by the caller");
    cosa_case_sim *sim = (cosa_case_sim *)&sim;
    err[0] = '\0';
    cr_expect_eq(cosa_case_simulate(c, "zoh", 1e-3, 0.05, NULL, &sim, err, sizeof err),
                 COSA_ECANCELLED);
    cr_expect_null(sim);
    cr_expect_str_eq(err, "cancelled by the caller");
    /* argument errors still come first */
    cr_expect_eq(cosa_case_point(c, "zzz", 1e-3, 0.0, &pr, NULL, 0, err, sizeof err),
                 COSA_ESCHEME);
    /* without the flag the same calls compute */
    cosa_case_set_cancel(c, NULL);
    cr_expect_eq(cosa_case_point(c, "zoh", 1e-3, 0.0, &pr, NULL, 0, err, sizeof err), COSA_OK);
    cr_expect_eq(cosa_case_simulate(c, "zoh", 1e-3, 0.05, NULL, &sim, err, sizeof err), COSA_OK,
                 "%s", err);
    cr_expect_not_null(sim);
    cosa_case_sim_free(sim);
    cosa_cancel_free(k);
    cosa_case_free(c);
}

/* ---- a limit scan: stops at the next evaluation ---------------------------------- */

struct eval_count {
    cosa_cancel *flag;
    size_t n, at;
};

static void count_start(const char *stage, size_t dim, size_t done, size_t total, void *ud)
{
    (void)dim;
    (void)done;
    (void)total;
    struct eval_count *e = ud;
    if (strcmp(stage, "start") == 0 && ++e->n == e->at)
        cosa_cancel_request(e->flag);
}

Test(cancel, limit_scan_stops_at_the_next_evaluation)
{
    cosa_system *sys = tu_twomass(1e6, 400.0);
    cosa_scheme zoh;
    cr_assert_eq(cosa_scheme_parse("zoh", &zoh), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 0);
    cr_assert_not_null(w);
    /* the whole scan's evaluations, for the bound below */
    struct eval_count e = {cosa_cancel_alloc(), 0, 0};
    cosa_eval_workspace_set_progress(w, count_start, &e);
    cosa_limit lim;
    cr_assert_eq(cosa_dt_limit(sys, &zoh, NULL, 1.0, COSA_CRIT_STABLE, 0.0, 1e-6, 1e-1, 20, NULL,
                               0, &lim, w),
                 COSA_OK);
    const size_t all = e.n;
    cr_assert(all > 10, "%zu evaluations", all);
    e.n = 0;
    e.at = 5;
    cosa_eval_workspace_set_cancel(w, e.flag);
    cr_expect_eq(cosa_dt_limit(sys, &zoh, NULL, 1.0, COSA_CRIT_STABLE, 0.0, 1e-6, 1e-1, 20, NULL,
                               0, &lim, w),
                 COSA_ECANCELLED);
    cr_expect_eq(e.n, 5, "%zu evaluations started of %zu, cancelled in the 5th", e.n, all);
    cosa_cancel_free(e.flag);
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
}

/* ---- a run: stops at the next macro step, no result ------------------------------- */

struct step_count {
    cosa_cancel *flag;
    size_t n, at;
};

static cosa_status step_stop(const cosa_master *m, void *ud)
{
    (void)m;
    struct step_count *s = ud;
    if (++s->n == s->at)
        cosa_cancel_request(s->flag);
    return COSA_OK;
}

Test(cancel, run_stops_at_the_next_macro_step)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[64], x0[16];
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse("exact", &in), COSA_OK);
    const cosa_model_units_opts uo = {.integ = &in, .sys = sys};
    cosa_model_units *mu = NULL;
    cr_assert_eq(cosa_model_units_create(m, par, &uo, &mu, NULL), COSA_OK);
    const double H = 1e-3;
    const size_t N = 100;
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, H, N + 1, &ref), COSA_OK);
    struct step_count sc = {cosa_cancel_alloc(), 0, 7};
    const cosa_observer obs = {.step_complete = step_stop, .user_data = &sc};
    cosa_run_opts o;
    cosa_run_opts_default(&o);
    o.tend = (double)N * H;
    o.observers = &obs;
    o.nobservers = 1;
    o.cancel = sc.flag;
    const cosa_run_ref rr = {.traj = ref};
    cosa_run_result *r = (cosa_run_result *)&r;
    cr_expect_eq(cosa_run(cosa_model_units_set(mu), &o, &rr, &r), COSA_ECANCELLED);
    cr_expect_null(r);
    cr_expect_eq(sc.n, 7, "%zu macro steps of %zu, cancelled after the 7th", sc.n, N);
    cosa_cancel_free(sc.flag);
    cosa_reftraj_free(ref);
    cosa_model_units_free(mu);
    cosa_system_free(sys);
}
