/* test_assume.c -- imperfect model knowledge (cosa_scheme.model): the output
 * correction believes in an assumed system while the true one evolves.
 * Checked against independent routes: the time-domain master with the
 * assumed model's fixed Jacobians and the independent linear co-simulation
 * of lib/check (which probes the assumed model for G, G0); identities (the
 * true model as "assumed" is bitwise today's Phi); and which blocks of Phi
 * may depend on the model. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "cosa.h"
#include "testutil.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static cosa_system *twomass_at(double ck, double dk, double *x0)
{
    const cosa_model *m = cosa_model_find("twomass");
    cr_assert_not_null(m);
    double par[64];
    cosa_model_defaults(m, par);
    cr_assert_eq(cosa_model_set(m, par, "ck", ck), COSA_OK);
    cr_assert_eq(cosa_model_set(m, par, "dk", dk), COSA_OK);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    if (x0)
        cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    return sys;
}

/* Phi of scheme s (with s->model) into a new array; dimension into *d. */
static double *phi_of(const cosa_system *sys, const cosa_scheme *s, double dt, size_t *d)
{
    cosa_layout lay;
    cr_assert_eq(cosa_layout_get(sys, s, &lay), COSA_OK);
    *d = lay.dim;
    cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, s->order);
    double *Phi = malloc(lay.dim * lay.dim * sizeof *Phi);
    cr_assert(w && Phi);
    cosa_status st = cosa_phi_build(sys, s, dt, Phi, lay.dim, w);
    cr_assert_eq(st, COSA_OK, "phi_build: %s", cosa_strerror(st));
    cosa_phi_workspace_free(w);
    return Phi;
}

static const char *const corr_names[] = {"", "+ocorr", "+ecorr", "+mbcorr"};

/* The true system given as the assumed model -- the same object, or a
 * separate system with the same values -- gives bitwise today's Phi. */
Test(assume, true_model_is_bitwise_todays_phi)
{
    const double pairs[3][2] = {{1e9, 3.6e5}, {2e5, 5e2}, {10.0, 1.0}};
    for (int k = 0; k < 3; k++) {
        cosa_system *sys = twomass_at(pairs[k][0], pairs[k][1], NULL);
        cosa_system *copy = twomass_at(pairs[k][0], pairs[k][1], NULL);
        for (int p = 0; p <= 3; p++)
            for (int c = 0; c < 4; c++) {
                char name[32];
                snprintf(name, sizeof name, "p%d%s", p, corr_names[c]);
                cosa_scheme s;
                cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK);
                size_t d;
                double *a = phi_of(sys, &s, 3.16e-4, &d);
                s.model = sys;
                double *b = phi_of(sys, &s, 3.16e-4, &d);
                s.model = copy;
                double *cc = phi_of(sys, &s, 3.16e-4, &d);
                cr_expect_eq(memcmp(a, b, d * d * sizeof *a), 0, "%s: model = sys", name);
                cr_expect_eq(memcmp(a, cc, d * d * sizeof *a), 0, "%s: model = copy", name);
                free(a);
                free(b);
                free(cc);
            }
        cosa_system_free(sys);
        cosa_system_free(copy);
    }
}

/* Largest componentwise difference of two trajectories, relative to the
 * largest |z_i| of the first over the steps; a du entry is an input offset,
 * so its scale is that of the input it offsets, max |(L ybar_n)_k| (as in
 * test_master): du itself decays to O(dt^(p+1)) and is no scale. */
static double traj_diff(const cosa_system *sys, const cosa_layout *lay, size_t nsteps,
                        const double *a, const double *b)
{
    const size_t d = lay->dim;
    const double *L = cosa_system_L(sys);
    double worst = 0.0;
    for (size_t i = 0; i < d; i++) {
        double dm = 0.0, am = 0.0;
        for (size_t n = 0; n <= nsteps; n++) {
            dm = fmax(dm, fabs(a[i + n * d] - b[i + n * d]));
            if (lay->has_du && i >= lay->off_du) {
                const size_t k = i - lay->off_du;
                double uk = 0.0;
                for (size_t l = 0; l < lay->ny; l++)
                    uk += L[k + l * lay->nu] * a[lay->off_y + l + n * d];
                am = fmax(am, fabs(uk));
            } else
                am = fmax(am, fabs(a[i + n * d]));
        }
        worst = fmax(worst, am > 0.0 ? dm / am : dm);
    }
    return worst;
}

