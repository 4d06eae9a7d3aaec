/* test_fmu.c -- the FMU importer (lib/td/fmu*.c, lib/td/unit_fmu.c) on the
 * test FMUs that make check builds from tests/fmu/: the model descriptions
 * against the XML files' own numbers, the resolved functions called
 * directly, every broken FMU refused with its one-line reason and nothing
 * left in the temporary directory, the FMU unit under the master against
 * the built-in model's exact linear units, and the linearisation
 * (directional derivatives and central differences) against the model's
 * matrices. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/fmu_impl.h"
#include "testutil.h"

#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The test FMUs and a private TMPDIR (so leftovers can be counted). */
static char fmudir[4096], tmpdir[4096];

static void setup(void)
{
    const char *d = getenv("COSA_FMUDIR");
    snprintf(fmudir, sizeof fmudir, "%s", d ? d : "tests/fmu");
    snprintf(tmpdir, sizeof tmpdir, "%s/cosa-test-fmu-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(tmpdir));
    setenv("TMPDIR", tmpdir, 1);
}

/* entries left in the private TMPDIR */
static int leftovers(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void teardown(void)
{
    rmdir(tmpdir);
}

TestSuite(fmu, .init = setup, .fini = teardown);


static long var(const cosa_fmu *f, const char *name)
{
    for (size_t i = 0; i < cosa_fmu_nvar(f); i++)
        if (strcmp(cosa_fmu_var_at(f, i)->name, name) == 0)
            return (long)i;
    return -1;
}

/* The description of subsystem I as tests/fmu/twomass1_fmi{3,2}.xml says. */
static void check_description_I(const cosa_fmu *f, int version)
{
    cr_expect_eq(cosa_fmu_version(f), version);
    cr_expect_str_eq(cosa_fmu_identifier(f), "twomass1");
    cr_expect_str_eq(cosa_fmu_token(f), "{cosa-test-twomass}");
    cr_expect_eq(cosa_fmu_caps(f) & (COSA_FMU_CAP_GET_SET_STATE | COSA_FMU_CAP_DIRECTIONAL),
                 COSA_FMU_CAP_GET_SET_STATE | COSA_FMU_CAP_DIRECTIONAL);
    cr_expect_eq((cosa_fmu_caps(f) & COSA_FMU_CAP_INTERPOLATE_INPUTS) != 0, version == 2);
    cr_expect_eq(cosa_fmu_nvar(f), 10);
    cr_assert_eq(cosa_fmu_nstate(f), 2);
    cr_expect_eq(cosa_fmu_state(f, 2), SIZE_MAX);
    cr_expect_eq(cosa_fmu_output(f, 2), SIZE_MAX);
    cr_expect_eq(cosa_fmu_state(f, 0), (size_t)var(f, "s"));
    cr_expect_eq(cosa_fmu_state(f, 1), (size_t)var(f, "v"));
    cr_expect_eq(cosa_fmu_state_derivative(f, 0), (size_t)var(f, "der(s)"));
    cr_expect_eq(cosa_fmu_state_derivative(f, 1), (size_t)var(f, "der(v)"));
    cr_expect_eq(cosa_fmu_var_at(f, var(f, "der(v)"))->derivative_of, var(f, "v"));
    cr_assert_eq(cosa_fmu_ninput(f), 1);
    cr_expect_eq(cosa_fmu_input(f, 0), (size_t)var(f, "Fk"));
    cr_assert_eq(cosa_fmu_noutput(f), 2);
    cr_expect_eq(cosa_fmu_output(f, 0), (size_t)var(f, "s1"));
    cr_expect_eq(cosa_fmu_output(f, 1), (size_t)var(f, "v1"));
    const cosa_fmu_var *c1 = cosa_fmu_var_at(f, var(f, "c1"));
    cr_expect_eq(c1->vr, 9);
    cr_expect_eq(c1->causality, COSA_FMU_PARAMETER);
    cr_expect_eq(c1->variability, COSA_FMU_FIXED);
    cr_expect(c1->has_start && c1->start == 1e6);
    const cosa_fmu_var *v = cosa_fmu_var_at(f, var(f, "v"));
    cr_expect(v->has_start && v->start == 100.0);
    cr_expect_eq(v->causality, COSA_FMU_LOCAL);
}

Test(fmu, fmi3_description_and_cleanup)
{
    cosa_fmu *f = tu_fmu_open_ok("twomass1_fmi3.fmu");
    check_description_I(f, 3);
    /* the unzipped tree lives in the private TMPDIR until close */
    char so[4400];
    snprintf(so, sizeof so, "%s/binaries/x86_64-linux/twomass1.so", cosa_fmu_directory(f));
    struct stat st;
    cr_expect_eq(stat(so, &st), 0);
    cr_expect_eq(strncmp(cosa_fmu_directory(f), tmpdir, strlen(tmpdir)), 0);
    cr_expect_eq(leftovers(), 1);
    cosa_fmu_close(f);
    cr_expect_eq(leftovers(), 0, "the FMU's directory was not removed");
}

/* An Int32 output listed in ModelStructure and a Float64 array parameter
 * (as in the Reference FMUs) are ignored: the description is subsystem I's. */
Test(fmu, other_types_and_array_parameters_are_ignored)
{
    cosa_fmu *f = tu_fmu_open_ok("twomass1_extra_fmi3.fmu");
    check_description_I(f, 3);
    cr_expect_eq(var(f, "M"), -1);
    cr_expect_eq(var(f, "count"), -1);
    cosa_fmu_close(f);
}

Test(fmu, fmi2_description)
{
    cosa_fmu *f = tu_fmu_open_ok("twomass1_fmi2.fmu");
    check_description_I(f, 2);
    cosa_fmu_close(f);
    f = tu_fmu_open_ok("twomass2_fmi2.fmu");
    cr_expect_eq(cosa_fmu_ninput(f), 2);
    cr_expect_eq(cosa_fmu_noutput(f), 1);
    cr_expect_eq(cosa_fmu_output(f, 0), (size_t)var(f, "Fk"));
    cosa_fmu_close(f);
    cr_expect_eq(leftovers(), 0);
}

/* Two FMUs at once (the same symbol names in two binaries): each handle
 * resolves its own functions; one FMI 3.0 step of each subsystem equals a
 * direct RK4 integration of the same ODE written here (the FMU uses 100
 * RK4 substeps; so does this reference: the same arithmetic, so agreement to
 * a few ulps of the state's scale, bounded by 1e-12 relative). */
Test(fmu, fmi3_functions_step_both_subsystems)
{
    cosa_fmu *a = tu_fmu_open_ok("twomass1_fmi3.fmu"), *b = tu_fmu_open_ok("twomass2_fmi3.fmu");
    cr_assert_neq(a->f3.DoStep, b->f3.DoStep, "both handles resolved the same binary");
    fmi3Instance ia = a->f3.InstantiateCoSimulation("I", "{cosa-test-twomass}", a->res3, false,
                                                    false, false, false, NULL, 0, NULL, NULL, NULL);
    cr_assert_not_null(ia);
    cr_assert_eq(a->f3.EnterInitializationMode(ia, false, 0.0, 0.0, false, 0.0), fmi3OK);
    cr_assert_eq(a->f3.ExitInitializationMode(ia), fmi3OK);
    const fmi3ValueReference fk = 5, outs[2] = {6, 7};
    const double force = 250.0, h = 1e-3;
    cr_assert_eq(a->f3.SetFloat64(ia, &fk, 1, &force, 1), fmi3OK);
    fmi3Boolean ev, term, early;
    fmi3Float64 last;
    cr_assert_eq(a->f3.DoStep(ia, 0.0, h, true, &ev, &term, &early, &last), fmi3OK);
    cr_expect(!ev && !term && !early && last == h);
    double y[2];
    cr_assert_eq(a->f3.GetFloat64(ia, outs, 2, y, 2), fmi3OK);
    /* reference: m1 s'' = -c1 s - d1 s' + F, s(0) = 0, v(0) = 100 */
    const double m1 = 10.0, c1 = 1e6, d1 = 1.0;
    double x[2] = {0.0, 100.0};
    const double dt = h / 100;
    for (int n = 0; n < 100; n++) {
        double k[4][2], xs[2];
#define RHS(X, K) ((K)[0] = (X)[1], (K)[1] = (-c1 * (X)[0] - d1 * (X)[1] + force) / m1)
        RHS(x, k[0]);
        xs[0] = x[0] + dt / 2 * k[0][0], xs[1] = x[1] + dt / 2 * k[0][1];
        RHS(xs, k[1]);
        xs[0] = x[0] + dt / 2 * k[1][0], xs[1] = x[1] + dt / 2 * k[1][1];
        RHS(xs, k[2]);
        xs[0] = x[0] + dt * k[2][0], xs[1] = x[1] + dt * k[2][1];
        RHS(xs, k[3]);
        for (int i = 0; i < 2; i++)
            x[i] += dt / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
#undef RHS
    }
    cr_expect(fabs(y[0] - x[0]) <= 1e-12 * fabs(x[1]) * h, "s1 %.17g vs %.17g", y[0], x[0]);
    cr_expect(fabs(y[1] - x[1]) <= 1e-12 * fabs(x[1]), "v1 %.17g vs %.17g", y[1], x[1]);
    /* subsystem II's output is the coupling force ck (s2 - s1) + dk (v2 - v1) */
    fmi3Instance ib = b->f3.InstantiateCoSimulation("II", "{cosa-test-twomass}", b->res3, false,
                                                    false, false, false, NULL, 0, NULL, NULL, NULL);
    cr_assert_not_null(ib);
    cr_assert_eq(b->f3.EnterInitializationMode(ib, false, 0.0, 0.0, false, 0.0), fmi3OK);
    cr_assert_eq(b->f3.ExitInitializationMode(ib), fmi3OK);
    const fmi3ValueReference uin[2] = {5, 6}, fko = 7;
    const double u[2] = {0.5, -2.0};
    cr_assert_eq(b->f3.SetFloat64(ib, uin, 2, u, 2), fmi3OK);
    double f0;
    cr_assert_eq(b->f3.GetFloat64(ib, &fko, 1, &f0, 1), fmi3OK);
    cr_expect_eq(f0, 2e5 * (0.0 - 0.5) + 500.0 * (-100.0 - (-2.0)));
    /* an unknown value reference is an error, not garbage */
    const fmi3ValueReference nosuch = 99;
    cr_expect_eq(b->f3.GetFloat64(ib, &nosuch, 1, &f0, 1), fmi3Error);
    a->f3.Terminate(ia);
    a->f3.FreeInstance(ia);
    b->f3.Terminate(ib);
    b->f3.FreeInstance(ib);
    cosa_fmu_close(a);
    cosa_fmu_close(b);
    cr_expect_eq(leftovers(), 0);
}

/* Every broken FMU: COSA_EFMU (or COSA_EIO), a message naming the cause,
 * nothing left behind. */
static void refused(const char *name, cosa_status want, const char *words)
{
    char path[4200], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", fmudir, name);
    cosa_fmu *f = (cosa_fmu *)&f; /* must be set to NULL */
    const cosa_status s = cosa_fmu_open(path, &f, err, sizeof err);
    cr_expect_eq(s, want, "%s: status %d (%s)", name, (int)s, err);
    cr_expect_null(f, "%s", name);
    cr_expect(strstr(err, words) != NULL, "%s: '%s' does not say '%s'", name, err, words);
    cr_expect(strchr(err, '\n') == NULL, "%s: message of more than one line", name);
    cr_expect_eq(leftovers(), 0, "%s left files in TMPDIR", name);
}

Test(fmu, broken_fmus_are_refused)
{
    refused("bad_notzip.fmu", COSA_EFMU, "not a zip archive");
    refused("bad_nomd.fmu", COSA_EFMU, "no modelDescription.xml");
    refused("bad_xml.fmu", COSA_EFMU, "not well-formed XML");
    refused("bad_version.fmu", COSA_EFMU, "fmiVersion '1.0' is not supported");
    refused("bad_nocs.fmu", COSA_EFMU, "no CoSimulation element");
    refused("bad_platform.fmu", COSA_EFMU, "platforms in the FMU: ");
    refused("bad_platform.fmu", COSA_EFMU, "x86_64-windows");
    refused("bad_platform.fmu", COSA_EFMU, "aarch64-darwin");
    refused("bad_symbol.fmu", COSA_EFMU, "does not export fmi3DoStep");
    refused("bad_escape.fmu", COSA_EFMU, "outside the FMU's directory");
    refused("bad_array.fmu", COSA_EFMU, "array variable 'w' (input): FMI 3.0 arrays are not supported");
    refused("no_such_file.fmu", COSA_EIO, "cannot read");
    /* the escaping entry was not written next to the temporary directory */
    char esc[4200];
    snprintf(esc, sizeof esc, "%s/../cosa-escape-test.txt", tmpdir);
    struct stat st;
    cr_expect_neq(stat(esc, &st), 0, "bad_escape.fmu wrote outside its directory");
}

Test(fmu, bad_arguments)
{
    char err[64];
    cosa_fmu *f;
    cr_expect_eq(cosa_fmu_open(NULL, &f, err, sizeof err), COSA_EINVAL);
    cr_expect_eq(cosa_fmu_open("x.fmu", NULL, err, sizeof err), COSA_EINVAL);
    cosa_fmu_close(NULL);
    cr_expect_eq(cosa_fmu_nvar(NULL), 0);
    cr_expect_eq(cosa_fmu_state(NULL, 0), SIZE_MAX);
}

/* ---- the FMU as a unit: co-simulation against the built-in model ---------- */

/* The FMU pair (I, II) of version `ver` and the built-in twomass's linear
 * units, each under a master with scheme `scheme` at H = 1e-4, from the
 * model's initial state, N = 300 macro steps: the stacked states agree to
 * 1e-10 of their scale.  Why that bound: the linear units step exactly; the
 * FMUs take 100 RK4 substeps of dt = 1e-6 per macro step under the same
 * input polynomial (RK4 integrates polynomial forcing of degree <= 3
 * without quadrature error), so they differ by RK4's truncation error,
 * about N * 100 * (omega dt)^5 / 120 with omega <= 1010 rad/s (subsystem
 * II: sqrt((c2 + ck) / m2)), i.e. 3e-13 relative, plus rounding (a few
 * hundred ulps over 30 000 substeps); 1e-10 leaves room for both and would
 * still catch a wrong sign, a wrong input order or a step of the wrong
 * length (those differ at 1e-3 and beyond). */
static void cosim_against_linear(int ver, const char *scheme, int lin_at_end)
{
    char n1[64], n2[64];
    snprintf(n1, sizeof n1, "twomass1_fmi%d.fmu", ver);
    snprintf(n2, sizeof n2, "twomass2_fmi%d.fmu", ver);
    cosa_fmu *f1 = tu_fmu_open_ok(n1), *f2 = tu_fmu_open_ok(n2);
    cosa_unit *uf[2] = {NULL, NULL}, *ul[2] = {NULL, NULL};
    cr_assert_eq(cosa_unit_fmu_create(f1, "I", &uf[0]), COSA_OK);
    cr_assert_eq(cosa_unit_fmu_create(f2, "II", &uf[1]), COSA_OK);
    const cosa_model *m = cosa_model_find("twomass");
    double par[32];
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    double x0[4];
    cr_assert_eq(m->initial_state(m, par, x0), COSA_OK);
    for (size_t i = 0; i < 2; i++)
        cr_assert_eq(cosa_unit_linear_from_system(sys, i, &ul[i]), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(scheme, &s), COSA_OK);
    const double H = 1e-4;
    cosa_master_opts o = {0};
    o.lin_at_end = lin_at_end;
    cosa_unitset *sf = NULL, *sl = NULL;
    cosa_master *mf = NULL, *ml = NULL;
    cr_assert_eq(cosa_unitset_create(2, uf, cosa_system_L(sys), NULL, &sf), COSA_OK);
    cr_assert_eq(cosa_unitset_create(2, ul, cosa_system_L(sys), NULL, &sl), COSA_OK);
    cr_assert_eq(cosa_master_create(sf, &s, H, &o, &mf), COSA_OK);
    cr_assert_eq(cosa_master_create(sl, &s, H, &o, &ml), COSA_OK);
    cr_assert_eq(cosa_master_init_loop(mf, 0.0, x0), COSA_OK, "%s", cosa_unit_message(uf[1]));
    cr_assert_eq(cosa_master_init_loop(ml, 0.0, x0), COSA_OK);
    double xf[4], xl[4], tf, tl, worst = 0.0, scale = 0.0;
    for (int n = 0; n < 300; n++) {
        cosa_status st = cosa_master_step(mf);
        cr_assert_eq(st, COSA_OK, "%s step %d: %s | %s", scheme, n, cosa_unit_message(uf[0]),
                     cosa_unit_message(uf[1]));
        cr_assert_eq(cosa_master_step(ml), COSA_OK);
        cr_assert_eq(cosa_master_get(mf, &tf, xf, NULL, NULL, NULL, NULL), COSA_OK);
        cr_assert_eq(cosa_master_get(ml, &tl, xl, NULL, NULL, NULL, NULL), COSA_OK);
        cr_assert_eq(tf, tl);
        for (int i = 0; i < 4; i++) {
            worst = fmax(worst, fabs(xf[i] - xl[i]));
            scale = fmax(scale, fabs(xl[i]));
        }
    }
    cr_expect(worst <= 1e-10 * scale, "FMI %d %s: max |x_fmu - x_linear| = %g, scale %g", ver,
              scheme, worst, scale);
    cr_expect(scale > 1.0); /* the run did move */
    cosa_master_free(mf);
    cosa_master_free(ml);
    cosa_unitset_free(sf);
    cosa_unitset_free(sl);
    tu_unit_free_pairs(2, uf, ul);
    cosa_system_free(sys);
    cosa_fmu_close(f1);
    cosa_fmu_close(f2);
    cr_expect_eq(leftovers(), 0);
}

Test(fmu, unit_fmi3_zoh_against_linear_units) { cosim_against_linear(3, "zoh", 0); }
Test(fmu, unit_fmi2_zoh_against_linear_units) { cosim_against_linear(2, "zoh", 0); }
/* degree 1 and 2 through fmi2SetRealInputDerivatives */
Test(fmu, unit_fmi2_foh_against_linear_units) { cosim_against_linear(2, "foh", 0); }
Test(fmu, unit_fmi2_soh_against_linear_units) { cosim_against_linear(2, "soh", 0); }
/* MBCorr from the directional derivatives at the end of the step (the
 * FMU's current point) */
Test(fmu, unit_fmi3_zoh_mbcorr_against_linear_units) { cosim_against_linear(3, "zoh+mbcorr", 1); }
Test(fmu, unit_fmi2_gauss_seidel_against_linear_units) { cosim_against_linear(2, "gs:zoh", 0); }
/* degree 1 and 2 through FMI 3.0 intermediate update */
Test(fmu, unit_fmi3_foh_against_linear_units) { cosim_against_linear(3, "foh", 0); }
Test(fmu, unit_fmi3_soh_mbcorr_against_linear_units) { cosim_against_linear(3, "soh+mbcorr", 1); }

/* FOH on an FMI 3.0 FMU without intermediate update: refused, the reason
 * named.  The Jacobian away from the FMU's current point comes from a second
 * instance initialised there: the model's A, from directional derivatives
 * exactly, from central differences (the FMU without them) to 1e-7 of A's
 * scale (the bound of linearize_dd_and_fd below); the FMU's own instance is
 * not disturbed (its next step equals a step of a fresh unit). */
Test(fmu, unit_refusals_and_other_points)
{
    cosa_fmu *f1 = tu_fmu_open_ok("twomass1_nodd_fmi3.fmu");
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f1, "I", &u), COSA_OK);
    const double der[2] = {1.0, 2.0};
    cr_assert_eq(cosa_unit_set_input(u, 1, der), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u, 1e-4), COSA_EUNSUPPORTED);
    cr_expect(strstr(cosa_unit_message(u), "intermediate-update") != NULL, "%s",
              cosa_unit_message(u));
    cr_expect(strstr(cosa_unit_message(u), "FMU I") != NULL, "%s", cosa_unit_message(u));
    const double x[2] = {1.0, 2.0}, uin[1] = {0.0};
    const double Aref[4] = {0.0, -1e6 / 10.0, 1.0, -1.0 / 10.0};
    double A[4];
    cr_assert_eq(cosa_unit_jacobian(u, 0.5, x, uin, 0, A, NULL, NULL, NULL), COSA_OK, "%s",
                 cosa_unit_message(u));
    for (int k = 0; k < 4; k++)
        cr_expect(fabs(A[k] - Aref[k]) <= 1e-7 * 1e5, "fd A[%d] = %.17g", k, A[k]);
    cosa_unit_free(u);
    cosa_fmu_close(f1);
    f1 = tu_fmu_open_ok("twomass1_fmi3.fmu");
    cr_assert_eq(cosa_unit_fmu_create(f1, "I", &u), COSA_OK);
    cr_assert_eq(cosa_unit_jacobian(u, 0.5, x, uin, 0, A, NULL, NULL, NULL), COSA_OK, "%s",
                 cosa_unit_message(u));
    for (int k = 0; k < 4; k++)
        cr_expect_eq(A[k], Aref[k], "dd A[%d] = %.17g", k, A[k]);
    /* the unit's own instance was left alone: a step now equals a fresh unit's */
    cosa_unit *v = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f1, "I2", &v), COSA_OK);
    const double u0[1] = {250.0};
    double xa[2], xb[2];
    cr_assert_eq(cosa_unit_set_input(u, 0, u0), COSA_OK);
    cr_assert_eq(cosa_unit_set_input(v, 0, u0), COSA_OK);
    cr_assert_eq(cosa_unit_do_step(u, 1e-4), COSA_OK);
    cr_assert_eq(cosa_unit_do_step(v, 1e-4), COSA_OK);
    cr_assert_eq(cosa_unit_get_state(u, NULL, xa), COSA_OK);
    cr_assert_eq(cosa_unit_get_state(v, NULL, xb), COSA_OK);
    cr_expect(xa[0] == xb[0] && xa[1] == xb[1]);
    cosa_unit_free(v);
    /* at the current point the directional derivatives are the model's A */
    double xc[2], tc;
    cr_assert_eq(cosa_unit_get_state(u, &tc, xc), COSA_OK);
    cr_assert_eq(cosa_unit_jacobian(u, tc, xc, uin, 0, A, NULL, NULL, NULL), COSA_OK);
    cr_expect(A[0] == 0.0 && A[2] == 1.0 && A[1] == -1e6 / 10.0 && A[3] == -1.0 / 10.0);
    cr_expect_eq(cosa_unit_fmu_set_start(u, "nosuch", 1.0), COSA_EPARAM);
    cr_expect_eq(cosa_unit_fmu_set_start(u, "c1", 4e6), COSA_OK);
    cr_assert_eq(cosa_unit_jacobian(u, tc, xc, uin, 0, A, NULL, NULL, NULL), COSA_OK);
    cr_expect(A[1] == -4e6 / 10.0, "A21 = %g after c1 = 4e6", A[1]);
    /* and the second instance gets the recorded start value too */
    cr_assert_eq(cosa_unit_jacobian(u, 0.5, x, uin, 0, A, NULL, NULL, NULL), COSA_OK);
    cr_expect(A[1] == -4e6 / 10.0, "A21 = %g away from the current point", A[1]);
    cosa_unit_free(u);
    cosa_fmu_close(f1);
}

