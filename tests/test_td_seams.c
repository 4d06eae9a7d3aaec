/* test_td_seams.c -- the seams of the time-domain engine (lib/td/): a unit
 * type written outside the library against the public ops table, snapshots
 * (a step repeated after a restore is bitwise the same), the master's
 * propose / commit / reject stages, observers, unit sets, and the
 * integrator table (the Butcher-tableau stepper against the closed-form
 * amplification of the methods). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static cosa_system *twomass(double *x0)
{
    cosa_system *sys = tu_model_system("twomass", x0);
    return sys;
}

/* ---- a unit type written against the public API --------------------------- */

/* x' = u, y = x (nx = nu = ny = 1), stepped by 5-point Gauss-Legendre
 * quadrature of the input polynomial: exact for degrees <= 9 >= COSA_UNIT_DEGMAX,
 * so the step is the exact one up to rounding.  No analytic Jacobian (the
 * generic layer differentiates eval), no snapshots. */
static cosa_status integ_step(cosa_unit *u, double h, double *xnew)
{
    static const double node[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                   0.5384693101056831, 0.9061798459386640};
    static const double weight[5] = {0.2369268850561891, 0.4786286704993665,
                                     0.5688888888888889, 0.4786286704993665,
                                     0.2369268850561891};
    double s = 0.0, v;
    for (int k = 0; k < 5; k++) {
        cosa_unit_input_at(u, 0.5 * h * (node[k] + 1.0), &v);
        s += weight[k] * v;
    }
    xnew[0] = cosa_unit_state(u)[0] + 0.5 * h * s;
    return COSA_OK;
}

static cosa_status integ_eval(cosa_unit *u, double t, const double *x, const double *uin,
                              double *xdot, double *y)
{
    if (xdot)
        xdot[0] = uin[0];
    if (y)
        y[0] = x[0];
    return COSA_OK;
}

static int destroyed;
static void integ_destroy(cosa_unit *u) { destroyed += *(int *)cosa_unit_impl(u); }

static const cosa_unit_type integrator_type = {
    .name = "test integrator",
    .caps = COSA_UNIT_CAN_EVAL,
    .max_input_degree = COSA_UNIT_DEGMAX,
    .step = integ_step,
    .eval = integ_eval,
    .destroy = integ_destroy,
};

/* A system: subsystem I is the integrator x1' = u1, y1 = x1; subsystem II
 * x2' = -x2 + u2, y2 = x2; u1 = -y2, u2 = y1 (a damped oscillation). */
static cosa_system *integrator_system(void)
{
    const double A1 = 0.0, B1 = 1.0, C1 = 1.0, D1 = 0.0;
    const double A2 = -1.0, B2 = 1.0, C2 = 1.0, D2 = 0.0;
    const cosa_subsystem sub[2] = {{1, 1, 1, &A1, &B1, &C1, &D1},
                                   {1, 1, 1, &A2, &B2, &C2, &D2}};
    const double L[4] = {0.0, 1.0, -1.0, 0.0}; /* u = L y, column-major 2 x 2 */
    cosa_system *sys = NULL;
    cr_assert_eq(cosa_system_create(&sys, 2, sub, L), COSA_OK);
    return sys;
}

/* The custom type runs in the master like the built-in linear unit does:
 * FOH (no Jacobians needed) and FOH+MBCorr (Jacobians of the custom unit by
 * central differences) against Phi^n z0 of the same system. */