/* A mismatch (assumed ck, dk off by factors 2 and 1/3): Phi^n z0 equals the
 * master running on exact units with the assumed model's fixed Jacobians and
 * the independent linear co-simulation probing the assumed model, over 100
 * steps, p = 0..2, every correction.  All three routes are exact up to
 * rounding (measured <= 3.2e-15 relative on every BLAS kernel checked);
 * 1e-10 is the bound the issue fixes, far below the effect of the
 * mismatch itself (> 1e-6 relative in the ybar rows, next test). */
Test(assume, mismatch_phi_equals_master_and_check)
{
    double x0[4];
    cosa_system *sys = twomass_at(2e5, 5e2, x0);
    cosa_system *model = twomass_at(4e5, 5e2 / 3.0, NULL);
    const double dt = 1e-4;
    const size_t N = 100;
    for (int p = 0; p <= 2; p++)
        for (int c = 0; c < 4; c++) {
            char name[32];
            snprintf(name, sizeof name, "p%d%s", p, corr_names[c]);
            cosa_scheme s;
            cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK);
            s.model = model;
            size_t d;
            double *Phi = phi_of(sys, &s, dt, &d);
            cosa_layout lay;
            cosa_layout_get(sys, &s, &lay);
            double *zp = malloc((N + 1) * d * sizeof *zp), *zm = malloc((N + 1) * d * sizeof *zm),
                   *zc = malloc((N + 1) * d * sizeof *zc);
            cr_assert(zp && zm && zc);
            cosa_phi_workspace *w = cosa_phi_workspace_alloc(sys, p);
            cr_assert_eq(cosa_z0_build(sys, &s, dt, x0, zp, w), COSA_OK);
            cosa_phi_workspace_free(w);
            for (size_t n = 0; n < N; n++)
                tu_phi_matvec(Phi, d, zp + n * d, zp + (n + 1) * d);
            /* master with the assumed model's fixed Jacobians */
            cosa_unit *u[2];
            for (size_t i = 0; i < 2; i++)
                cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u[i]), COSA_OK);
            cosa_unitset *set = NULL;
            cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), NULL, &set), COSA_OK);
            cosa_master *m = NULL;
            cr_assert_eq(cosa_master_create(set, &s, dt, NULL, &m), COSA_OK);
            cr_assert_eq(cosa_master_init(m, p * dt, zp, zp + lay.off_y,
                                          lay.has_du ? zp + lay.off_du : NULL),
                         COSA_OK);
            memcpy(zm, zp, d * sizeof *zm);
            for (size_t n = 1; n <= N; n++) {
                cr_assert_eq(cosa_master_step(m), COSA_OK);
                cr_assert_eq(cosa_master_info(m, zm + n * d), COSA_OK);
            }
            /* the independent linear co-simulation */
            cr_assert_eq(cosa_check_linear_run(sys, &s, dt, zp, N, zc), COSA_OK);
            double em = traj_diff(sys, &lay, N, zp, zm), ec = traj_diff(sys, &lay, N, zp, zc);
            cr_log_info("%s: Phi^n z0 vs master %.3g, vs check %.3g\n", name, em, ec);
            cr_expect_leq(em, 1e-10, "%s: master %.3g", name, em);
            cr_expect_leq(ec, 1e-10, "%s: check %.3g", name, ec);
            cosa_master_free(m);
            cosa_unitset_free(set);
            cosa_unit_free(u[0]);
            cosa_unit_free(u[1]);
            free(Phi);
            free(zp);
            free(zm);
            free(zc);
        }
    cosa_system_free(sys);
    cosa_system_free(model);
}