/* Snapshots (get/set FMU state): a restore repeats a step bitwise; a
 * snapshot taken before the unit's state was set (which instantiates the
 * FMU again) is refused with one line instead of being handed to the new
 * instance, and the same snapshot can be saved into afresh (FMI 3.0 and 2.0;
 * freed without leaks: valgrind/ASan). */
Test(fmu, snapshots_across_instances)
{
    for (int ver = 3; ver >= 2; ver--) {
        cosa_fmu *f = tu_fmu_open_ok(ver == 3 ? "twomass1_fmi3.fmu" : "twomass1_fmi2.fmu");
        cosa_unit *u = NULL;
        cr_assert_eq(cosa_unit_fmu_create(f, "I", &u), COSA_OK);
        const double u0[1] = {250.0}, x1[2] = {1e-3, 50.0};
        double xa[2], xb[2];
        cosa_unit_snapshot *snap = NULL;
        cr_assert_eq(cosa_unit_set_input(u, 0, u0), COSA_OK);
        cr_assert_eq(cosa_unit_save(u, &snap), COSA_OK);
        cr_assert_eq(cosa_unit_do_step(u, 1e-4), COSA_OK);
        cr_assert_eq(cosa_unit_get_state(u, NULL, xa), COSA_OK);
        cr_assert_eq(cosa_unit_restore(u, snap), COSA_OK, "%s", cosa_unit_message(u));
        cr_assert_eq(cosa_unit_do_step(u, 1e-4), COSA_OK);
        cr_assert_eq(cosa_unit_get_state(u, NULL, xb), COSA_OK);
        cr_expect(xa[0] == xb[0] && xa[1] == xb[1], "FMI %d: the repeated step differs", ver);
        cr_assert_eq(cosa_unit_set_state(u, 0.0, x1), COSA_OK); /* a new instance */
        cr_expect_eq(cosa_unit_restore(u, snap), COSA_EFMU, "FMI %d", ver);
        cr_expect(strstr(cosa_unit_message(u), "snapshot of an earlier instance") != NULL, "%s",
                  cosa_unit_message(u));
        cr_assert_eq(cosa_unit_save(u, &snap), COSA_OK, "%s", cosa_unit_message(u));
        cr_assert_eq(cosa_unit_do_step(u, 1e-4), COSA_OK);
        cr_assert_eq(cosa_unit_restore(u, snap), COSA_OK, "%s", cosa_unit_message(u));
        cr_assert_eq(cosa_unit_get_state(u, NULL, xb), COSA_OK);
        cr_expect(xb[0] == x1[0] && xb[1] == x1[1], "FMI %d: restored to the new start", ver);
        cosa_unit_snapshot_free(u, snap);
        cosa_unit_free(u);
        cosa_fmu_close(f);
    }
}