Test(unit_type, custom_type_in_master_matches_phi)
{
    cosa_system *sys = integrator_system();
    const double dt = 0.05, x0[2] = {1.0, 0.0};
    const size_t N = 40;
    const char *names[] = {"foh", "foh+mbcorr", "gs:soh"};
    for (int k = 0; k < 3; k++) {
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(names[k], &s), COSA_OK);
        cosa_layout lay;
        cr_assert_eq(cosa_layout_get(sys, &s, &lay), COSA_OK);
        const size_t d = lay.dim;
        cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s.order);
        tu_phibuf B = tu_phibuf_alloc(d);
        double *Phi = B.Phi, *z = B.z, *zn = B.zn, *zm = B.zm;
        cr_assert_not_null(w);
        cr_assert_eq(cosa_phi_build(sys, &s, dt, Phi, d, w), COSA_OK);
        cr_assert_eq(cosa_z0_build(sys, &s, dt, x0, z, w), COSA_OK);

        int tag = 1;
        cosa_unit *u[2] = {NULL, NULL};
        cr_assert_eq(cosa_unit_create(&integrator_type, 1, 1, 1, &tag, &u[0]), COSA_OK);
        cr_assert_eq(cosa_unit_linear_from_system(sys, 1, &u[1]), COSA_OK);
        cr_expect_eq(cosa_unit_get_type(u[0]), &integrator_type);
        cr_expect_eq(cosa_unit_caps(u[0]), COSA_UNIT_CAN_EVAL);
        cr_expect_not(cosa_unit_is_linear(u[0]));
        cosa_unitset *set = NULL;
        cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), NULL, &set), COSA_OK);
        cosa_master *m = NULL;
        cr_assert_eq(cosa_master_create(set, &s, dt, NULL, &m), COSA_OK);
        cr_assert_eq(cosa_master_init(m, s.order * dt, z, z + lay.off_y,
                                      lay.has_du ? z + lay.off_du : NULL),
                     COSA_OK);
        double worst = 0.0;
        for (size_t n = 1; n <= N; n++) {
            tu_phi_apply(Phi, d, z, zn);
            cr_assert_eq(cosa_master_step(m), COSA_OK);
            cr_assert_eq(cosa_master_info(m, zm), COSA_OK);
            for (size_t i = 0; i < d; i++)
                worst = fmax(worst, fabs(zm[i] - z[i]));
        }
        /* Quadrature and Van Loan are both exact to rounding: N steps of
         * O(d eps) each on O(1) values -> 1e-12.  With MBCorr the custom
         * unit's Jacobian comes from central differences, exact for this
         * linear eval up to eps/delta = eps^(2/3) ~ 4e-11 relative; its
         * effect on z stays below 1e-9. */
        double tol = s.corr ? 1e-9 : 1e-12;
        cr_log_info("%s: custom unit vs Phi^n z0: %.3g\n", names[k], worst);
        cr_expect_leq(worst, tol, "%s: %.3g", names[k], worst);
        cosa_master_free(m);
        cosa_unitset_free(set);
        destroyed = 0;
        cosa_unit_free(u[0]);
        cr_expect_eq(destroyed, 1, "destroy called once");
        cosa_unit_free(u[1]);
        cosa_phi_workspace_free(w);
        tu_phibuf_free(&B);
    }
    cosa_system_free(sys);
}

Test(unit_type, create_rejects_incomplete_types)
{
    cosa_unit *u = NULL;
    cosa_unit_type t = integrator_type;
    t.step = NULL;
    cr_expect_eq(cosa_unit_create(&t, 1, 1, 1, NULL, &u), COSA_EINVAL);
    t = integrator_type;
    t.eval = NULL;
    cr_expect_eq(cosa_unit_create(&t, 1, 1, 1, NULL, &u), COSA_EINVAL);
    t = integrator_type;
    t.max_input_degree = COSA_UNIT_DEGMAX + 1;
    cr_expect_eq(cosa_unit_create(&t, 1, 1, 1, NULL, &u), COSA_EINVAL);
    cr_expect_null(u);
    /* a type that integrates only constant inputs refuses higher degrees */
    t = integrator_type;
    t.max_input_degree = 0;
    t.destroy = NULL;
    cr_assert_eq(cosa_unit_create(&t, 1, 1, 1, NULL, &u), COSA_OK);
    const double der[2] = {1.0, 2.0};
    cr_expect_eq(cosa_unit_set_input(u, 1, der), COSA_ERANGE);
    cr_expect_eq(cosa_unit_set_input(u, 0, der), COSA_OK);
    /* no COSA_UNIT_CAN_SAVE_STATE: no snapshots */
    cosa_unit_snapshot *sn = NULL;
    cr_expect_eq(cosa_unit_save(u, &sn), COSA_EUNSUPPORTED);
    cr_expect_null(sn);
    cosa_unit_free(u);
}

/* ---- snapshots -------------------------------------------------------------------- */

/* save, two steps, restore, the same two steps: bitwise the same states,
 * times and outputs; and restore puts back exactly what was saved. */