/* Which blocks depend on the model: the x rows of Phi never do (the true
 * system evolves); with output correction the ybar_{n+1} rows and (with a
 * state correction) the du rows do; without output correction nothing does.
 * The mismatch must show: otherwise the tests above could not fail. */
Test(assume, blocks_that_depend_on_the_model)
{
    cosa_system *sys = twomass_at(2e5, 5e2, NULL);
    cosa_system *model = twomass_at(4e5, 5e2 / 3.0, NULL);
    for (int c = 0; c < 4; c++) {
        char name[32];
        snprintf(name, sizeof name, "foh%s", corr_names[c]);
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK);
        size_t d;
        double *a = phi_of(sys, &s, 1e-4, &d);
        s.model = model;
        double *b = phi_of(sys, &s, 1e-4, &d);
        cosa_layout lay;
        cosa_layout_get(sys, &s, &lay);
        double xdiff = 0.0, ydiff = 0.0, ddiff = 0.0, amax = 0.0;
        for (size_t j = 0; j < d; j++)
            for (size_t i = 0; i < d; i++) {
                double e = fabs(a[i + j * d] - b[i + j * d]);
                amax = fmax(amax, fabs(a[i + j * d]));
                if (i < lay.off_y)
                    xdiff = fmax(xdiff, e);
                else if (i < lay.off_y + lay.ny)
                    ydiff = fmax(ydiff, e);
                else if (i >= lay.off_du)
                    ddiff = fmax(ddiff, e);
            }
        cr_expect_eq(xdiff, 0.0, "%s: the x rows must not depend on the model", name);
        if (s.corr & COSA_CORR_OUTPUT) {
            cr_expect_gt(ydiff, 1e-6 * amax, "%s: ybar rows unchanged by a mismatch", name);
            if (s.corr & COSA_CORR_STATE)
                cr_expect_gt(ddiff, 0.0, "%s: du rows unchanged by a mismatch", name);
        } else {
            cr_expect_eq(memcmp(a, b, d * d * sizeof *a), 0,
                         "%s: no output correction, no model", name);
        }
        free(a);
        free(b);
    }
    cosa_system_free(sys);
    cosa_system_free(model);
}

/* A subsystem without inputs has no block of G_p, G_0: any mismatch in its
 * A, C (here a third subsystem, a first-order sensor of s1 that nobody
 * reads) leaves Phi bitwise unchanged. */
static cosa_system *with_sensor(const cosa_system *base, double a3, double c3)
{
    cosa_subsystem sub[3];
    size_t dims[6];
    for (size_t i = 0; i < 2; i++) {
        cosa_system_sub_dims(base, i, &dims[0], &dims[1], &dims[2], &dims[3], &dims[4], &dims[5]);
        sub[i].nx = dims[0];
        sub[i].nu = dims[1];
        sub[i].ny = dims[2];
    }
    const size_t nx = cosa_system_nx(base), nu = cosa_system_nu(base), ny = cosa_system_ny(base);
    /* copy the blocks of the two subsystems out of the stacked matrices */
    static double store[2][4][64];
    for (size_t i = 0; i < 2; i++) {
        size_t nxi, nui, nyi, ox, ou, oy;
        cosa_system_sub_dims(base, i, &nxi, &nui, &nyi, &ox, &ou, &oy);
        for (size_t c = 0; c < nxi; c++)
            for (size_t r = 0; r < nxi; r++)
                store[i][0][r + c * nxi] = cosa_system_A(base)[ox + r + (ox + c) * nx];
        for (size_t c = 0; c < nui; c++)
            for (size_t r = 0; r < nxi; r++)
                store[i][1][r + c * nxi] = cosa_system_B(base)[ox + r + (ou + c) * nx];
        for (size_t c = 0; c < nxi; c++)
            for (size_t r = 0; r < nyi; r++)
                store[i][2][r + c * nyi] = cosa_system_C(base)[oy + r + (ox + c) * ny];
        for (size_t c = 0; c < nui; c++)
            for (size_t r = 0; r < nyi; r++)
                store[i][3][r + c * nyi] = cosa_system_D(base)[oy + r + (ou + c) * ny];
        sub[i].A = store[i][0];
        sub[i].B = store[i][1];
        sub[i].C = store[i][2];
        sub[i].D = store[i][3];
    }
    const double A3 = a3, C3 = c3;
    sub[2] = (cosa_subsystem){1, 0, 1, &A3, NULL, &C3, NULL};
    /* coupling: the two-mass L, the sensor output read by nobody */
    double *L = calloc(nu * (ny + 1), sizeof *L);
    cr_assert_not_null(L);
    memcpy(L, cosa_system_L(base), nu * ny * sizeof *L);
    cosa_system *sys = NULL;
    cosa_status st = cosa_system_create(&sys, 3, sub, L);
    cr_assert_eq(st, COSA_OK, "%s", cosa_strerror(st));
    free(L);
    return sys;
}