/* Linearisation: directional derivatives equal the model's matrices (the
 * FMU evaluates the same expressions: bitwise), central differences
 * through fresh instances agree with them to 1e-7 of each block's largest
 * entry.  Why 1e-7: the model is linear, so the differences have no
 * truncation error; what is left is rounding, about eps |f| / delta with
 * delta = cbrt(eps) max(|z_j|, 1e-3 ||z||): eps^(2/3) = 4e-11 times the
 * ratio |f| / (|J| |z|), which the operating point (v = 100, s = 0: the
 * 1e-3 floor makes delta = 6e-6 * 0.1 for s) raises by up to 1e3. */
Test(fmu, linearize_dd_and_fd)
{
    for (int which = 1; which <= 2; which++) {
        cosa_fmu *f = tu_fmu_open_ok(which == 1 ? "twomass1_fmi3.fmu" : "twomass2_fmi2.fmu");
        cosa_unit *u = NULL;
        cr_assert_eq(cosa_unit_fmu_create(f, NULL, &u), COSA_OK);
        const size_t nx = cosa_unit_nx(u), nu = cosa_unit_nu(u), ny = cosa_unit_ny(u);
        double dd[64] = {0}, fd[64] = {0};
        const size_t off[4] = {0, nx * nx, nx * nx + nx * nu, nx * nx + nx * nu + ny * nx};
        const size_t len[4] = {nx * nx, nx * nu, ny * nx, ny * nu};
        cr_assert_eq(cosa_unit_fmu_linearize(u, 0, dd, dd + off[1], dd + off[2], dd + off[3]),
                     COSA_OK);
        cr_assert_eq(cosa_unit_fmu_linearize(u, 1, fd, fd + off[1], fd + off[2], fd + off[3]),
                     COSA_OK, "%s", cosa_unit_message(u));
        /* the built-in model's subsystem */
        cosa_system *sys = tu_model_system("twomass", NULL);
        const size_t NX = cosa_system_nx(sys), NU = cosa_system_nu(sys), NY = cosa_system_ny(sys);
        const size_t ox = which == 1 ? 0 : 2, ou = which == 1 ? 0 : 1, oy = which == 1 ? 0 : 2;
        const double *SA = cosa_system_A(sys), *SB = cosa_system_B(sys), *SC = cosa_system_C(sys),
                     *SD = cosa_system_D(sys);
        for (int k = 0; k < 4; k++) {
            const size_t rows = k < 2 ? nx : ny;
            double big = 0.0, worst = 0.0;
            for (size_t i = 0; i < len[k]; i++) {
                const size_t r = i % rows, c = i / rows;
                const double ref = k == 0   ? SA[(ox + r) + (ox + c) * NX]
                                   : k == 1 ? SB[(ox + r) + (ou + c) * NX]
                                   : k == 2 ? SC[(oy + r) + (ox + c) * NY]
                                            : SD[(oy + r) + (ou + c) * NY];
                cr_expect_eq(dd[off[k] + i], ref, "FMU %d block %d entry %zu: %.17g vs %.17g",
                             which, k, i, dd[off[k] + i], ref);
                big = fmax(big, fabs(ref));
                worst = fmax(worst, fabs(fd[off[k] + i] - ref));
            }
            cr_expect(worst <= 1e-7 * big, "FMU %d block %d: fd off by %g (scale %g)", which, k,
                      worst, big);
        }
        (void)NU;
        /* the unit is back at its operating point */
        double x[2];
        cr_assert_eq(cosa_unit_get_state(u, NULL, x), COSA_OK);
        cr_expect(x[1] == (which == 1 ? 100.0 : -100.0) && x[0] == 0.0);
        cosa_system_free(sys);
        cosa_unit_free(u);
        cosa_fmu_close(f);
    }
    cr_expect_eq(leftovers(), 0);
}