static void check_snapshot_repeat(cosa_unit *u, const char *what)
{
    const size_t nx = cosa_unit_nx(u), nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
    double *x0 = calloc(nx + 1, sizeof *x0), *xa = calloc(2 * nx + 2, sizeof *xa),
           *xb = calloc(2 * nx + 2, sizeof *xb), *der = calloc(3 * nu + 1, sizeof *der),
           *ya = calloc(ny + 1, sizeof *ya), *yb = calloc(ny + 1, sizeof *yb),
           *xs = calloc(nx + 1, sizeof *xs);
    cr_assert(x0 && xa && xb && der && ya && yb && xs);
    for (size_t i = 0; i < nx; i++)
        x0[i] = 0.01 * (double)(i + 1) * (i % 2 ? -1.0 : 1.0);
    for (size_t k = 0; k < 3 * nu; k++)
        der[k] = 0.3 * (double)(k + 1);
    cr_assert_eq(cosa_unit_set_state(u, 0.5, x0), COSA_OK);
    cr_assert_eq(cosa_unit_set_input(u, 2, der), COSA_OK);
    const double h = 1e-3;
    /* a first step so that run history (CVODE tolerance scales) exists */
    cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
    cosa_unit_snapshot *sn = NULL;
    double ts, ta, tb;
    cr_assert_eq(cosa_unit_save(u, &sn), COSA_OK, "%s: save", what);
    cosa_unit_get_state(u, &ts, xs);
    for (int pass = 0; pass < 2; pass++) {
        double *x = pass ? xb : xa, *y = pass ? yb : ya;
        cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
        cosa_unit_get_state(u, NULL, x);
        cr_assert_eq(cosa_unit_do_step(u, 2 * h), COSA_OK);
        cosa_unit_get_state(u, pass ? &tb : &ta, x + nx);
        cr_assert_eq(cosa_unit_get_output(u, y), COSA_OK);
        if (pass == 0) {
            /* reuse: save overwrites the snapshot it is given, then restore */
            cosa_unit_snapshot *again = sn;
            cr_assert_eq(cosa_unit_restore(u, sn), COSA_OK);
            cr_assert_eq(cosa_unit_save(u, &again), COSA_OK);
            cr_expect_eq(again, sn, "%s: save must reuse the snapshot", what);
            double t1, *x1 = calloc(nx + 1, sizeof *x1);
            cosa_unit_get_state(u, &t1, x1);
            cr_expect_eq(t1, ts);
            cr_expect_eq(memcmp(x1, xs, nx * sizeof *x1), 0, "%s: restore", what);
            free(x1);
        }
    }
    cr_expect_eq(ta, tb);
    cr_expect_eq(memcmp(xa, xb, 2 * nx * sizeof *xa), 0, "%s: repeated steps differ", what);
    cr_expect_eq(memcmp(ya, yb, ny * sizeof *ya), 0, "%s: repeated outputs differ", what);
    cosa_unit_snapshot_free(u, sn);
    free(x0);
    free(xa);
    free(xb);
    free(der);
    free(ya);
    free(yb);
    free(xs);
}

Test(snapshot, restore_repeats_steps_bitwise)
{
    double x0[4];
    cosa_system *sys = twomass(x0);
    cosa_odesys *os = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &os), COSA_OK);
    const char *integ[] = {"rk4", "euler", "symplectic-euler", "cvode", "cvode-adams"};
    for (size_t i = 0; i < 2; i++) {
        cosa_unit *u = NULL;
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u), COSA_OK);
        cr_expect(cosa_unit_caps(u) & COSA_UNIT_CAN_SAVE_STATE);
        check_snapshot_repeat(u, "linear");
        cosa_unit_free(u);
        for (int k = 0; k < 5; k++) {
            cosa_integrator in;
            cr_assert_eq(cosa_integrator_parse(integ[k], &in), COSA_OK);
            in.hmicro = 1e-4;
            cr_assert_eq(cosa_unit_ode_create(cosa_odesys_sub(os, i), &in, &u), COSA_OK);
            check_snapshot_repeat(u, integ[k]);
            cosa_unit_free(u);
        }
    }
    cosa_odesys_free(os);
    cosa_system_free(sys);
}

/* ---- master stages ------------------------------------------------------------------ */

struct run {
    cosa_unit *u[2];
    cosa_unitset *set;
    cosa_master *m;
};

