/* test_unitset_build.c -- the units of a model and their unit set
 * (models/unitset_build.c, cosa_model_units_create): built-in models with
 * linear and ODE units, a model file of FMUs with FMU units, and the
 * capability an FMU lacks named by the error (test FMUs of make check,
 * COSA_FMUDIR). */
#include <criterion/criterion.h>

#include "cosa.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cosa_integrator integrator(const char *name)
{
    cosa_integrator in;
    cr_assert_eq(cosa_integrator_parse(name, &in), COSA_OK);
    return in;
}

/* The two-mass oscillator as two FMUs (README "FMU import"); first: the
 * FMU of subsystem I. */
static cosa_model *fmu_net(const char *first)
{
    const char *d = getenv("COSA_FMUDIR");
    char text[9000], err[512];
    snprintf(text, sizeof text,
             "model twomass-fmu\nfmu I = %s/%s\nfmu II = %s/twomass2_fmi3.fmu\n"
             "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n",
             d ? d : "tests/fmu", first, d ? d : "tests/fmu");
    cosa_model *m = NULL;
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "net", &m, err, sizeof err), COSA_OK,
                 "%s", err);
    return m;
}

/* The set's dimensions and coupling are the linear system's (u = L y, the
 * same L bit for bit), one unit per subsystem. */
static void expect_like_system(const cosa_model_units *mu, const cosa_system *sys)
{
    const cosa_unitset *set = cosa_model_units_set(mu);
    cr_assert_not_null(set);
    cr_expect_eq(cosa_model_units_count(mu), cosa_system_nsub(sys));
    cr_expect_eq(cosa_unitset_count(set), cosa_system_nsub(sys));
    cr_expect_eq(cosa_unitset_nx(set), cosa_system_nx(sys));
    cr_expect_eq(cosa_unitset_nu(set), cosa_system_nu(sys));
    cr_expect_eq(cosa_unitset_ny(set), cosa_system_ny(sys));
    const size_t n = cosa_system_nu(sys) * cosa_system_ny(sys);
    cr_expect_eq(memcmp(cosa_unitset_L(set), cosa_system_L(sys), n * sizeof(double)), 0);
    for (size_t i = 0; i < cosa_system_nsub(sys); i++)
        cr_expect_eq(cosa_model_units_units(mu)[i], cosa_unitset_unit(set, i), "unit %zu", i);
}

Test(unitset_build, builtin_linear_and_ode_units)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[64];
    cosa_model_defaults(m, par);
    cosa_system *sys = tu_model_system("twomass", NULL); /* the same defaults as par */
    static const char *const integ[] = {"exact", "rk4", "cvode"};
    for (size_t k = 0; k < 3; k++) {
        const cosa_integrator in = integrator(integ[k]);
        const cosa_model_units_opts o = {.integ = &in};
        cosa_model_units *mu = NULL;
        cr_assert_eq(cosa_model_units_create(m, par, &o, &mu, NULL), COSA_OK, "%s", integ[k]);
        expect_like_system(mu, sys);
        cr_expect_eq(cosa_model_units_nfmu(mu), 0);
        /* exact units need no ODE form; the others run one */
        cr_expect_eq(cosa_model_units_odesys(mu) != NULL, k > 0, "%s", integ[k]);
        for (size_t i = 0; i < 2; i++)
            cr_expect_null(cosa_model_units_fmus(mu)[i]);
        cosa_model_units_free(mu);
    }
    cosa_system_free(sys);
    cosa_model_units_free(NULL);
}

Test(unitset_build, bad_arguments)
{
    const cosa_model *nl = cosa_model_find("twomass-nl");
    double par[64];
    cosa_model_defaults(nl, par);
    const cosa_integrator ex = integrator("exact");
    const cosa_model_units_opts o = {.integ = &ex}, none = {0};
    cosa_model_units *mu = (cosa_model_units *)&mu;
    /* exact units of a model without a linear form */
    cr_expect_eq(cosa_model_units_create(nl, par, &o, &mu, NULL), COSA_EINVAL);
    cr_expect_null(mu);
    cr_expect_eq(cosa_model_units_create(nl, par, &none, &mu, NULL), COSA_EINVAL);
    cr_expect_eq(cosa_model_units_create(NULL, par, &o, &mu, NULL), COSA_EINVAL);
    cr_expect_eq(cosa_model_units_create(nl, par, &o, NULL, NULL), COSA_EINVAL);
}

