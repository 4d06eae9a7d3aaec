/* test_ecco.c -- the ECCO step-size law (lib/td/ecco.c) against libcosim's
 * ecco_algorithm::adjust_step_size evaluated by hand here: the first step is
 * not adjusted, the error estimate's scaling, the PI law with err_prev = 1
 * at the start, the change-rate and step clamps, the zero-error rule and
 * the nanosecond truncation.  The expected steps are written as the
 * formula's own terms (closed form), computed independently of ecco.c. */
#include "cosa.h"

#include <criterion/criterion.h>
#include <math.h>

/* The quarter truck's EccoConfiguration (libcosim's test data). */
static cosa_ecco_params qt(void)
{
    return (cosa_ecco_params){.h0 = 1e-4, .hmin = 1e-5, .hmax = 1e-2, .safety = 0.99,
                              .rate_min = 0.2, .rate_max = 1.5, .kp = 0.2, .ki = 0.15,
                              .rtol = 1e-6, .atol = 1e-6};
}

Test(ecco, first_step_kept_and_nanoseconds)
{
    cosa_ecco_params p = qt();
    cosa_ecco_state s;
    cr_assert_eq(cosa_ecco_reset(&p, &s), COSA_OK);
    cr_assert_eq(s.h_ns, 100000);
    cr_assert_eq(s.hmin_ns, 10000);
    cr_assert_eq(s.hmax_ns, 10000000);
    double r = 5.0, err;
    cr_assert_eq(cosa_ecco_adjust(&p, &s, 0, 1, &r, &err), COSA_OK);
    cr_assert(isnan(err)); /* step 1: libcosim adjusts from the second step on */
    cr_assert_eq(s.h_ns, 100000);
}

Test(ecco, pi_law_one_bond)
{
    cosa_ecco_params p = qt();
    cosa_ecco_state s;
    cosa_ecco_reset(&p, &s);
    double r = 0.02, err; /* r dt = 2e-6: err ~ 2, inside the rate clamps */
    cosa_ecco_adjust(&p, &s, 0, 1, &r, &err); /* step 1 */
    /* step 2 from t = 1e-4 s: one bond, the energy level is its own
     * residual: err = r dt / (atol + rtol r dt) */
    const long long t = 100000;
    const double dt = (double)(t + 100000) / 1e9 - (double)t / 1e9;
    const double e = r * dt / (1e-6 + 1e-6 * r * dt);
    cr_assert_eq(cosa_ecco_adjust(&p, &s, t, 1, &r, &err), COSA_OK);
    cr_assert_eq(err, e);
    /* gain = 0.99 e^-(0.15+0.2) 1^0.2, inside [0.2, 1.5] here */
    const double g = 0.99 * pow(e, -0.35);
    cr_assert(g > 0.2 && g < 1.5, "g = %g", g);
    cr_assert_eq(s.h_ns, (long long)(g * dt * 1e9));
    /* step 3: err_prev = e enters with exponent kp */
    const long long h3 = s.h_ns, t3 = t + 100000;
    const double dt3 = (double)(t3 + h3) / 1e9 - (double)t3 / 1e9;
    double r3 = 0.005;
    const double e3 = r3 * dt3 / (1e-6 + 1e-6 * r3 * dt3);
    cosa_ecco_adjust(&p, &s, t3, 1, &r3, &err);
    double g3 = 0.99 * pow(e3, -0.35) * pow(e, 0.2);
    g3 = g3 < 0.2 ? 0.2 : g3 > 1.5 ? 1.5 : g3;
    long long h = (long long)(g3 * dt3 * 1e9);
    h = h < 10000 ? 10000 : h > 10000000 ? 10000000 : h;
    cr_assert_eq(s.h_ns, h);
}

Test(ecco, clamps_and_zero_error)
{
    cosa_ecco_params p = qt();
    cosa_ecco_state s;
    cosa_ecco_reset(&p, &s);
    double tiny = 1e-30, big = 1e30, zero = 0.0, err;
    cosa_ecco_adjust(&p, &s, 0, 1, &tiny, &err);
    /* a tiny error: the change rate is capped at 1.5 (1.5 x 1e-4 s, which is
     * 149999 or 150000 ns after the truncation of the double product) */
    cosa_ecco_adjust(&p, &s, 100000, 1, &tiny, &err);
    cr_assert(s.h_ns == 150000 || s.h_ns == 149999, "%lld", s.h_ns);
    /* a huge one: the rate floor 0.2 */
    const long long h = s.h_ns;
    cosa_ecco_adjust(&p, &s, 200000, 1, &big, &err);
    cr_assert(llabs(s.h_ns - h / 5) <= 1, "%lld vs %lld", s.h_ns, h / 5);
    /* a zero error keeps the step and becomes err_prev; the next nonzero
     * error then keeps it too (libcosim's prev == 0 rule) */
    const long long h2 = s.h_ns;
    cosa_ecco_adjust(&p, &s, 400000, 1, &zero, &err);
    cr_assert_eq(err, 0.0);
    cr_assert_eq(s.h_ns, h2);
    cosa_ecco_adjust(&p, &s, 500000, 1, &big, &err);
    cr_assert_eq(s.h_ns, h2);
    cr_assert_eq(s.prev_err, err);
    /* the step floor: repeated huge errors end at hmin */
    for (int k = 0; k < 20; k++)
        cosa_ecco_adjust(&p, &s, 600000 + k, 1, &big, &err);
    cr_assert_eq(s.h_ns, 10000);
}

Test(ecco, several_bonds_rms)
{
    cosa_ecco_params p = qt();
    cosa_ecco_state s;
    cosa_ecco_reset(&p, &s);
    double r[2] = {2.0, 1.0}, err;
    cosa_ecco_adjust(&p, &s, 0, 2, r, &err);
    cosa_ecco_adjust(&p, &s, 100000, 2, r, &err);
    const double dt = (double)200000 / 1e9 - (double)100000 / 1e9;
    const double level = 2.0 * dt, sc = 1e-6 + 1e-6 * level;
    const double a = 2.0 * dt / sc, b = 1.0 * dt / sc;
    cr_assert_eq(err, sqrt((a * a + b * b) / 2.0));
}

Test(ecco, bad_parameters)
{
    cosa_ecco_params p = qt();
    cosa_ecco_state s;
    p.h0 = 1e-6; /* below hmin */
    cr_assert_eq(cosa_ecco_reset(&p, &s), COSA_ERANGE);
    p = qt();
    p.rate_min = 2.0; /* above rate_max */
    cr_assert_eq(cosa_ecco_reset(&p, &s), COSA_ERANGE);
    p = qt();
    p.kp = NAN;
    cr_assert_eq(cosa_ecco_reset(&p, &s), COSA_ENONFINITE);
    p = qt();
    p.hmin = 1e-10; /* 0 ns */
    cr_assert_eq(cosa_ecco_reset(&p, &s), COSA_ERANGE);
}