Test(assume, subsystem_without_inputs_has_no_say)
{
    cosa_system *base = twomass_at(2e5, 5e2, NULL);
    cosa_system *sys = with_sensor(base, -50.0, 1.0);
    cosa_system *model = with_sensor(base, -7.0, 3.0);
    for (int p = 0; p <= 2; p++) {
        char name[32];
        snprintf(name, sizeof name, "p%d+mbcorr", p);
        cosa_scheme s;
        cr_assert_eq(cosa_scheme_parse(name, &s), COSA_OK);
        size_t d;
        double *a = phi_of(sys, &s, 1e-4, &d);
        s.model = model;
        double *b = phi_of(sys, &s, 1e-4, &d);
        cr_expect_eq(memcmp(a, b, d * d * sizeof *a), 0, "%s", name);
        free(a);
        free(b);
    }
    cosa_system_free(base);
    cosa_system_free(sys);
    cosa_system_free(model);
}

/* rho with a model comes from the full Phi (the deflation assumes the true
 * model): cosa_evaluate's rho equals max |eig(Phi)| of the same Phi; a model
 * of another shape is refused everywhere. */
Test(assume, evaluate_and_shapes)
{
    double x0[4];
    cosa_system *sys = twomass_at(2e5, 5e2, x0);
    cosa_system *model = twomass_at(1e5, 5e2, NULL);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("soh+mbcorr", &s), COSA_OK);
    s.model = model;
    size_t d;
    double *Phi = phi_of(sys, &s, 1e-4, &d);
    cosa_eig_workspace *ew = cosa_eig_workspace_alloc(d);
    double rho;
    cr_assert_eq(cosa_spectral_radius(d, Phi, d, &rho, ew), COSA_OK);
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, 2);
    cosa_point_result pr;
    cr_assert_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, COSA_WANT_RHO | COSA_WANT_ERRORS, &pr, w),
                 COSA_OK);
    cr_expect_eq(pr.rho, rho, "evaluate %.17g vs eig(Phi) %.17g", pr.rho, rho);
    /* a different shape: the sensor system as the model of the two-mass one */
    cosa_system *other = with_sensor(sys, -1.0, 1.0);
    s.model = other;
    cosa_phi_workspace *pw = cosa_phi_workspace_alloc(sys, 2);
    cr_expect_eq(cosa_phi_build(sys, &s, 1e-4, Phi, d, pw), COSA_EMODELSHAPE);
    cr_expect_eq(cosa_evaluate(sys, &s, 1e-4, x0, 0.3, COSA_WANT_RHO, &pr, w), COSA_EMODELSHAPE);
    cosa_unit *u[2];
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &u[i]), COSA_OK);
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, cosa_system_L(sys), NULL, &set), COSA_OK);
    cosa_master *m = NULL;
    cr_expect_eq(cosa_master_create(set, &s, 1e-4, NULL, &m), COSA_EMODELSHAPE);
    cr_expect_null(m);
    cr_expect_str_neq(cosa_strerror(COSA_EMODELSHAPE), "unknown status");
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_phi_workspace_free(pw);
    cosa_eval_workspace_free(w);
    cosa_eig_workspace_free(ew);
    cosa_system_free(other);
    cosa_system_free(sys);
    cosa_system_free(model);
    free(Phi);
}

/* ---- sweeps with an assumed model (cosa_sweep_spec.apar, assumed axes) ---- */

