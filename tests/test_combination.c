/* test_combination.c -- the one table of combination rules
 * (lib/core/combination.c, cosa_combination_check): each rule against the
 * combinations the guide states (README "Events": event points need a plain
 * Jacobi scheme without corrections or iterations, one step per unit,
 * polynomial inputs, no energy; "Iterative coupling": iterative schemes take
 * given inputs from the reference start; "Energy": the correction and the
 * energy paper's Phi are plain Jacobi), the order in which a combination
 * breaking several rules is reported, the command-only rule, and the library:
 * a fixed-step run (cosa_run) refuses exactly the combinations the table
 * refuses without the command's rules. */
#include <criterion/criterion.h>

#include "cosa.h"

#include <string.h>

static cosa_scheme scheme(const char *text)
{
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse(text, &s), COSA_OK, "%s", text);
    return s;
}

/* refused: the rule, the feature it names and a phrase that contains want */
static void refused(const char *text, unsigned f, int command, cosa_comb_rule rule,
                    unsigned feature, const char *want)
{
    const cosa_scheme s = scheme(text);
    cosa_combination_refusal why;
    cr_expect_eq(cosa_combination_check(&s, f, command, &why), COSA_EUNSUPPORTED,
                 "%s with features %#x", text, f);
    cr_expect_eq(why.rule, rule, "%s %#x: rule %d, expected %d", text, f, why.rule, rule);
    cr_expect_eq(why.feature, feature, "%s %#x: feature %#x, expected %#x", text, f, why.feature,
                 feature);
    cr_expect(why.needs && strstr(why.needs, want), "%s %#x: '%s' lacks '%s'", text, f,
              why.needs ? why.needs : "(null)", want);
}

static void accepted(const char *text, unsigned f, int command)
{
    const cosa_scheme s = scheme(text);
    cosa_combination_refusal why = {.rule = COSA_RULE_EVENTS};
    cr_expect_eq(cosa_combination_check(&s, f, command, &why), COSA_OK, "%s with features %#x",
                 text, f);
    cr_expect_eq(why.rule, COSA_RULE_NONE);
    cr_expect_null(why.needs);
}

Test(combination, events)
{
    accepted("zoh", COSA_COMB_EVENTS, 1);
    accepted("p2", COSA_COMB_EVENTS | COSA_COMB_INITIAL, 1);
    const char *bad[] = {"foh+mbcorr", "zoh+ocorr", "gs:zoh", "imp:zoh", "gs-imp:foh", "gs:zoh/1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        refused(bad[i], COSA_COMB_EVENTS, 0, COSA_RULE_EVENTS, COSA_COMB_EVENTS,
                "a plain Jacobi scheme without corrections");
    refused("zoh", COSA_COMB_EVENTS | COSA_COMB_MULTIRATE, 0, COSA_RULE_EVENTS, COSA_COMB_EVENTS,
            "no --rate");
    refused("zoh", COSA_COMB_EVENTS | COSA_COMB_HELD, 0, COSA_RULE_EVENTS, COSA_COMB_EVENTS,
            "--input poly");
    refused("zoh", COSA_COMB_EVENTS | COSA_COMB_ENERGY, 0, COSA_RULE_EVENTS, COSA_COMB_EVENTS,
            "no --energy");
    /* the scheme first, then rate, held, energy: the order simulate reports */
    refused("gs:zoh", COSA_COMB_EVENTS | COSA_COMB_MULTIRATE | COSA_COMB_ENERGY, 1,
            COSA_RULE_EVENTS, COSA_COMB_EVENTS, "without corrections");
    refused("zoh", COSA_COMB_EVENTS | COSA_COMB_HELD | COSA_COMB_ENERGY, 1, COSA_RULE_EVENTS,
            COSA_COMB_EVENTS, "--input poly");
}