static void run_open(struct run *r, const cosa_system *sys, const cosa_odesys *os,
                     const cosa_scheme *s, double dt, const double *x0, const double *yhist)
{
    cosa_integrator in;
    cosa_integrator_parse("cvode", &in);
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(os ? cosa_unit_ode_create(cosa_odesys_sub(os, i), &in, &r->u[i])
                        : cosa_unit_linear_from_system(sys, i, &r->u[i]),
                     COSA_OK);
    cr_assert_eq(cosa_unitset_create(2, r->u, cosa_system_L(sys), NULL, &r->set), COSA_OK);
    cr_assert_eq(cosa_master_create(r->set, s, dt, NULL, &r->m), COSA_OK);
    cr_assert_eq(cosa_master_init(r->m, 0.0, x0, yhist, NULL), COSA_OK);
}

static void run_close(struct run *r)
{
    cosa_master_free(r->m);
    cosa_unitset_free(r->set);
    cosa_unit_free(r->u[0]);
    cosa_unit_free(r->u[1]);
}

/* A rejected proposal leaves no trace: propose + reject + propose + commit
 * gives bitwise the trajectory of plain steps, for exact and CVODE units. */
Test(master_stages, reject_leaves_no_trace)
{
    double x0[4];
    cosa_system *sys = twomass(x0);
    cosa_odesys *os = NULL;
    cr_assert_eq(cosa_odesys_from_linear(sys, &os), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("foh+mbcorr", &s), COSA_OK);
    double yh[6], Cs[12];
    cr_assert_eq(cosa_system_monolithic(sys, NULL, Cs), COSA_OK);
    for (int r = 0; r < 3; r++) {
        yh[r] = 0.0;
        for (int c = 0; c < 4; c++)
            yh[r] += Cs[r + 3 * c] * x0[c];
        yh[3 + r] = yh[r];
    }
    const size_t d = 4 + 6 + 3; /* x, ybar_n and ybar_{n-1} (ny = 3), du (nu = 3) */
    for (int kind = 0; kind < 2; kind++) {
        struct run a, b;
        run_open(&a, sys, kind ? os : NULL, &s, 1e-4, x0, yh);
        run_open(&b, sys, kind ? os : NULL, &s, 1e-4, x0, yh);
        double za[13], zb[13], z0[13];
        cr_assert_eq(cosa_system_nu(sys), 3);
        for (int n = 0; n < 50; n++) {
            cr_assert_eq(cosa_master_step(a.m), COSA_OK);
            cr_assert_eq(cosa_master_info(b.m, z0), COSA_OK);
            cr_assert_eq(cosa_master_propose(b.m, 1), COSA_OK);
            cr_assert_eq(cosa_master_reject(b.m), COSA_OK);
            cr_assert_eq(cosa_master_info(b.m, zb), COSA_OK);
            for (size_t i = 0; i < d; i++)
                cr_assert_eq(zb[i], z0[i], "%s units: reject must restore (step %d, entry %zu)",
                             kind ? "CVODE" : "exact", n, i);
            cr_assert_eq(cosa_master_propose(b.m, 1), COSA_OK);
            cr_assert_eq(cosa_master_commit(b.m), COSA_OK);
            cr_assert_eq(cosa_master_info(a.m, za), COSA_OK);
            cr_assert_eq(cosa_master_info(b.m, zb), COSA_OK);
            cr_assert_eq(memcmp(za, zb, d * sizeof *za), 0, "%s units, step %d",
                         kind ? "CVODE" : "exact", n);
        }
        double ta, tb;
        cosa_master_get(a.m, &ta, NULL, NULL, NULL, NULL, NULL);
        cosa_master_get(b.m, &tb, NULL, NULL, NULL, NULL, NULL);
        cr_expect_eq(ta, tb);
        /* commit needs a proposal */
        cr_expect_eq(cosa_master_commit(b.m), COSA_EINVAL);
        run_close(&a);
        run_close(&b);
    }
    cosa_odesys_free(os);
    cosa_system_free(sys);
}

/* ---- observers ------------------------------------------------------------------------ */

struct log {
    char calls[64];
    size_t n;
    double t_last;
    cosa_status ret;
};

static cosa_status obs_init(const cosa_master *m, void *ud)
{
    struct log *l = ud;
    if (l->n < sizeof l->calls - 1)
        l->calls[l->n++] = 'i';
    cosa_master_get(m, &l->t_last, NULL, NULL, NULL, NULL, NULL);
    return COSA_OK;
}