/* ---- what third-party FMUs exposed (README "FMU import") ------------------ */

/* The gain FMU (tests/fmu/gain_fmu.c, gain_fmi3.xml): no continuous states,
 * the variables of other types kept for fmu-info, DefaultExperiment. */
Test(fmu, gain_description_other_types_and_default_experiment)
{
    cosa_fmu *f = tu_fmu_open_ok("gain_fmi3.fmu");
    cr_expect_eq(cosa_fmu_nstate(f), 0u);
    cr_expect_eq(cosa_fmu_ninput(f), 1u);
    cr_expect_eq(cosa_fmu_noutput(f), 1u); /* y; uhold is a discrete output */
    cr_assert_eq(cosa_fmu_nother(f), 2u);
    cr_expect_str_eq(cosa_fmu_other_at(f, 0)->name, "count");
    cr_expect_str_eq(cosa_fmu_other_at(f, 0)->type, "Int32");
    cr_expect_eq(cosa_fmu_other_at(f, 0)->causality, COSA_FMU_OUTPUT);
    cr_expect_str_eq(cosa_fmu_other_at(f, 1)->type, "Boolean");
    cr_expect_eq(cosa_fmu_other_at(f, 1)->variability, COSA_FMU_FIXED);
    cr_expect_null(cosa_fmu_other_at(f, 2));
    cr_expect_eq(cosa_fmu_start_time(f), 0.0);
    cr_expect_eq(cosa_fmu_stop_time(f), 0.2); /* the XML's "0.2", read by strtod */
    cosa_fmu_close(f);
    f = tu_fmu_open_ok("twomass1_fmi3.fmu");
    cr_expect(isnan(cosa_fmu_stop_time(f)) && isnan(cosa_fmu_start_time(f)));
    cosa_fmu_close(f);
}