Test(unitset_build, fmu_units)
{
    cosa_model *m = fmu_net("twomass1_fmi3.fmu");
    double *par = calloc(m->nparam + 1, sizeof *par);
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    const cosa_integrator ex = integrator("exact");
    for (int fd = 0; fd < 2; fd++) {
        const cosa_model_units_opts o = {.integ = &ex, .force_fd = fd,
                                         .need = COSA_MODEL_UNITS_NEED_JACOBIAN |
                                                 COSA_MODEL_UNITS_NEED_STATE};
        cosa_model_units *mu = NULL;
        cr_assert_eq(cosa_model_units_create(m, par, &o, &mu, NULL), COSA_OK);
        expect_like_system(mu, sys);
        cr_expect_eq(cosa_model_units_nfmu(mu), 2);
        for (size_t i = 0; i < 2; i++) {
            cr_expect_not_null(cosa_model_units_fmus(mu)[i]);
            /* both FMUs have directional derivatives: step gains only with fd */
            cr_expect_eq(cosa_model_units_step_gains(mu)[i], fd, "unit %zu", i);
        }
        cosa_model_units_free(mu);
    }
    /* as their linearisation: linear units */
    const cosa_model_units_opts lin = {.integ = &ex, .fmu_linearized = 1};
    cosa_model_units *mu = NULL;
    cr_assert_eq(cosa_model_units_create(m, par, &lin, &mu, NULL), COSA_OK);
    cr_expect_eq(cosa_model_units_nfmu(mu), 0);
    cr_expect_null(cosa_model_units_fmus(mu)[0]);
    cosa_model_units_free(mu);
    cosa_system_free(sys);
    free(par);
    cosa_model_free(m);
}

/* An FMU without a capability the method needs: refused, the error names
 * the subsystem, the FMU and the capability. */
Test(unitset_build, missing_capabilities)
{
    static const struct {
        const char *fmu;
        unsigned need, missing;
        int force_fd;
    } c[] = {
        {"twomass1_nodd_fmi3.fmu", COSA_MODEL_UNITS_NEED_DIRECTIONAL,
         COSA_MODEL_UNITS_NEED_DIRECTIONAL, 0},
        /* no dd but its state: Jacobians by finite differences */
        {"twomass1_nodd_fmi3.fmu", COSA_MODEL_UNITS_NEED_JACOBIAN, 0, 0},
        {"twomass1_nostate_fmi3.fmu", COSA_MODEL_UNITS_NEED_JACOBIAN,
         COSA_MODEL_UNITS_NEED_JACOBIAN, 0},
        {"twomass1_nostate_fmi3.fmu", COSA_MODEL_UNITS_NEED_STATE, COSA_MODEL_UNITS_NEED_STATE,
         0},
        {"twomass1_fmi3.fmu", COSA_MODEL_UNITS_NEED_STATE | COSA_MODEL_UNITS_NEED_JACOBIAN, 0, 1},
    };
    const cosa_integrator ex = integrator("exact");
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        cosa_model *m = fmu_net(c[k].fmu);
        double *par = calloc(m->nparam + 1, sizeof *par);
        cosa_model_defaults(m, par);
        const cosa_model_units_opts o = {.integ = &ex, .need = c[k].need,
                                         .force_fd = c[k].force_fd};
        cosa_model_units *mu = NULL;
        cosa_model_units_error e;
        const cosa_status st = cosa_model_units_create(m, par, &o, &mu, &e);
        if (c[k].missing) {
            cr_expect_eq(st, COSA_EUNSUPPORTED, "%s", c[k].fmu);
            cr_expect_null(mu);
            cr_expect_eq(e.missing, c[k].missing, "%s", c[k].fmu);
            cr_expect_eq(e.sub, 0, "%s", c[k].fmu);
            cr_expect(e.fmu && strstr(e.fmu, c[k].fmu), "%s", c[k].fmu);
        } else {
            cr_expect_eq(st, COSA_OK, "%s: %s", c[k].fmu, e.msg);
        }
        cosa_model_units_free(mu);
        free(par);
        cosa_model_free(m);
    }
}