static cosa_status obs_step(const cosa_master *m, void *ud)
{
    struct log *l = ud;
    if (l->n < sizeof l->calls - 1)
        l->calls[l->n++] = 's';
    cosa_master_get(m, &l->t_last, NULL, NULL, NULL, NULL, NULL);
    return l->ret;
}

Test(observer, called_after_init_and_each_commit)
{
    double x0[4];
    cosa_system *sys = twomass(x0);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("zoh", &s), COSA_OK);
    cosa_unit *u[2];
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u[i]), COSA_OK);
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), NULL, &set), COSA_OK);
    cosa_master *m = NULL;
    cr_assert_eq(cosa_master_create(set, &s, 1e-3, NULL, &m), COSA_OK);
    struct log a = {.ret = COSA_OK}, b = {.ret = COSA_OK};
    const cosa_observer oa = {obs_init, obs_step, &a}, ob = {NULL, obs_step, &b};
    cr_assert_eq(cosa_master_add_observer(m, &oa), COSA_OK);
    cr_assert_eq(cosa_master_add_observer(m, &ob), COSA_OK);
    const double y0[3] = {0.0, 0.0, 0.0};
    cr_assert_eq(cosa_master_init(m, 0.0, x0, y0, NULL), COSA_OK);
    for (int n = 0; n < 3; n++)
        cr_assert_eq(cosa_master_step(m), COSA_OK);
    /* a proposal that is rejected is not observed */
    cr_assert_eq(cosa_master_propose(m, 1), COSA_OK);
    cr_assert_eq(cosa_master_reject(m), COSA_OK);
    cr_expect_str_eq(a.calls, "isss");
    cr_expect_str_eq(b.calls, "sss");
    cr_expect_leq(fabs(a.t_last - 3e-3), 4 * DBL_EPSILON * 3e-3);
    /* an observer's failure is returned by the step, which is committed */
    b.ret = COSA_EIO;
    cr_expect_eq(cosa_master_step(m), COSA_EIO);
    double t;
    cosa_master_get(m, &t, NULL, NULL, NULL, NULL, NULL);
    cr_expect_leq(fabs(t - 4e-3), 4 * DBL_EPSILON * 4e-3);
    cr_expect_str_eq(a.calls, "issss", "every observer is called");
    /* at most COSA_MASTER_OBSERVERS */
    for (int k = 2; k < COSA_MASTER_OBSERVERS; k++)
        cr_assert_eq(cosa_master_add_observer(m, &ob), COSA_OK);
    cr_expect_eq(cosa_master_add_observer(m, &ob), COSA_ERANGE);
    cosa_master_free(m);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_system_free(sys);
}

/* The driver's extra observers see every recorded point. */
Test(observer, driver_passes_observers)
{
    double x0[4];
    cosa_system *sys = twomass(x0);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("foh", &s), COSA_OK);
    cosa_unit *u[2];
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u[i]), COSA_OK);
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), NULL, &set), COSA_OK);
    cosa_reftraj *ref = NULL;
    cr_assert_eq(cosa_reftraj_exact(sys, x0, 1e-3, 12, &ref), COSA_OK);
    struct log l = {.ret = COSA_OK};
    const cosa_observer o = {obs_init, obs_step, &l};
    cosa_cosim_opts opt = {.nsteps = 10, .observers = &o, .nobservers = 1};
    cosa_cosim_result *r = NULL;
    cr_assert_eq(cosa_cosim_run(set, &s, ref, &opt, &r), COSA_OK);
    cr_expect_eq(l.n, 11);
    /* the master accumulates T_n += H, the driver records (p + n) H */
    cr_expect_leq(fabs(l.t_last - r->t[10]), 16 * DBL_EPSILON * r->t[10]);
    cosa_cosim_result_free(r);
    opt.nobservers = COSA_MASTER_OBSERVERS; /* one place is the recorder's */
    cr_expect_eq(cosa_cosim_run(set, &s, ref, &opt, &r), COSA_ERANGE);
    cosa_reftraj_free(ref);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_system_free(sys);
}

/* ---- unit sets --------------------------------------------------------------------------- */