/* A unit without states: linearised to D alone; D by central differences of
 * y = k u, exact but for rounding: |D - k| <= k eps / (relative step
 * cbrt(eps)) ~ 4e-11 k, bound 1e-9 k; k = 2 comes from resources/gain.txt
 * (FMI 3.0: resourcePath, FMI 2.0: a file:// URI), which the FMU needs to
 * instantiate at all. */
static void gain_unit(const char *name, double k)
{
    cosa_fmu *f = tu_fmu_open_ok(name);
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f, "G", &u), COSA_OK, "%s: %s", name,
                 u ? cosa_unit_message(u) : "");
    cr_expect_eq(cosa_unit_nx(u), 0u);
    double D = 0.0, none = 0.0;
    cr_assert_eq(cosa_unit_fmu_linearize(u, 0, &none, &none, &none, &D), COSA_OK, "%s",
                 cosa_unit_message(u));
    cr_expect(fabs(D - k) <= 1e-9 * k, "%s: D = %.17g, k = %g", name, D, k);
    /* a step under a constant input: y = k u after it */
    const double in = 3.0;
    double y = 0.0;
    cr_assert_eq(cosa_unit_set_input(u, 0, &in), COSA_OK);
    cr_assert_eq(cosa_unit_do_step(u, 1e-3), COSA_OK, "%s", cosa_unit_message(u));
    cr_assert_eq(cosa_unit_eval(u, cosa_unit_time(u), NULL, &in, NULL, &y), COSA_OK);
    cr_expect_eq(y, k * in);
    cosa_unit_free(u);
    cosa_fmu_close(f);
}
Test(fmu, stateless_fmu_and_resources)
{
    gain_unit("gain_fmi3.fmu", 1.0);
    gain_unit("gain_fmi2.fmu", 1.0);
    gain_unit("gainres_fmi3.fmu", 2.0);
    gain_unit("gainres_fmi2.fmu", 2.0);
    /* without resources/ the FMU cannot instantiate: create says why */
    cosa_fmu *f = tu_fmu_open_ok("gainres_nores_fmi3.fmu");
    cosa_unit *u = NULL;
    cr_expect_eq(cosa_unit_fmu_create(f, "G", &u), COSA_EFMU);
    cr_expect(u && strstr(cosa_unit_message(u), "cannot read gain.txt"), "%s",
              u ? cosa_unit_message(u) : "");
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* The logger: every message with the instance's name and status; the first
 * Warning kept once. */
struct logbook {
    int n, warnings;
    char first[256];
};
static void logbook_add(void *user, const char *instance, int status, const char *category,
                        const char *message)
{
    struct logbook *b = user;
    if (b->n++ == 0)
        snprintf(b->first, sizeof b->first, "%s|%d|%s|%s", instance, status, category, message);
    b->warnings += status == 1;
}
Test(fmu, logger_and_first_warning)
{
    cosa_fmu *f = tu_fmu_open_ok("gainwarn_fmi3.fmu");
    cosa_unit *u = NULL;
    struct logbook b = {0};
    cr_assert_eq(cosa_unit_fmu_create(f, "G", &u), COSA_OK);
    cr_expect_eq(b.n, 0); /* loggingOn false: the FMU logs nothing */
    cr_assert_eq(cosa_unit_fmu_set_logger(u, logbook_add, &b), COSA_OK);
    cr_expect_str_eq(b.first, "G|0|logEvents|gain FMU instantiated with k = 1");
    cr_expect_str_eq(cosa_unit_fmu_warning(u), "");
    const double in = 1.0;
    cr_assert_eq(cosa_unit_set_input(u, 0, &in), COSA_OK);
    for (int n = 0; n < 4; n++) /* 0 .. 0.02: Warning from t + h >= 0.01 on */
        cr_assert_eq(cosa_unit_do_step(u, 5e-3), COSA_OK, "%s", cosa_unit_message(u));
    cr_expect_eq(b.warnings, 3);
    cr_expect_str_eq(cosa_unit_fmu_warning(u),
                     "FMU G: fmi3DoStep at t = 0.0050000000000000001 returned Warning; it "
                     "logged: gain FMU warns as configured (t = 0.01)");
    cr_expect_null(cosa_unit_fmu_warning(NULL));
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* lastSuccessfulTime t + h/2 without an early return; an FMU declaring
 * intermediate update that never asks during a step with a polynomial input
 * of degree 1. */
Test(fmu, last_successful_time_and_unrequested_intermediate_update)
{
    cosa_fmu *f = tu_fmu_open_ok("gainshort_fmi3.fmu");
    cosa_unit *u = NULL;
    cr_assert_eq(cosa_unit_fmu_create(f, "G", &u), COSA_OK);
    const double in = 1.0;
    cr_assert_eq(cosa_unit_set_input(u, 0, &in), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u, 1e-3), COSA_EFMU);
    cr_expect(strstr(cosa_unit_message(u), "lastSuccessfulTime = 0.0005") &&
              strstr(cosa_unit_message(u), "returned no early return but did not advance to "
                                           "t' = 0.001"),
              "%s", cosa_unit_message(u));
    cosa_unit_free(u);
    cosa_fmu_close(f);
    f = tu_fmu_open_ok("twomass2_norefresh_fmi3.fmu");
    cr_assert_eq(cosa_unit_fmu_create(f, "II", &u), COSA_OK);
    const double held[2] = {0.0, 0.0}, ramp[4] = {0.0, 0.0, 1.0, 1.0};
    cr_assert_eq(cosa_unit_set_input(u, 0, held), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u, 1e-4), COSA_OK, "%s", cosa_unit_message(u));
    cr_assert_eq(cosa_unit_set_input(u, 1, ramp), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u, 1e-4), COSA_EUNSUPPORTED);
    cr_expect(strstr(cosa_unit_message(u), "FMU II: declares intermediate update but never "
                                           "asked for its inputs"), "%s", cosa_unit_message(u));
    cosa_unit_free(u);
    cosa_fmu_close(f);
}

