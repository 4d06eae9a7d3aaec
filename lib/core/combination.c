/* combination.c -- which coupling schemes a run's features combine with: the
 * one table of the rules that cosa simulate, the Phi commands' runnable check
 * (advise, the notes), point/map --energy, the fixed-step run (driver.c),
 * the master (master_check, its input builders' rows included) and the
 * iteration (iterate.c) all ask (cosa/internal/core.h:
 * cosa_combination_check). */
#include "cosa/core.h"

#include <stddef.h>

/* The scheme properties a rule refuses. */
static int iterates(const cosa_scheme *s)
{
    return cosa_iteration_of(s)->iterates; /* the coupling's iteration entry */
}

static int repeats(const cosa_scheme *s) /* imp:, gs-imp: */
{
    return cosa_iteration_of(s)->repeats;
}

static int one_sweep(const cosa_scheme *s) /* gs:P/Q */
{
    return cosa_iteration_of(s) == &cosa_iteration_one_sweep;
}

static int not_plain_jacobi(const cosa_scheme *s) /* gs:, corrections */
{
    return s->exec != COSA_JACOBI || s->corr != COSA_CORR_NONE;
}

static int corrected(const cosa_scheme *s) /* +ocorr/+ecorr/+mbcorr */
{
    return s->corr != COSA_CORR_NONE;
}

static int not_plain_jacobi_fixed_model(const cosa_scheme *s) /* ... or --assume */
{
    return not_plain_jacobi(s) || s->model;
}

static int not_plain_jacobi_explicit(const cosa_scheme *s) /* ... or iterations */
{
    return not_plain_jacobi(s) || iterates(s);
}

static int not_energy_paper(const cosa_scheme *s) /* ... or --assume, imp: */
{
    return not_plain_jacobi_fixed_model(s) || s->implicit;
}

/* A rule: the run has every feature of all, (any 0) one of any and none of
 * none, and the scheme is refused by bad (NULL: every scheme).  The reported feature is
 * the lowest bit of any that the run has (with any 0: names).  command: a rule of the
 * command line only (it offers the feature with plain Jacobi schemes; the
 * library runs more).  Order matters: the first rule broken is reported. */
typedef struct comb_entry {
    cosa_comb_rule rule;
    unsigned all, any, names;
    int (*bad)(const cosa_scheme *s);
    int command;
    const char *needs;
    unsigned none;
} comb_entry;