Test(combination, iterative_schemes)
{
    const unsigned each[] = {COSA_COMB_MULTIRATE, COSA_COMB_HELD, COSA_COMB_INITIAL,
                             COSA_COMB_ENERGY_CORRECT};
    const char *it[] = {"imp:zoh", "gs-imp:foh", "gs:zoh/1"};
    for (size_t k = 0; k < sizeof it / sizeof it[0]; k++) {
        accepted(it[k], 0, 1);
        accepted(it[k], COSA_COMB_ENERGY, 1); /* indicators only */
        for (size_t i = 0; i < 4; i++)
            refused(it[k], each[i], 0, COSA_RULE_ITERATES, each[i], "from the reference start");
        /* several: the first of --rate, --input held, --start initial, --mu */
        refused(it[k], COSA_COMB_ENERGY_CORRECT | COSA_COMB_INITIAL | COSA_COMB_HELD, 1,
                COSA_RULE_ITERATES, COSA_COMB_HELD, "iterates");
    }
    /* the same features on a plain explicit Jacobi scheme: fine */
    accepted("zoh", COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL |
                        COSA_COMB_ENERGY_CORRECT | COSA_COMB_ENERGY, 1);
}

Test(combination, command_rule)
{
    /* multi-rate, held inputs, start from x0 on gs: or a corrected scheme:
     * refused by the command, not by the library's rules */
    const char *bad[] = {"gs:zoh", "foh+mbcorr", "zoh+ecorr"};
    for (size_t i = 0; i < 3; i++) {
        refused(bad[i], COSA_COMB_INITIAL, 1, COSA_RULE_UNIT_STEPS, COSA_COMB_INITIAL,
                "no --assume");
        refused(bad[i], COSA_COMB_HELD | COSA_COMB_INITIAL, 1, COSA_RULE_UNIT_STEPS,
                COSA_COMB_HELD, "a plain Jacobi scheme");
        /* the library's rules (the master's): unit steps on plain Jacobi */
        refused(bad[i], COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL, 0,
                COSA_RULE_UNIT_STEPS, COSA_COMB_MULTIRATE, "a plain Jacobi scheme");
        refused(bad[i], COSA_COMB_HELD, 0, COSA_RULE_UNIT_STEPS, COSA_COMB_HELD, "no gs:");
    }
    /* from x0: Gauss-Seidel runs in the library, corrections do not */
    accepted("gs:zoh", COSA_COMB_INITIAL, 0);
    refused("foh+mbcorr", COSA_COMB_INITIAL, 0, COSA_RULE_UNIT_STEPS, COSA_COMB_INITIAL,
            "no +ocorr/+ecorr/+mbcorr");
    cosa_scheme s = scheme("zoh"); /* --assume: the scheme's fixed model */
    const cosa_system *model = (const cosa_system *)&s; /* any non-NULL pointer */
    s.model = model;
    cosa_combination_refusal why;
    cr_expect_eq(cosa_combination_check(&s, COSA_COMB_MULTIRATE, 1, &why), COSA_EUNSUPPORTED);
    cr_expect_eq(why.rule, COSA_RULE_UNIT_STEPS);
    cr_expect_eq(cosa_combination_check(&s, COSA_COMB_MULTIRATE, 0, &why), COSA_OK);
}

/* The master's and the iteration's rules (library only): event points and
 * unit steps take no mid sample or gains by steps; the sweeps take units
 * without coupling variables and no mid sample. */
Test(combination, master_rules)
{
    refused("zoh", COSA_COMB_EVENTS | COSA_COMB_SAMPLE_MID, 0, COSA_RULE_EVENTS, COSA_COMB_EVENTS,
            "no mid sample");
    accepted("zoh", COSA_COMB_EVENTS | COSA_COMB_STEP_GAINS, 0);
    refused("zoh", COSA_COMB_MULTIRATE | COSA_COMB_SAMPLE_MID, 0, COSA_RULE_UNIT_STEPS,
            COSA_COMB_MULTIRATE, "no mid sample");
    refused("zoh", COSA_COMB_HELD | COSA_COMB_STEP_GAINS, 0, COSA_RULE_UNIT_STEPS, COSA_COMB_HELD,
            "no gains by steps");
    accepted("foh+mbcorr", COSA_COMB_SAMPLE_MID | COSA_COMB_STEP_GAINS, 0);
    accepted("zoh", COSA_COMB_COUPLING_VARS, 0);
    const char *it[] = {"imp:zoh", "gs-imp:foh", "gs:zoh/1"};
    for (size_t k = 0; k < 3; k++) {
        refused(it[k], COSA_COMB_COUPLING_VARS, 0, COSA_RULE_ITERATES, COSA_COMB_COUPLING_VARS,
                "without coupling variables");
        refused(it[k], COSA_COMB_SAMPLE_MID, 0, COSA_RULE_ITERATES, COSA_COMB_SAMPLE_MID,
                "without the mid sample");
    }
}

