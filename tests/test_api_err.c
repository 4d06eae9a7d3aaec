/* test_api_err.c -- the one-call API's err rule (lib/cosa/api.h): a failed
 * call leaves one line in err, a successful call leaves err empty, also
 * after an earlier failure wrote into the same buffer. */
#include "testutil.h"

/* Fill err with an earlier call's message: an unknown model. */
static void stale(char *err, size_t size)
{
    cosa_case *bad = NULL;
    cr_assert_eq(cosa_case_builtin("no-such-model", &bad, err, size), COSA_EINVAL);
    cr_assert_str_eq(err, "unknown model 'no-such-model' (see 'cosa models')");
}

Test(api_err, every_successful_call_empties_err)
{
    char err[256];
    cosa_case *c = NULL;
    stale(err, sizeof err);
    cr_assert_eq(cosa_case_builtin("twomass", &c, err, sizeof err), COSA_OK);
    cr_expect_str_empty(err, "builtin: '%s'", err);

    stale(err, sizeof err);
    cr_expect_eq(cosa_case_set(c, "ck", 1e4, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_str_empty(err, "set: '%s'", err);

    cosa_point_result pr;
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_point(c, "zoh", 1e-3, 0.0, &pr, NULL, 0, err, sizeof err), COSA_OK);
    cr_expect_str_empty(err, "point: '%s'", err);

    size_t dim = 0;
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_phi_dim(c, "zoh", &dim, NULL, err, sizeof err), COSA_OK);
    cr_expect_str_empty(err, "phi_dim: '%s'", err);
    cr_assert(dim > 0 && dim < 64);

    double phi[64 * 64];
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_phi(c, "zoh", 1e-3, 0, phi, dim, err, sizeof err), COSA_OK);
    cr_expect_str_empty(err, "phi: '%s'", err);

    cosa_limit lim;
    cosa_crossing cross[4];
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_limit(c, "zoh", COSA_CRIT_STABLE, 0.01, 1e-6, 1e-2, 5, 0.0, &lim,
                                 cross, 4, err, sizeof err),
                 COSA_OK, "%s", err);
    cr_expect_str_empty(err, "limit: '%s'", err);

    const cosa_case_axis x = {"ck", 1e3, 1e5, 1, 2};
    double v[2];
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_map(c, "zoh", 1e-3, COSA_METRIC_RHO, &x, NULL, 0.0, 1, v, NULL, NULL,
                               err, sizeof err),
                 COSA_OK, "%s", err);
    cr_expect_str_empty(err, "map: '%s'", err);
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_map_rows(c, "zoh", 1e-3, COSA_METRIC_RHO, &x, NULL, 0.0, 1, 1, 2, v,
                                    NULL, NULL, err, sizeof err),
                 COSA_OK, "%s", err);
    cr_expect_str_empty(err, "map_rows: '%s'", err);

    cosa_case_advise_opts ao;
    cosa_case_advise_defaults(&ao);
    ao.tol = 1e-2;
    ao.schemes = "zoh,foh";
    cosa_advice adv[2];
    size_t n = 0;
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_advise(c, &ao, adv, 2, &n, NULL, err, sizeof err), COSA_OK, "%s",
                 err);
    cr_expect_str_empty(err, "advise: '%s'", err);

    cosa_case_sim *sim = NULL;
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_simulate(c, "zoh", 1e-3, 0.05, NULL, &sim, err, sizeof err), COSA_OK,
                 "%s", err);
    cr_expect_str_empty(err, "simulate: '%s'", err);
    cosa_case_sim_free(sim);

    /* a model file (the source tree's examples/twomass.cosa) */
    const char *srcdir = getenv("COSA_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/twomass.cosa", srcdir ? srcdir : ".");
    cosa_case *f = NULL;
    stale(err, sizeof err);
    cr_expect_eq(cosa_case_load(path, &f, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_str_empty(err, "load: '%s'", err);
    cosa_case_free(f);

    /* a failure after all that still writes its one line */
    cr_expect_eq(cosa_case_point(c, "zzz", 1e-3, 0.0, &pr, NULL, 0, err, sizeof err),
                 COSA_ESCHEME);
    cr_expect_str_not_empty(err);
    cr_expect_null(strchr(err, '\n'), "one line: '%s'", err);
    cosa_case_free(c);
}
