/* test_fmu_clocks.c -- the Clock variables of an FMI 3.0 model description
 * (lib/td/fmu_clocks.c) on the clocked test FMU of make check
 * (tests/fmu/sampler_fmu.c, COSA_FMUDIR) and its description variants:
 * the clocks, their intervals, the clocked variables and the optional clock
 * functions; a bad clocks reference or intervalVariability refused with
 * one line. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/evolve.h"
#include "td/fmu_impl.h"
#include "testutil.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const cosa_fmu_var *var_named(const cosa_fmu *f, const char *name)
{
    for (size_t i = 0; i < cosa_fmu_nvar(f); i++)
        if (strcmp(cosa_fmu_var_at(f, i)->name, name) == 0)
            return cosa_fmu_var_at(f, i);
    cr_assert_fail("no variable %s", name);
    return NULL;
}

Test(fmu_clocks, the_sampler_clocks_as_described)
{
    cosa_fmu *f = NULL;
    char err[512];
    cr_assert_eq(tu_fmu_open("sampler_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
    cr_expect(cosa_fmu_caps(f) & COSA_FMU_CAP_CLOCKS);
    cr_expect(cosa_fmu_caps(f) & COSA_FMU_CAP_EVENT_MODE);
    cr_assert_eq(cosa_fmu_nclock(f), 2);
    const cosa_fmu_clock *tick = cosa_fmu_clock_at(f, 0), *alarm = cosa_fmu_clock_at(f, 1);
    cr_expect_null(cosa_fmu_clock_at(f, 2));
    cr_expect_str_eq(tick->name, "tick");
    cr_expect_eq(tick->vr, 10u);
    cr_expect_eq(tick->causality, COSA_FMU_INPUT);
    cr_expect_eq(tick->interval_variability, COSA_FMU_CLOCK_CONSTANT);
    cr_expect(tick->periodic);
    /* the description's decimal "0.1", read by strtod as the literal is */
    cr_expect_eq(tick->interval, 0.1);
    cr_expect_eq(tick->shift, 0.0);
    cr_expect_eq(tick->priority, -1);
    cr_expect_str_eq(alarm->name, "alarm");
    cr_expect_eq(alarm->causality, COSA_FMU_OUTPUT);
    cr_expect_eq(alarm->interval_variability, COSA_FMU_CLOCK_TRIGGERED);
    cr_expect_not(alarm->periodic);
    cr_expect(isnan(alarm->interval));
    /* the clocked variables point at their clocks; u is not clocked */
    const cosa_fmu_var *y = var_named(f, "y"), *count = var_named(f, "count");
    cr_assert_eq(y->nclocks, 1);
    cr_expect_eq(y->clocks[0], 0u);
    cr_assert_eq(count->nclocks, 1);
    cr_expect_eq(count->clocks[0], 1u);
    cr_expect_eq(var_named(f, "u")->nclocks, 0);
    cr_expect_null(var_named(f, "u")->clocks);
    /* the clocked outputs are outputs of the unit (held between ticks) */
    cr_assert_eq(cosa_fmu_noutput(f), 2);
    cr_expect_str_eq(cosa_fmu_var_at(f, cosa_fmu_output(f, 0))->name, "y");
    cr_expect_str_eq(cosa_fmu_var_at(f, cosa_fmu_output(f, 1))->name, "count");
    cr_expect_eq(cosa_fmu_ninput(f), 1);
    /* the optional clock functions the binary exports */
    cr_expect_not_null(f->f3.GetClock);
    cr_expect_not_null(f->f3.SetClock);
    cr_expect_not_null(f->f3.GetIntervalDecimal);
    cr_expect_not_null(f->f3.GetShiftDecimal);
    cr_expect_null(f->f3.SetIntervalDecimal);
    /* one clock parser: the Clock variables are the clock list's, not
     * listed again with the variables cosa does not read */
    size_t nclock_other = 0;
    for (size_t i = 0; i < cosa_fmu_nother(f); i++)
        nclock_other += strstr(cosa_fmu_other_at(f, i)->type, "Clock") != NULL;
    cr_expect_eq(nclock_other, 0);
    cr_expect(cosa_fmu_caps(f) & COSA_FMU_CAP_CLOCKS);
    cosa_fmu_close(f);
}

