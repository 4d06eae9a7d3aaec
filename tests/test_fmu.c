/* test_fmu.c -- the FMU importer's loading stage (lib/td/fmu*.c) on the test
 * FMUs that make check builds from tests/fmu/: the model description as
 * written in tests/fmu/*.xml (checked here against the XML's own numbers,
 * an independent reading), the binary's functions resolved and callable
 * (instantiate, step, read), and every broken FMU refused with its one-line
 * reason, nothing left in the temporary directory. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/fmu_impl.h"

#include <dirent.h>
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

static cosa_fmu *open_ok(const char *name)
{
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/%s", fmudir, name);
    cosa_fmu *f = NULL;
    const cosa_status s = cosa_fmu_open(path, &f, err, sizeof err);
    cr_assert_eq(s, COSA_OK, "%s: %s", name, err);
    return f;
}

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
    cosa_fmu *f = open_ok("twomass1_fmi3.fmu");
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

Test(fmu, fmi2_description)
{
    cosa_fmu *f = open_ok("twomass1_fmi2.fmu");
    check_description_I(f, 2);
    cosa_fmu_close(f);
    f = open_ok("twomass2_fmi2.fmu");
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
    cosa_fmu *a = open_ok("twomass1_fmi3.fmu"), *b = open_ok("twomass2_fmi3.fmu");
    cr_assert_neq(a->f3.DoStep, b->f3.DoStep, "both handles resolved the same binary");
    fmi3Instance ia = a->f3.InstantiateCoSimulation("I", "{cosa-test-twomass}", NULL, false, false,
                                                    false, false, NULL, 0, NULL, NULL, NULL);
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
    fmi3Instance ib = b->f3.InstantiateCoSimulation("II", "{cosa-test-twomass}", NULL, false,
                                                    false, false, false, NULL, 0, NULL, NULL, NULL);
    cr_assert_not_null(ib);
    cr_assert_eq(b->f3.EnterInitializationMode(ib, false, 0.0, 0.0, false, 0.0), fmi3OK);
    cr_assert_eq(b->f3.ExitInitializationMode(ib), fmi3OK);
    const fmi3ValueReference uin[2] = {5, 6}, fko = 7;
    const double u[2] = {0.5, -2.0};
    cr_assert_eq(b->f3.SetFloat64(ib, uin, 2, u, 2), fmi3OK);
    double f0;
    cr_assert_eq(b->f3.GetFloat64(ib, &fko, 1, &f0, 1), fmi3OK);
    cr_expect_eq(f0, 1e5 * (0.0 - 0.5) + 1e2 * (0.0 - (-2.0)));
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