/* The master's input builders' rows (input_builder.h names them by their
 * bit): history inputs need units without coupling variables and
 * equidistant macro points (a new step only with event points); Taylor
 * inputs plain Jacobi on one step per unit from the reference start;
 * given inputs plain Jacobi with polynomial inputs and no snapshots of the
 * step, but coupling variables, new steps and a start from x0. */
Test(combination, input_builders)
{
    const unsigned H = COSA_COMB_INPUT_HISTORY, T = COSA_COMB_INPUT_TAYLOR,
                   G = COSA_COMB_INPUT_GIVEN;
    refused("zoh", H | COSA_COMB_COUPLING_VARS, 0, COSA_RULE_INPUTS, COSA_COMB_COUPLING_VARS,
            "history inputs");
    refused("foh", H | COSA_COMB_STEP_CHANGE, 0, COSA_RULE_INPUTS, COSA_COMB_STEP_CHANGE,
            "equidistant");
    accepted("foh", H | COSA_COMB_STEP_CHANGE | COSA_COMB_EVENTS, 0);
    accepted("gs:foh+ocorr", H | COSA_COMB_SAMPLE_MID | COSA_COMB_STEP_GAINS, 0);
    refused("gs:zoh", T, 0, COSA_RULE_INPUTS, T, "Taylor inputs: a plain Jacobi");
    refused("foh+mbcorr", T, 0, COSA_RULE_INPUTS, T, "Taylor inputs: a plain Jacobi");
    const unsigned not_taylor[] = {COSA_COMB_COUPLING_VARS, COSA_COMB_MULTIRATE, COSA_COMB_HELD,
                                   COSA_COMB_INITIAL, COSA_COMB_EVENTS};
    for (size_t i = 0; i < sizeof not_taylor / sizeof not_taylor[0]; i++)
        refused("p2", T | not_taylor[i], 0, COSA_RULE_INPUTS, not_taylor[i], "Taylor inputs");
    accepted("p2", T | COSA_COMB_SAMPLE_MID | COSA_COMB_STEP_GAINS | COSA_COMB_STEP_CHANGE, 0);
    refused("gs:zoh", G, 0, COSA_RULE_INPUTS, G, "given inputs: a plain Jacobi");
    const unsigned not_given[] = {COSA_COMB_HELD, COSA_COMB_EVENTS, COSA_COMB_SAMPLE_MID,
                                  COSA_COMB_STEP_GAINS};
    for (size_t i = 0; i < sizeof not_given / sizeof not_given[0]; i++)
        refused("zoh", G | not_given[i], 0, COSA_RULE_INPUTS, not_given[i], "given inputs");
    refused("zoh", G | COSA_COMB_MULTIRATE, 0, COSA_RULE_INPUTS, COSA_COMB_MULTIRATE,
            "one step per unit");
    accepted("p3", G | COSA_COMB_COUPLING_VARS | COSA_COMB_STEP_CHANGE | COSA_COMB_INITIAL, 0);
}

/* A short last step (the end clip): the schemes and features that assume
 * equal macro steps, each with its reason, in the end clip's order
 * (iterations first, then gs:P/Q, corrections, energy indicators). */
