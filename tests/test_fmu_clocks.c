/* test_fmu_clocks.c -- the Clock variables of an FMI 3.0 model description
 * (lib/td/fmu_clocks.c) on the clocked test FMU of make check
 * (tests/fmu/sampler_fmu.c, COSA_FMUDIR) and its description variants:
 * the clocks, their intervals, the clocked variables and the optional clock
 * functions; a bad clocks reference or intervalVariability refused with
 * one line. */
#include <criterion/criterion.h>

#include "cosa.h"
#include "td/fmu_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cosa_status open_fmu(const char *name, cosa_fmu **f, char *err, size_t size)
{
    const char *d = getenv("COSA_FMUDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d ? d : "tests/fmu", name);
    return cosa_fmu_open(path, f, err, size);
}

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
    cr_assert_eq(open_fmu("sampler_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
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
    /* the clocked outputs are not continuous outputs of the unit */
    cr_expect_eq(cosa_fmu_noutput(f), 0);
    /* the optional clock functions the binary exports */
    cr_expect_not_null(f->f3.GetClock);
    cr_expect_not_null(f->f3.SetClock);
    cr_expect_not_null(f->f3.GetIntervalDecimal);
    cr_expect_not_null(f->f3.GetShiftDecimal);
    cr_expect_null(f->f3.SetIntervalDecimal);
    /* Clock variables are still listed with the variables cosa does not read */
    size_t nclock_other = 0;
    for (size_t i = 0; i < cosa_fmu_nother(f); i++)
        nclock_other += strcmp(cosa_fmu_other_at(f, i)->type, "Clock") == 0;
    cr_expect_eq(nclock_other, 2);
    cosa_fmu_close(f);
}

Test(fmu_clocks, counter_and_resolution)
{
    cosa_fmu *f = NULL;
    char err[512];
    cr_assert_eq(open_fmu("sampler_counter_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
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
    cr_assert_eq(open_fmu("twomass1_fmi3.fmu", &f, err, sizeof err), COSA_OK, "%s", err);
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
        cr_expect_eq(open_fmu(c[k].fmu, &f, err, sizeof err), COSA_EFMU, "%s", c[k].fmu);
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