static const comb_entry rules[] = {
    {COSA_RULE_EVENTS, COSA_COMB_EVENTS, 0, COSA_COMB_EVENTS, not_plain_jacobi_explicit, 0,
     "a plain Jacobi scheme without corrections", 0},
    {COSA_RULE_EVENTS, COSA_COMB_EVENTS | COSA_COMB_MULTIRATE, 0, COSA_COMB_EVENTS, NULL, 0,
     "one step per unit (no --rate)", 0},
    {COSA_RULE_EVENTS, COSA_COMB_EVENTS | COSA_COMB_HELD, 0, COSA_COMB_EVENTS, NULL, 0,
     "--input poly", 0},
    {COSA_RULE_EVENTS, COSA_COMB_EVENTS | COSA_COMB_ENERGY, 0, COSA_COMB_EVENTS, NULL, 0,
     "no --energy", 0},
    {COSA_RULE_EVENTS, COSA_COMB_EVENTS | COSA_COMB_SAMPLE_MID, 0, COSA_COMB_EVENTS, NULL, 0,
     "no mid sample", 0},
    {COSA_RULE_ITERATES, 0,
     COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL | COSA_COMB_ENERGY_CORRECT, 0,
     iterates, 0,
     "iterates with given input polynomials from the reference start (no multi-rate, held "
     "inputs, start from x0 or energy correction)", 0},
    {COSA_RULE_ITERATES, 0, COSA_COMB_COUPLING_VARS | COSA_COMB_SAMPLE_MID, 0, iterates, 0,
     "iterates on units without coupling variables, without the mid sample", 0},
    {COSA_RULE_UNIT_STEPS, 0, COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL, 0,
     not_plain_jacobi_fixed_model, 1,
     "a plain Jacobi scheme (no gs:, no +ocorr/+ecorr/+mbcorr, no --assume)", 0},
    /* the master's unit steps (after the command's rule, which refuses more) */
    {COSA_RULE_UNIT_STEPS, 0, COSA_COMB_MULTIRATE | COSA_COMB_HELD, 0, not_plain_jacobi, 0,
     "a plain Jacobi scheme (no gs:, no +ocorr/+ecorr/+mbcorr)", 0},
    {COSA_RULE_UNIT_STEPS, COSA_COMB_SAMPLE_MID, COSA_COMB_MULTIRATE | COSA_COMB_HELD, 0, NULL, 0,
     "no mid sample", 0},
    {COSA_RULE_UNIT_STEPS, COSA_COMB_STEP_GAINS, COSA_COMB_MULTIRATE | COSA_COMB_HELD, 0, NULL, 0,
     "no gains by steps", 0},
    /* the master's start from x0 (cosa_master_init_initial): no history to
     * correct against */
    {COSA_RULE_UNIT_STEPS, 0, COSA_COMB_INITIAL, 0, corrected, 0, "no +ocorr/+ecorr/+mbcorr", 0},
    /* the master's input builders (lib/td/input_builder.h; held inputs are
     * the history's with COSA_COMB_HELD, whose rules are the unit steps'
     * and the events' above): what each composes with */
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_HISTORY, COSA_COMB_COUPLING_VARS, 0, NULL, 0,
     "history inputs: units without coupling variables", 0},
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_HISTORY | COSA_COMB_STEP_CHANGE, 0, COSA_COMB_STEP_CHANGE,
     NULL, 0, "history inputs: equidistant macro points (or event points)", COSA_COMB_EVENTS},
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_TAYLOR, 0, COSA_COMB_INPUT_TAYLOR, not_plain_jacobi, 0,
     "Taylor inputs: a plain Jacobi scheme (no gs:, no +ocorr/+ecorr/+mbcorr)", 0},
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_TAYLOR,
     COSA_COMB_COUPLING_VARS | COSA_COMB_MULTIRATE | COSA_COMB_HELD | COSA_COMB_INITIAL |
         COSA_COMB_EVENTS,
     0, NULL, 0,
     "Taylor inputs: units without coupling variables, one step per unit, polynomial "
     "inputs, the reference start, no event points", 0},
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_GIVEN, 0, COSA_COMB_INPUT_GIVEN, not_plain_jacobi, 0,
     "given inputs: a plain Jacobi scheme (no gs:, no +ocorr/+ecorr/+mbcorr)", 0},
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_GIVEN,
     COSA_COMB_HELD | COSA_COMB_EVENTS | COSA_COMB_SAMPLE_MID | COSA_COMB_STEP_GAINS, 0, NULL, 0,
     "given inputs: polynomial inputs, no event points, mid sample or gains by steps", 0},
    /* the caller's polynomial spans the macro step, and every unit takes it
     * in one step of H (input_given.c): a unit rate K > 1 would be ignored */
    {COSA_RULE_INPUTS, COSA_COMB_INPUT_GIVEN | COSA_COMB_MULTIRATE, 0, COSA_COMB_MULTIRATE, NULL,
     0, "given inputs: one step per unit (no unit rates)", 0},
    /* a short last step (end_clip.c): what assumes equal macro steps, the
     * reason as the phrase */
    {COSA_RULE_SHORT_LAST, COSA_COMB_SHORT_LAST, 0, COSA_COMB_SHORT_LAST, repeats, 0,
     "an iterative scheme iterates over equal macro steps", 0},
    {COSA_RULE_SHORT_LAST, COSA_COMB_SHORT_LAST | COSA_COMB_ITER_OPTS, 0, COSA_COMB_SHORT_LAST,
     NULL, 0, "an iterative scheme iterates over equal macro steps", 0},
    {COSA_RULE_SHORT_LAST, COSA_COMB_SHORT_LAST, 0, COSA_COMB_SHORT_LAST, one_sweep, 0,
     "gs:P/Q interpolates on equal macro steps", 0},
    {COSA_RULE_SHORT_LAST, COSA_COMB_SHORT_LAST, 0, COSA_COMB_SHORT_LAST, corrected, 0,
     "the output and state corrections' weights are for equal macro steps", 0},
    {COSA_RULE_SHORT_LAST, COSA_COMB_SHORT_LAST | COSA_COMB_ENERGY, 0, COSA_COMB_SHORT_LAST, NULL,
     0, "the energy indicators are sampled on the reference's macro grid", 0},
    {COSA_RULE_ENERGY_CORRECTION, COSA_COMB_ENERGY_CORRECT, 0, COSA_COMB_ENERGY_CORRECT,
     not_plain_jacobi, 0,
     "a plain Jacobi scheme (no gs:, no +ocorr/+ecorr/+mbcorr)", 0},
    {COSA_RULE_ENERGY_PHI, COSA_COMB_ENERGY_PHI, 0, COSA_COMB_ENERGY_PHI, not_energy_paper, 0,
     "plain Jacobi (no gs:, imp:, no +ocorr/+ecorr/+mbcorr, no --assume)", 0},
};

static unsigned lowest_bit(unsigned x)
{
    return x & (~x + 1u);
}

cosa_status cosa_combination_check(const cosa_scheme *s, unsigned features, int command,
                                   cosa_combination_refusal *why)
{
    if (!s)
        return COSA_EINVAL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const comb_entry *e = &rules[i];
        if ((e->command && !command) || (features & e->all) != e->all ||
            (e->any && !(features & e->any)) || (features & e->none) || (e->bad && !e->bad(s)))
            continue;
        if (why) {
            why->rule = e->rule;
            why->feature = e->any ? lowest_bit(features & e->any) : e->names;
            why->needs = e->needs;
        }
        return COSA_EUNSUPPORTED;
    }
    if (why)
        *why = (cosa_combination_refusal){.rule = COSA_RULE_NONE, .feature = 0, .needs = NULL};
    return COSA_OK;
}