Test(unitset, offsets_and_sequences)
{
    double x0[4];
    cosa_system *sys = twomass(x0);
    cosa_unit *u[2];
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u[i]), COSA_OK);
    const size_t rev[2] = {1, 0}, bad[2] = {1, 1}, out[2] = {0, 2};
    cosa_unitset *set = NULL;
    cr_expect_eq(cosa_unitset_create(2, u, cosa_system_L(sys), bad, &set), COSA_EINVAL);
    cr_expect_eq(cosa_unitset_create(2, u, cosa_system_L(sys), out, &set), COSA_EINVAL);
    double Lnan[6];
    memcpy(Lnan, cosa_system_L(sys), sizeof Lnan);
    Lnan[1] = NAN;
    cr_expect_eq(cosa_unitset_create(2, u, Lnan, NULL, &set), COSA_ENONFINITE);
    cosa_unit *holes[2] = {u[0], NULL};
    cr_expect_eq(cosa_unitset_create(2, holes, cosa_system_L(sys), NULL, &set), COSA_EINVAL);
    cr_expect_null(set);
    cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), rev, &set), COSA_OK);
    cr_expect_eq(cosa_unitset_count(set), 2);
    cr_expect_eq(cosa_unitset_nx(set), cosa_system_nx(sys));
    cr_expect_eq(cosa_unitset_nu(set), cosa_system_nu(sys));
    cr_expect_eq(cosa_unitset_ny(set), cosa_system_ny(sys));
    for (size_t i = 0; i < 2; i++) {
        size_t ox, ou, oy, nx, nu, ny, sx, su, sy;
        cr_assert_eq(cosa_unitset_offsets(set, i, &ox, &ou, &oy), COSA_OK);
        cr_assert_eq(cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &sx, &su, &sy), COSA_OK);
        cr_expect(ox == sx && ou == su && oy == sy, "unit %zu offsets", i);
        cr_expect_eq(cosa_unitset_unit(set, i), u[i]);
    }
    cr_expect_null(cosa_unitset_unit(set, 2));
    cr_expect_eq(cosa_unitset_offsets(set, 2, NULL, NULL, NULL), COSA_EINVAL);
    cr_expect_eq(cosa_unitset_sequence(set)[0], 1);
    cr_expect_eq(cosa_unitset_sequence(set)[1], 0);
    cr_expect(cosa_unitset_is_sequence(set, NULL));
    cr_expect_not(cosa_unitset_is_sequence(set, bad));
    cr_expect_eq(memcmp(cosa_unitset_L(set), cosa_system_L(sys),
                        cosa_system_nu(sys) * cosa_system_ny(sys) * sizeof(double)),
                 0);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_system_free(sys);
}

/* ---- the integrator table ------------------------------------------------------------------ */

/* x' = lambda x (+ 0 u), one micro step h: the methods' amplification is the
 * closed form R(z), z = lambda h: RK4 1 + z + z^2/2 + z^3/6 + z^4/24, Euler
 * 1 + z.  The stepper evaluates the same polynomial in another order, so the
 * difference is a few rounding errors of O(1) terms: 16 eps. */
static int decay_f(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = *(const double *)ud * x[0] + 0.0 * u[0];
    return 0;
}

static int decay_g(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[0];
    return 0;
}

Test(integrator_table, butcher_tableaux_give_the_closed_form_amplification)
{
    const char *names[] = {"rk4", "euler"};
    const double lambdas[] = {-1.0, -7.5, 0.3, -0.05};
    const double h = 0.1;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 4; j++) {
            double lambda = lambdas[j];
            cosa_ode ode = {.nx = 1, .nu = 1, .ny = 1, .f = decay_f, .g = decay_g,
                            .user_data = &lambda};
            cosa_integrator in;
            cr_assert_eq(cosa_integrator_parse(names[k], &in), COSA_OK);
            in.hmicro = h; /* one micro step per macro step */
            cosa_unit *u = NULL;
            cr_assert_eq(cosa_unit_ode_create(&ode, &in, &u), COSA_OK);
            const double x0 = 1.0, zero = 0.0;
            cr_assert_eq(cosa_unit_set_state(u, 0.0, &x0), COSA_OK);
            cr_assert_eq(cosa_unit_set_input(u, 0, &zero), COSA_OK);
            cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
            double x1;
            cosa_unit_get_state(u, NULL, &x1);
            const double z = lambda * h;
            const double R = k == 0 ? 1.0 + z + z * z / 2 + z * z * z / 6 + z * z * z * z / 24
                                    : 1.0 + z;
            cr_expect_leq(fabs(x1 - R), 16 * DBL_EPSILON * fabs(R), "%s, z = %g: %.17g vs %.17g",
                          names[k], z, x1, R);
            cosa_unit_free(u);
        }
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_RK4), 4);
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_EULER), 1);
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_SYMPLECTIC_EULER), 1);
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_CVODE_BDF), 5);
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_EXACT), 0);
    cr_expect(cosa_integrator_is_adaptive(COSA_INTEGRATOR_CVODE_BDF));
    cr_expect(cosa_integrator_is_adaptive(COSA_INTEGRATOR_CVODE_ADAMS));
    cr_expect_not(cosa_integrator_is_adaptive(COSA_INTEGRATOR_RK4));
    cr_expect_eq(cosa_integrator_order(COSA_INTEGRATOR_COUNT), 0);
}