Test(combination, short_last_step)
{
    const unsigned S = COSA_COMB_SHORT_LAST;
    accepted("p3", S, 0);
    accepted("gs:foh", S, 0);
    accepted("zoh", S | COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL, 0);
    refused("imp:zoh", S, 0, COSA_RULE_SHORT_LAST, S, "iterates over equal");
    refused("gs-imp:foh/2", S | COSA_COMB_ENERGY, 0, COSA_RULE_SHORT_LAST, S, "iterates over");
    refused("foh", S | COSA_COMB_ITER_OPTS, 0, COSA_RULE_SHORT_LAST, S, "iterates over");
    refused("gs:foh/2", S, 0, COSA_RULE_SHORT_LAST, S, "gs:P/Q interpolates");
    refused("gs:foh/2", S | COSA_COMB_ITER_OPTS, 0, COSA_RULE_SHORT_LAST, S, "iterates over");
    refused("foh+ocorr", S | COSA_COMB_ENERGY, 0, COSA_RULE_SHORT_LAST, S, "corrections' weights");
    refused("foh", S | COSA_COMB_ENERGY, 0, COSA_RULE_SHORT_LAST, S, "energy indicators");
    accepted("gs:foh/2", COSA_COMB_ENERGY, 0); /* without the short step: fine */
}

Test(combination, energy)
{
    refused("gs:zoh", COSA_COMB_ENERGY_CORRECT, 0, COSA_RULE_ENERGY_CORRECTION,
            COSA_COMB_ENERGY_CORRECT, "no gs:");
    refused("foh+mbcorr", COSA_COMB_ENERGY_CORRECT, 0, COSA_RULE_ENERGY_CORRECTION,
            COSA_COMB_ENERGY_CORRECT, "+mbcorr");
    accepted("gs:zoh", COSA_COMB_ENERGY, 1); /* the indicators take any scheme */
    accepted("p1", COSA_COMB_ENERGY_PHI, 1);
    const char *bad[] = {"gs:zoh", "imp:zoh", "foh+mbcorr"};
    for (size_t i = 0; i < 3; i++)
        refused(bad[i], COSA_COMB_ENERGY_PHI, 0, COSA_RULE_ENERGY_PHI, COSA_COMB_ENERGY_PHI,
                "no gs:, imp:");
}

Test(combination, arguments)
{
    cr_expect_eq(cosa_combination_check(NULL, 0, 0, NULL), COSA_EINVAL);
    const cosa_scheme s = scheme("imp:zoh");
    cr_expect_eq(cosa_combination_check(&s, COSA_COMB_INITIAL, 0, NULL), COSA_EUNSUPPORTED);
    cr_expect_eq(cosa_combination_check(&s, 0, 0, NULL), COSA_OK);
}

/* The library asks the same table: a fixed-step run from x0 (start_initial)
 * on the built-in twomass is refused (COSA_EUNSUPPORTED) exactly for the
 * schemes the table refuses it, and runs for the others. */
Test(combination, fixed_run_asks_the_table)
{
    const cosa_model *m = cosa_model_find("twomass");
    cr_assert_not_null(m);
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
    cosa_unitset *set = cosa_model_units_set(mu);
    const double H = 1e-4;
    const size_t N = 20;
    cosa_reftraj *ref = NULL;
    /* samples for the start-up of order p <= 2 on the reference (start_initial
     * reads none after t = 0, but the description is checked for them) */
    cr_assert_eq(cosa_reftraj_exact(sys, x0, H, N + 3, &ref), COSA_OK);
    const char *schemes[] = {"zoh", "foh", "imp:zoh", "gs-imp:zoh", "gs:zoh/1", "gs:foh",
                             "foh+mbcorr"};
    for (size_t k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
        const cosa_scheme s = scheme(schemes[k]);
        for (size_t i = 0; i < cosa_unitset_count(set); i++) {
            size_t ox;
            cosa_unitset_offsets(set, i, &ox, NULL, NULL);
            cr_assert_eq(cosa_unit_set_state(cosa_unitset_unit(set, i), 0.0, x0 + ox), COSA_OK);
        }
        cosa_run_opts o;
        cosa_run_opts_default(&o);
        o.scheme = s;
        o.tend = (double)N * H;
        o.start_initial = 1;
        const cosa_run_ref r = {.traj = ref};
        cosa_run_result *res = NULL;
        const cosa_status want = cosa_combination_check(&s, COSA_COMB_INITIAL, 0, NULL);
        const cosa_status got = cosa_run(set, &o, &r, &res);
        cr_expect_eq(got, want, "%s from x0: cosa_run %d, the table %d", schemes[k], got, want);
        cosa_run_result_free(res);
    }
    cosa_reftraj_free(ref);
    cosa_model_units_free(mu);
    cosa_system_free(sys);
}