/* What `cosa point` computes at one grid point: the true system at p, the
 * assumed one at a (NULL where a == p bit for bit), the scheme with the
 * assumed system as model if it has an output correction. */
static double point_value(const cosa_model *m, const double *p, const double *a,
                          const cosa_scheme *s0, double dt, cosa_metric metric, cosa_status *st)
{
    cosa_system *sys = NULL, *model = NULL;
    cr_assert_eq(m->create(m, p, &sys), COSA_OK);
    double *x0 = malloc(cosa_system_nx(sys) * sizeof *x0); /* chain: nx = 2 n */
    cr_assert_not_null(x0);
    cr_assert_eq(m->initial_state(m, p, x0), COSA_OK);
    cosa_scheme s = *s0;
    *st = COSA_OK;
    if ((s.corr & COSA_CORR_OUTPUT) && memcmp(a, p, m->nparam * sizeof *a) != 0) {
        *st = m->create(m, a, &model);
        s.model = model;
    }
    double v = NAN;
    if (*st == COSA_OK) {
        cosa_eval_workspace *ew = cosa_eval_workspace_alloc(sys, s.order);
        cr_assert_not_null(ew);
        cosa_point_result r;
        const unsigned want =
            metric == COSA_METRIC_RHO ? COSA_WANT_RHO : COSA_WANT_RHO | COSA_WANT_ERRORS;
        *st = cosa_evaluate(sys, &s, dt, x0, m->tend, want, &r, ew);
        if (*st == COSA_OK)
            v = metric == COSA_METRIC_RHO ? r.rho : r.err.e_global;
        cosa_eval_workspace_free(ew);
    }
    free(x0);
    cosa_system_free(model);
    cosa_system_free(sys);
    return v;
}

/* A mismatch map (true ck x assumed ck) with dk either following the true
 * value (apar_fixed 0) or fixed at an assumed 300 (the --assume rule): every
 * value is bitwise point_value, for 1 and 2 threads; the plain and the
 * state-corrected schemes do not change along the assumed axis. */
static void check_mismatch_map(cosa_metric metric, int fix_dk)
{
    const cosa_model *m = cosa_model_find("twomass");
    const int ick = cosa_model_param_index(m, "ck"), idk = cosa_model_param_index(m, "dk");
    static const char *const names[4] = {"zoh", "foh+mbcorr", "p1+ecorr", "zoh+ocorr"};
    cosa_scheme s[4];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(cosa_scheme_parse(names[i], &s[i]), COSA_OK);
    const double dt[2] = {1e-4, 3e-4};
    double base[32], apar[32];
    unsigned char fixed[32] = {0};
    cosa_model_defaults(m, base);
    memcpy(apar, base, sizeof apar);
    apar[idk] = 300.0;
    fixed[idk] = (unsigned char)fix_dk;
    enum { N = 4 };
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.par = base;
    sp.x = (cosa_sweep_axis){ick, 1e4, 1e7, 1, N, 0};
    sp.y = (cosa_sweep_axis){ick, 1e4, 1e7, 1, N, 1};
    sp.dt = dt;
    sp.ndt = 2;
    sp.schemes = s;
    sp.nscheme = 4;
    sp.metric = metric;
    sp.apar = apar;
    sp.apar_fixed = fixed;
    const size_t total = cosa_sweep_size(&sp);
    cr_assert_eq(total, 4 * 2 * N * N);
    double v1[4 * 2 * N * N], v2[4 * 2 * N * N];
    cosa_status s1[4 * 2 * N * N], s2[4 * 2 * N * N];
    size_t nf1 = 99, nf2 = 99;
    sp.threads = 1;
    cr_assert_eq(cosa_sweep_run(&sp, v1, s1, &nf1), COSA_OK);
    sp.threads = 2;
    cr_assert_eq(cosa_sweep_run(&sp, v2, s2, &nf2), COSA_OK);
    cr_assert_eq(memcmp(v1, v2, sizeof v1), 0, "1 and 2 threads differ");
    cr_assert_eq(memcmp(s1, s2, sizeof s1), 0);
    cr_assert_eq(nf1, 0);
    cr_assert_eq(nf2, 0);
    for (size_t ix = 0; ix < N; ix++)
        for (size_t iy = 0; iy < N; iy++) {
            double p[32], a[32];
            memcpy(p, base, sizeof p);
            p[ick] = cosa_sweep_axis_value(&sp.x, ix);
            for (size_t k = 0; k < m->nparam; k++)
                a[k] = fixed[k] ? apar[k] : p[k];
            a[ick] = cosa_sweep_axis_value(&sp.y, iy);
            for (size_t is = 0; is < 4; is++)
                for (size_t it = 0; it < 2; it++) {
                    cosa_status st;
                    const double want = point_value(m, p, a, &s[is], dt[it], metric, &st);
                    const double got = v1[cosa_sweep_index(&sp, is, it, ix, iy)];
                    cr_assert_eq(st, COSA_OK);
                    cr_assert(memcmp(&got, &want, sizeof got) == 0,
                              "%s dt %g ck %g assumed ck %g: sweep %.17g, point %.17g",
                              names[is], dt[it], p[ick], a[ick], got, want);
                    if (!(s[is].corr & COSA_CORR_OUTPUT)) {
                        const double first = v1[cosa_sweep_index(&sp, is, it, ix, 0)];
                        cr_assert(memcmp(&got, &first, sizeof got) == 0,
                                  "%s depends on the assumed model", names[is]);
                    }
                }
        }
}