/* The initialization loop (lib/td/fmu_init.c): two loop FMUs y = a u + b
 * (tests/fmu/loop_fmu.c) coupled output to input, iterated in Initialization
 * Mode to the closed form y1 = (a1 b2 + b1) / (1 - a1 a2), y2 = a2 y1 + b2;
 * without feedthrough in A (a1 = 0) no loop and nothing done; with a1 a2 = 1
 * no fixed point, and for every y the residual has r1 + r2 = -(b1 + b2). */
Test(fmu, initialization_loop)
{
    cosa_fmu *f = tu_fmu_open_ok("loop_fmi3.fmu");
    cosa_unit *u[2] = {NULL, NULL};
    cr_assert_eq(cosa_unit_fmu_create(f, "A", &u[0]), COSA_OK);
    cr_assert_eq(cosa_unit_fmu_create(f, "B", &u[1]), COSA_OK);
    cr_assert_eq(cosa_unit_fmu_set_start(u[1], "a", 0.8), COSA_OK);
    cr_assert_eq(cosa_unit_fmu_set_start(u[1], "b", 2.0), COSA_OK);
    const double L[4] = {0.0, 1.0, 1.0, 0.0}; /* u1 = y2, u2 = y1 (nu x ny) */
    cosa_unitset *set = NULL;
    cr_assert_eq(cosa_unitset_create(2, u, L, NULL, &set), COSA_OK);
    double x[2] = {0.0, 0.0}, y[2];
    unsigned char in[2] = {0, 0};
    cosa_fmu_init_result res;
    cr_assert_eq(cosa_fmu_init_loop(set, 0.0, x, y, in, &res), COSA_OK);
    const double y1 = (0.5 * 2.0 + 1.0) / (1.0 - 0.5 * 0.8), y2 = 0.8 * y1 + 2.0;
    /* ||(I - D L)^-1||_inf = (1 + 0.8) / 0.6 = 3 times the residual's rounding */
    const double tol = 16.0 * 3.0 * DBL_EPSILON * y2;
    cr_expect(res.loop && in[0] && in[1]);
    cr_expect(fabs(y[0] - y1) <= tol && fabs(y[1] - y2) <= tol, "y %.17g %.17g", y[0], y[1]);
    /* Newton on an affine loop: one update, then the rule's confirmation */
    cr_expect(res.iterations >= 2 && res.iterations <= 4, "%d iterations", res.iterations);
    cr_expect(res.residual <= tol, "residual %g", res.residual);
    /* the FMUs left Initialization Mode: they step (held input y2 into A's
     * filter: x(h) = y2 (1 - exp(-h / tau)), tau = 0.1) */
    const double uA = y[1];
    cr_expect_eq(cosa_unit_set_input(u[0], 0, &uA), COSA_OK);
    cr_expect_eq(cosa_unit_do_step(u[0], 0.01), COSA_OK, "%s", cosa_unit_message(u[0]));
    cr_expect(fabs(cosa_unit_state(u[0])[0] - y2 * -expm1(-0.1)) <= 8.0 * DBL_EPSILON * y2);
    /* no feedthrough in A: no loop, y untouched */
    cr_assert_eq(cosa_unit_fmu_set_start(u[0], "a", 0.0), COSA_OK);
    y[0] = y[1] = 7.0;
    cr_expect_eq(cosa_fmu_init_loop(set, 0.0, x, y, in, &res), COSA_OK);
    cr_expect(!res.loop && !in[0] && !in[1] && y[0] == 7.0 && y[1] == 7.0 &&
              res.iterations == 0);
    /* a1 a2 = 1, b1 + b2 = 3: no fixed point, residual >= 3/2 */
    cr_assert_eq(cosa_unit_fmu_set_start(u[0], "a", 1.0), COSA_OK);
    cr_assert_eq(cosa_unit_fmu_set_start(u[1], "a", 1.0), COSA_OK);
    const cosa_status st = cosa_fmu_init_loop(set, 0.0, x, y, in, &res);
    cr_expect(st == COSA_EALGLOOP || st == COSA_ENOTCONVERGED, "%s", cosa_strerror(st));
    cr_expect(res.loop && res.iterations >= 1 && res.residual >= 1.5, "residual %g",
              res.residual);
    cosa_unitset_free(set);
    cosa_unit_free(u[0]);
    cosa_unit_free(u[1]);
    cosa_fmu_close(f);
}