/* Symplectic Euler on s' = v, v' = -w^2 s, one micro step h, from (s0, v0):
 * v1 = v0 - h w^2 s0, s1 = s0 + h v1 (velocities kicked first). */
static int osc_f(double t, const double *x, const double *u, double *out, void *ud)
{
    const double w2 = *(const double *)ud;
    out[0] = x[1];
    out[1] = -w2 * x[0] + 0.0 * u[0];
    return 0;
}

static int osc_g(double t, const double *x, const double *u, double *out, void *ud)
{
    out[0] = x[0];
    return 0;
}

Test(integrator_table, symplectic_euler_kicks_first)
{
    double w2 = 100.0;
    const unsigned char kick[2] = {0, 1};
    cosa_ode ode = {.nx = 2, .nu = 1, .ny = 1, .f = osc_f, .g = osc_g, .kick = kick,
                    .user_data = &w2};
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse("symplectic-euler", &in), COSA_OK);
    const double h = 0.01;
    in.hmicro = h;
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_ode_create(&ode, &in, &u), COSA_OK);
    const double x0[2] = {0.3, -2.0}, zero = 0.0;
    cr_assert_eq(cosa_unit_set_state(u, 0.0, x0), COSA_OK);
    cr_assert_eq(cosa_unit_set_input(u, 0, &zero), COSA_OK);
    cr_assert_eq(cosa_unit_do_step(u, h), COSA_OK);
    double x1[2];
    cosa_unit_get_state(u, NULL, x1);
    const double v1 = x0[1] - h * w2 * x0[0], s1 = x0[0] + h * v1;
    cr_expect_leq(fabs(x1[1] - v1), 4 * DBL_EPSILON * fabs(v1), "v1 %.17g vs %.17g", x1[1], v1);
    cr_expect_leq(fabs(x1[0] - s1), 4 * DBL_EPSILON * fabs(s1), "s1 %.17g vs %.17g", x1[0], s1);
    cosa_unit_free(u);
    /* without kick flags the method is not available */
    ode.kick = NULL;
    cr_expect_eq(cosa_unit_ode_create(&ode, &in, &u), COSA_EUNSUPPORTED);
}

/* A micro step so small that the count would not fit the step counter is a
 * failed step (COSA_ERANGE, the unit says why), never a wrapped count. */
Test(integrator_table, micro_step_count_is_bounded)
{
    double lambda = -1.0;
    cosa_ode ode = {.nx = 1, .nu = 1, .ny = 1, .f = decay_f, .g = decay_g, .user_data = &lambda};
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse("rk4", &in), COSA_OK);
    in.hmicro = 1e-300;
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_ode_create(&ode, &in, &u), COSA_OK);
    const double x0 = 1.0, zero = 0.0;
    cr_assert_eq(cosa_unit_set_state(u, 0.0, &x0), COSA_OK);
    cr_assert_eq(cosa_unit_set_input(u, 0, &zero), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u, 1e-3), COSA_ERANGE);
    cr_expect(strstr(cosa_unit_message(u), "micro steps") != NULL, "message: %s",
              cosa_unit_message(u));
    double t, x;
    cosa_unit_get_state(u, &t, &x);
    cr_expect(t == 0.0 && x == 1.0, "a failed step must leave the unit unchanged");
    cosa_unit_free(u);
}