Test(assume, sweep_rho_equals_pointwise_any_threads)
{
    check_mismatch_map(COSA_METRIC_RHO, 0);
    check_mismatch_map(COSA_METRIC_RHO, 1);
}

Test(assume, sweep_e_global_equals_pointwise_any_threads)
{
    check_mismatch_map(COSA_METRIC_E_GLOBAL, 1);
}

/* An assumed vector that follows the true one everywhere (no fixed entry,
 * no assumed axis) is the true model: bitwise the sweep without apar. */
Test(assume, sweep_following_assumed_vector_is_bitwise_todays)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[2];
    cosa_scheme_parse("soh+mbcorr", &s[0]);
    cosa_scheme_parse("p1+ocorr", &s[1]);
    const double dt[1] = {3.16e-4};
    double apar[32];
    unsigned char fixed[32] = {0};
    cosa_model_defaults(m, apar);
    apar[cosa_model_param_index(m, "m2")] = 99.0; /* not fixed: ignored */
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){cosa_model_param_index(m, "ck"), 1.0, 1e10, 1, 6, 0};
    sp.y = (cosa_sweep_axis){cosa_model_param_index(m, "dk"), 1.0, 1e7, 1, 6, 0};
    sp.dt = dt;
    sp.ndt = 1;
    sp.schemes = s;
    sp.nscheme = 2;
    sp.metric = COSA_METRIC_RHO;
    double a[72], b[72];
    cr_assert_eq(cosa_sweep_run(&sp, a, NULL, NULL), COSA_OK);
    sp.apar = apar;
    sp.apar_fixed = fixed;
    cr_assert_eq(cosa_sweep_run(&sp, b, NULL, NULL), COSA_OK);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
}

/* The model rejecting the assumed vector (m1 <= 0) fails that point for the
 * schemes with an output correction only; the others are computed. */