Test(fmu_clocks, counter_and_resolution)
{
    cosa_fmu *f = NULL;
    char err[512];
    cr_assert_eq(tu_fmu_open("sampler_counter_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
    const cosa_fmu_clock *tick = cosa_fmu_clock_at(f, 0);
    cr_assert_not_null(tick);
    /* intervalCounter 1 / resolution 10 and shiftCounter 3 / 10: one
     * correctly rounded division each, equal to the decimals' nearest doubles */
    cr_expect_eq(tick->interval, 1.0 / 10.0);
    cr_expect_eq(tick->shift, 3.0 / 10.0);
    cosa_fmu_close(f);
}

Test(fmu_clocks, no_clocks_no_list)
{
    cosa_fmu *f = NULL;
    char err[512];
    cr_assert_eq(tu_fmu_open("twomass1_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
    cr_expect_eq(cosa_fmu_nclock(f), 0);
    cr_expect_null(cosa_fmu_clock_at(f, 0));
    for (size_t i = 0; i < cosa_fmu_nvar(f); i++)
        cr_expect_eq(cosa_fmu_var_at(f, i)->nclocks, 0);
    cr_expect_null(f->f3.GetClock);
    cr_expect_eq(cosa_fmu_nclock(NULL), 0);
    cosa_fmu_close(f);
}

Test(fmu_clocks, bad_descriptions_one_line)
{
    static const struct {
        const char *fmu, *msg;
    } c[] = {{"sampler_badclock_fmi3.fmu", "variable 'count': clocks names 99, which is no Clock"},
             {"sampler_badiv_fmi3.fmu",
              "Clock 'tick': missing or bad intervalVariability 'often'"}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        cosa_fmu *f = NULL;
        char err[512];
        cr_expect_eq(tu_fmu_open(c[k].fmu, &f, err, sizeof err), COSA_EFMU, "%s", c[k].fmu);
        cr_expect_null(f);
        cr_expect(strstr(err, c[k].msg) != NULL, "%s: %s", c[k].fmu, err);
        cr_expect_null(strchr(err, '\n'));
    }
}

Test(fmu_clocks, interval_variability_names)
{
    static const char *const want[] = {"constant", "fixed",     "calculated", "tunable",
                                       "changing", "countdown", "triggered"};
    for (int i = 0; i < 7; i++)
        cr_expect_str_eq(cosa_fmu_interval_variability_name(i), want[i]);
    cr_expect_str_eq(cosa_fmu_interval_variability_name(7), "?");
    cr_expect_str_eq(cosa_fmu_interval_variability_name(-1), "?");
}

/* An instance of the sampler in Event Mode after initialisation at t0 (the
 * test drives the FMI calls itself, as the unit does). */
static void *sampler_instance(cosa_fmu *f, double t0)
{
    void *inst = f->f3.InstantiateCoSimulation("s", cosa_fmu_token(f), "", false, false, true,
                                               false, NULL, 0, NULL, NULL, NULL);
    cr_assert_not_null(inst);
    cr_assert_eq(f->f3.EnterInitializationMode(inst, false, 0.0, t0, false, 0.0), fmi3OK);
    cr_assert_eq(f->f3.ExitInitializationMode(inst), fmi3OK);
    return inst;
}

/* Event Mode at t: activate, update, collect, back to Step Mode (the
 * event functions looked up here: the importer's table is lib/td/fmu.c's). */
static size_t event_at(cosa_fmu *f, void *inst, fmu_clock_sched *c, double t, int enter)
{
    int (*enter_event)(void *) = (int (*)(void *))dlsym(f->lib, "fmi3EnterEventMode");
    int (*enter_step)(void *) = (int (*)(void *))dlsym(f->lib, "fmi3EnterStepMode");
    int (*update)(void *, bool *, bool *, bool *, bool *, bool *, double *) =
        (int (*)(void *, bool *, bool *, bool *, bool *, bool *, double *))dlsym(
            f->lib, "fmi3UpdateDiscreteStates");
    cr_assert(enter_event && enter_step && update);
    size_t nact = 0;
    bool again, term, nom, val, def;
    double next;
    if (enter)
        cr_assert_eq(enter_event(inst), fmi3OK, "t = %.17g", t);
    cr_assert_eq(fmu_clock_sched_activate(c, f, inst, t, &nact), 0, "t = %.17g", t);
    cr_assert_eq(update(inst, &again, &term, &nom, &val, &def, &next), fmi3OK);
    cr_assert_eq(fmu_clock_sched_collect(c, f, inst, t), 0);
    cr_assert_eq(enter_step(inst), fmi3OK);
    return nact;
}

Test(fmu_clocks, the_schedule_ticks_at_k_times_the_interval)
{
    cosa_fmu *f = NULL;
    char err[512], why[256];
    cr_assert_eq(tu_fmu_open("sampler_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
    void *inst = sampler_instance(f, 0.0);
    fmu_clock_sched c = {0};
    const char *fn = NULL;
    cr_assert_eq(fmu_clock_sched_init(&c, f, inst, 0.0, &fn, why, sizeof why), 0, "%s", why);
    /* the run reaches each tick once as the schedule's own k T and once as
     * a sum of two steps (t + h, one more rounding): the FMU itself refuses
     * a tick at any other time than k T and a step across a tick */
    double t = 0.0;
    const int N = 37;
    void *before = NULL;
    for (int k = 0; k <= N; k++) {
        if (k == 1)
            cr_assert_eq(f->f3.GetFMUState(inst, &before), fmi3OK);
        cr_expect_eq(event_at(f, inst, &c, t, k > 0), 1, "tick %d at %.17g", k, t);
        /* a second Event Mode at the same time activates nothing */
        cr_expect_eq(event_at(f, inst, &c, t, 1), 0, "tick %d again", k);
        const double next = fmu_clock_sched_next(&c, t);
        cr_expect_eq(next, (k + 1) * 0.1, "next after tick %d: %.17g", k, next);
        const double mid = t + 0.37 * (next - t);
        cr_expect_eq(fmu_clock_sched_next(&c, mid), next, "next from inside the interval");
        bool ev, term, early;
        double last;
        cr_assert_eq(f->f3.DoStep(inst, t, mid - t, false, &ev, &term, &early, &last), fmi3OK);
        cr_assert_eq(f->f3.DoStep(inst, mid, next - mid, false, &ev, &term, &early, &last),
                     fmi3OK, "step to tick %d", k + 1);
        t = mid + (next - mid);
    }
    /* every tick activated once; the output clock every fifth tick (k = 0,
     * 5, ..., 35: 8 of them), as the FMU's clocked count says */
    cr_expect_eq(c.ticks[0], (unsigned long)N + 1);
    cr_expect_eq(c.ticks[1], (unsigned long)(N / 5 + 1));
    const fmi3ValueReference vr = 4;
    double count = 0.0;
    cr_expect_eq(f->f3.GetFloat64(inst, &vr, 1, &count, 1), fmi3OK);
    cr_expect_eq(count, (double)c.ticks[1]);
    /* restored to before tick 1, the same time activates again (the FMU
     * refuses a tick it has had) */
    cr_assert_eq(f->f3.SetFMUState(inst, before), fmi3OK);
    fmu_clock_sched_forget(&c);
    cr_expect_eq(event_at(f, inst, &c, 0.1, 1), 1, "tick 1 after the restore");
    f->f3.FreeFMUState(inst, &before);
    f->f3.FreeInstance(inst);
    fmu_clock_sched_free(&c);
    cosa_fmu_close(f);
}

Test(fmu_clocks, the_schedule_with_a_shift)
{
    cosa_fmu *f = NULL;
    char err[512], why[256];
    cr_assert_eq(tu_fmu_open("sampler_counter_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
    void *inst = sampler_instance(f, 0.0);
    fmu_clock_sched c = {0};
    const char *fn = NULL;
    cr_assert_eq(fmu_clock_sched_init(&c, f, inst, 0.0, &fn, why, sizeof why), 0, "%s", why);
    /* shift 3/10, interval 1/10: t_k = 0.3 + k 0.1 */
    cr_expect_eq(fmu_clock_sched_next(&c, 0.0), 0.3);
    cr_expect_eq(fmu_clock_sched_next(&c, 0.3), 0.3 + 1 * 0.1);
    cr_expect_eq(fmu_clock_sched_next(&c, 0.95), 0.3 + 7 * 0.1);
    /* from a later start the grid starts there */
    fmu_clock_sched_free(&c);
    cr_assert_eq(fmu_clock_sched_init(&c, f, inst, 2.0, &fn, why, sizeof why), 0, "%s", why);
    cr_expect_eq(fmu_clock_sched_next(&c, 2.0), 2.0 + 0.3);
    f->f3.FreeInstance(inst);
    fmu_clock_sched_free(&c);
    cosa_fmu_close(f);
}

/* ---- a triggered input clock driven by another FMU's output clock --------------- */

#define NPT 128
typedef struct trig_run {
    size_t n;
    double t[NPT], y[NPT][5];
} trig_run;

static cosa_status trig_rec(const cosa_master *m, void *user)
{
    trig_run *r = user;
    if (r->n < NPT) {
        cosa_master_get(m, &r->t[r->n], NULL, NULL, r->y[r->n], NULL, NULL);
        r->n++;
    }
    return COSA_OK;
}

/* S1 (periodic tick, T = 0.1) and S2 (its tick triggered) both sample the
 * lag L, which S1 drives; with link, S1's output clock alarm (every fifth
 * tick) triggers S2's tick.  ZOH, H = 0.05 over [0, 2], events on. */
static void trig_net(int link, trig_run *r)
{
    const char *names[3] = {"sampler_fmi3.fmu", "sampler_trig_fmi3.fmu", "lag_fmi3.fmu"};
    cosa_fmu *f[3];
    cosa_unit *u[3];
    for (int i = 0; i < 3; i++) {
        char err[512];
        cr_assert_eq(tu_fmu_open(names[i], &f[i], err, sizeof err), COSA_OK, "%s", err);
        cr_assert_eq(cosa_unit_fmu_create(f[i], names[i], &u[i]), COSA_OK);
        if (i < 2)
            cr_assert_eq(cosa_unit_fmu_set_events(u[i], 1), COSA_OK, "%s",
                         cosa_unit_message(u[i]));
    }
    if (link)
        cr_assert_eq(cosa_unit_fmu_clock_link(u[0], "alarm", u[1], "tick"), COSA_OK);
    /* outputs S1.y S1.count S2.y S2.count L.y; inputs S1.u S2.u L.u */
    double L[15] = {0};
    L[0 + 4 * 3] = 1.0; /* S1.u = L.y */
    L[1 + 4 * 3] = 1.0; /* S2.u = L.y */
    L[2 + 0 * 3] = 1.0; /* L.u = S1.y */
    cosa_unitset *set;
    cr_assert_eq(cosa_unitset_create(3, u, L, NULL, &set), COSA_OK);
    cosa_scheme s;
    cr_assert_eq(cosa_scheme_parse("zoh", &s), COSA_OK);
    const cosa_master_opts mo = {.events = 1};
    cosa_master *m;
    cr_assert_eq(cosa_master_create(set, &s, 0.05, &mo, &m), COSA_OK);
    memset(r, 0, sizeof *r);
    const cosa_observer obs = {trig_rec, trig_rec, r};
    cosa_master_add_observer(m, &obs);
    double x0[1], y0[5];
    cosa_unit_get_state(u[2], NULL, x0);
    for (int i = 0, k = 0; i < 3; k += (int)cosa_unit_ny(u[i]), i++)
        cosa_unit_get_output(u[i], y0 + k);
    cr_assert_eq(cosa_master_init(m, 0.0, x0, y0, NULL), COSA_OK);
    evolve_fixed fx;
    evolve_fixed_steps(&fx, 0.0, 0, 40, 0.05, 0.0);
    const evolve_config c = {.stepper = &evolve_stepper_master, .stepper_ctx = m,
                             .controller = &evolve_controller_fixed, .controller_ctx = &fx};
    evolve_stats st;
    cr_assert_eq(evolve_run(&c, &st), COSA_OK, "%s", cosa_unit_message(u[1]));
    cosa_master_free(m);
    cosa_unitset_free(set);
    for (int i = 0; i < 3; i++) {
        cosa_unit_free(u[i]);
        cosa_fmu_close(f[i]);
    }
}

Test(fmu_clocks, a_triggered_input_clock_follows_a_linked_output_clock)
{
    trig_run r;
    trig_net(1, &r);
    cr_assert_eq(r.n, 41);
    size_t nchange = 0;
    for (size_t i = 0; i < r.n; i++) {
        /* S1's alarm ticks at k = 0, 5, 10, 15, 20: t = 0.5 j (to the grid's
         * rounding, 1e-9); S2 samples the lag there: y2 = -K x (exact) */
        const double j = floor(r.t[i] / 0.5 + 0.5);
        const int alarm = fabs(r.t[i] - 0.5 * j) <= 1e-9;
        if (alarm)
            cr_expect_eq(r.y[i][2], -2.0 * r.y[i][4], "S2 at its tick %.17g", r.t[i]);
        if (i > 0 && r.y[i][2] != r.y[i - 1][2]) {
            nchange++;
            cr_expect(alarm, "S2's output changes at %.17g, no alarm tick", r.t[i]);
        }
        /* S2's own output clock ticks at its first tick only: count 1 */
        cr_expect_eq(r.y[i][3], 1.0, "S2's count at %.17g", r.t[i]);
    }

    /* without the link S2's clock never ticks: its output stays at its start 0 */
    trig_net(0, &r);
    for (size_t i = 0; i < r.n; i++)
        cr_expect_eq(r.y[i][2], 0.0, "unlinked S2 at %.17g", r.t[i]);
}

Test(fmu_clocks, clock_links_checked)
{
    cosa_fmu *f[2];
    cosa_unit *u[2];
    const char *names[2] = {"sampler_fmi3.fmu", "sampler_trig_fmi3.fmu"};
    for (int i = 0; i < 2; i++) {
        char err[512];
        cr_assert_eq(tu_fmu_open(names[i], &f[i], err, sizeof err), COSA_OK, "%s", err);
        cr_assert_eq(cosa_unit_fmu_create(f[i], NULL, &u[i]), COSA_OK);
    }
    cr_expect_eq(cosa_unit_fmu_clock_link(u[0], "nope", u[1], "tick"), COSA_EPARAM);
    cr_expect_eq(cosa_unit_fmu_clock_link(u[0], "alarm", u[1], "nope"), COSA_EPARAM);
    /* a periodic input clock is the importer's, not a link's */
    cr_expect_eq(cosa_unit_fmu_clock_link(u[1], "alarm", u[0], "tick"), COSA_EINVAL);
    /* an input clock as the source, an output clock as the target */
    cr_expect_eq(cosa_unit_fmu_clock_link(u[0], "tick", u[1], "tick"), COSA_EINVAL);
    cr_expect_eq(cosa_unit_fmu_clock_link(u[0], "alarm", u[1], "alarm"), COSA_EINVAL);
    cr_expect_eq(cosa_unit_fmu_clock_link(NULL, "alarm", u[1], "tick"), COSA_EINVAL);
    cr_expect_eq(cosa_unit_fmu_clock_link(u[0], "alarm", u[1], "tick"), COSA_OK);
    for (int i = 0; i < 2; i++) {
        cosa_unit_free(u[i]);
        cosa_fmu_close(f[i]);
    }
}

/* ---- `connect clock` in a model file (models/modelfile_clock.c) and the unit-set
 * builder that links it (models/unitset_build.c) -------------------------------- */

Test(fmu_clocks, a_model_file_clock_connection_is_linked_by_the_unit_set_builder)
{
    const char *d = getenv("COSA_FMUDIR");
    d = d ? d : "tests/fmu";
    char text[9000], err[512];
    snprintf(text, sizeof text,
             "model tr\nfmu S1 = %s/sampler_fmi3.fmu\nfmu S2 = %s/sampler_trig_fmi3.fmu\n"
             "fmu L = %s/lag_fmi3.fmu\nconnect L.y -> S1.u, S2.u\nconnect S1.y -> L.u\n"
             "connect clock S1.alarm -> S2.tick\n", d, d, d);
    cosa_model *m = NULL;
    cr_assert_eq(cosa_model_file_parse(text, strlen(text), "tr", &m, err, sizeof err), COSA_OK,
                 "%s", err);
    /* the connection as written: subsystems 0 -> 1, the FMUs' own clock names */
    cr_assert_eq(cosa_model_file_nclock_link(m), 1u);
    size_t a = 9, b = 9;
    const char *out = NULL, *in = NULL;
    cr_assert_eq(cosa_model_file_clock_link(m, 0, &a, &out, &b, &in), COSA_OK);
    cr_expect_eq(a, 0u);
    cr_expect_eq(b, 1u);
    cr_expect_str_eq(out, "alarm");
    cr_expect_str_eq(in, "tick");
    cr_expect_eq(cosa_model_file_clock_link(m, 1, &a, &out, &b, &in), COSA_EINVAL);
    cr_expect_eq(cosa_model_file_nclock_link(cosa_model_find("twomass")), 0u);
    /* the units: S2's triggered tick is driven once, nothing else is */
    double *par = calloc(m->nparam + 1, sizeof *par);
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    cr_assert_eq(m->create(m, par, &sys), COSA_OK);
    cosa_integrator ex;
    cr_assert_eq(cosa_integrator_parse("exact", &ex), COSA_OK);
    cosa_model_units_opts uo = {.integ = &ex, .sys = sys};
    cosa_model_units *mu = NULL;
    cr_assert_eq(cosa_model_units_create(m, par, &uo, &mu, NULL), COSA_OK);
    cosa_unit *const *u = cosa_model_units_units(mu);
    cr_expect_eq(cosa_unit_fmu_clock_driven(u[1], "tick"), 1u);
    cr_expect_eq(cosa_unit_fmu_clock_driven(u[0], "tick"), 0u);
    cr_expect_eq(cosa_unit_fmu_clock_driven(u[1], "alarm"), 0u);
    cr_expect_eq(cosa_unit_fmu_clock_driven(u[1], "nope"), 0u);
    cr_expect_eq(cosa_unit_fmu_clock_driven(u[2], "tick"), 0u); /* no clocks */
    cosa_model_units_free(mu);
    /* the FMUs as their linearisation: no FMU units, nothing to link */
    uo.fmu_linearized = 1;
    cr_assert_eq(cosa_model_units_create(m, par, &uo, &mu, NULL), COSA_OK);
    cr_expect_eq(cosa_unit_fmu_clock_driven(cosa_model_units_units(mu)[1], "tick"), 0u);
    cosa_model_units_free(mu);
    cosa_system_free(sys);
    free(par);
    cosa_model_free(m);
}