Test(assume, sweep_rejected_assumed_model_fails_corrected_schemes_only)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s[2];
    cosa_scheme_parse("zoh", &s[0]);
    cosa_scheme_parse("zoh+mbcorr", &s[1]);
    const double dt[1] = {1e-4};
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){cosa_model_param_index(m, "m1"), -1.0, 1.0, 0, 5, 1};
    sp.y = (cosa_sweep_axis){cosa_model_param_index(m, "ck"), 1e3, 1e6, 1, 3, 0};
    sp.dt = dt;
    sp.ndt = 1;
    sp.schemes = s;
    sp.nscheme = 2;
    sp.metric = COSA_METRIC_RHO;
    sp.threads = 2;
    double v[30];
    cosa_status st[30];
    size_t nf = 0;
    cr_assert_eq(cosa_sweep_run(&sp, v, st, &nf), COSA_OK);
    cr_assert_eq(nf, 3 * 3, "assumed m1 = -1, -0.5, 0 for 3 ck, ZOH+MBCorr only");
    for (size_t ix = 0; ix < 5; ix++)
        for (size_t iy = 0; iy < 3; iy++) {
            const size_t kp = cosa_sweep_index(&sp, 0, 0, ix, iy);
            const size_t kc = cosa_sweep_index(&sp, 1, 0, ix, iy);
            cr_assert_eq(st[kp], COSA_OK);
            cr_assert(isfinite(v[kp]));
            if (ix <= 2) {
                cr_assert(isnan(v[kc]));
                cr_assert_eq(st[kc], COSA_EPARAM);
            } else {
                cr_assert_eq(st[kc], COSA_OK);
                cr_assert(isfinite(v[kc]) && v[kc] > 0.0);
            }
        }
}

/* A structural assumed parameter (chain's n): the assumed system is rebuilt
 * (model->update cannot change n) and has another shape, so that point
 * fails with COSA_EMODELSHAPE; where n agrees the value is the true one's. */
Test(assume, sweep_structural_assumed_parameter)
{
    const cosa_model *m = cosa_model_find("chain");
    cr_assert_not_null(m);
    cosa_scheme s;
    cosa_scheme_parse("foh+mbcorr", &s);
    const double dt[1] = {1e-3};
    double par[32];
    cosa_model_defaults(m, par);
    const int in = cosa_model_param_index(m, "n");
    cr_assert(in >= 0);
    par[in] = 3.0;
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.par = par;
    sp.x = (cosa_sweep_axis){in, 3.0, 4.0, 0, 2, 1};
    sp.y = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 0};
    sp.dt = dt;
    sp.ndt = 1;
    sp.schemes = &s;
    sp.nscheme = 1;
    sp.metric = COSA_METRIC_RHO;
    double v[2];
    cosa_status st[2];
    cr_assert_eq(cosa_sweep_run(&sp, v, st, NULL), COSA_OK);
    cr_assert_eq(st[0], COSA_OK);
    cosa_status pst;
    const double want = point_value(m, par, par, &s, dt[0], COSA_METRIC_RHO, &pst);
    cr_assert(memcmp(&v[0], &want, sizeof want) == 0);
    cr_assert_eq(st[1], COSA_EMODELSHAPE);
    cr_assert(isnan(v[1]));
}

Test(assume, sweep_bad_specs)
{
    const cosa_model *m = cosa_model_find("twomass");
    cosa_scheme s;
    cosa_scheme_parse("zoh+mbcorr", &s);
    const double dt[1] = {1e-4};
    double v[16], apar[32];
    cosa_model_defaults(m, apar);
    const int ick = cosa_model_param_index(m, "ck");
    cosa_sweep_spec sp = {0};
    sp.model = m;
    sp.x = (cosa_sweep_axis){ick, 1e3, 1e6, 1, 2, 0};
    sp.y = (cosa_sweep_axis){ick, 1e3, 1e6, 1, 2, 1}; /* true ck x assumed ck: fine */
    sp.dt = dt;
    sp.ndt = 1;
    sp.schemes = &s;
    sp.nscheme = 1;
    sp.metric = COSA_METRIC_RHO;
    cr_assert_eq(cosa_sweep_run(&sp, v, NULL, NULL), COSA_OK);
    cosa_sweep_spec b = sp;
    b.x.assumed = 1; /* the same assumed parameter twice */
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_EINVAL);
    b = sp;
    b.y = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 1, 1}; /* an assumed axis without a parameter */
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_EINVAL);
    b = sp;
    apar[cosa_model_param_index(m, "m2")] = NAN;
    b.apar = apar;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_ENONFINITE);
    unsigned char fixed[32] = {0}; /* a NaN that follows the true value is never used */
    b.apar_fixed = fixed;
    cr_assert_eq(cosa_sweep_run(&b, v, NULL, NULL), COSA_OK);
}
