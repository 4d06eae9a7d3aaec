/* crane.c -- the energy paper's hydraulic crane (section 4.4, Figs 17-18),
 * with the equations and parameters of the public co-simulation benchmark
 * "2-d.o.f. hydraulic manipulator" (Universidade da Coruna; issue 10):
 *
 * Mechanics M, q = [th1, th2] (angles from the x axis; link 1 of length L
 * and mass m, massless link 2 of length Lh, point masses mp and mh):
 *   Mq q'' + c = f + J' fh,
 *   Mq = [[L^2 (m / 3 + mp + mh), L Lh mh cos(th1 - th2)],
 *         [L Lh mh cos(th1 - th2), Lh^2 mh]],
 *   c  = L Lh mh sin(th1 - th2) [th2'^2, -th1'^2],
 *   f  = [-L g (m / 2 + mp + mh) cos th1, -Lh g mh cos th2]
 *   (the rod's centre at L/2, mp at its tip Q, mh at R, Lh beyond Q: the
 *   benchmark's document prints L^2 (m + mp + mh) / 3 and (L g / 2)(m + mp +
 *   mh), which do not give its own fh0 = 8.829 kN; these do, as its reference
 *   implementation),
 *   s1 = L sqrt(1 - (sqrt 3 / 2) cos th1) (the actuator length, B = (sqrt3/2, 0)),
 *   J  = [sqrt 3 L^2 sin th1 / (4 s1), 0],  s1' = J q'.
 *   x = [th1, th2, w1, w2], u = [fh], y = [s1, s1'].
 * Hydraulics H, x = [p1, p2], u = [s1, s1'], y = [fh] (feedthrough):
 *   fh = (p2 - p1) ap - c s1',
 *   p1' = b1 / (ap l1) [ap s1' + ai cd sqrt(2 (pP - p1) / rho) - ao cd sqrt(2 (p1 - pT) / rho)],
 *   p2' = b2 / (ap l2) [-ap s1' + ao cd sqrt(2 (pP - p2) / rho) - ai cd sqrt(2 (p2 - pT) / rho)],
 *   (a square root of a negative quantity counts 0), bi = (1 + a pi + b pi^2) / (a + 2 b pi),
 *   l1 = l / 2 + s10 - s1, l2 = l / 2 + s1 - s10, ai = 5e-4 kappa, ao = 5e-4 (1 - kappa),
 *   kappa = kappa0 (1 - A sin(2 pi w t)), w = 2, A = 0.1 t (t <= 1 s), 0.1 (<= 8 s),
 *   0.1 (9 - t) (<= 9 s), 0 after (the paper's eq 33, manoeuvre M2).
 * Start in static equilibrium: q' = 0, fh0 = -Meff J Mq^-1 f (Meff = (J Mq^-1 J')^-1),
 * then (p1, p2, kappa0) by Newton on fh0 = (p2 - p1) ap, p1' = p2' = 0 (8.829 kN;
 * 3.1708 MPa, 4.5292 MPa, 0.4543 in the benchmark's document).
 * Energy: the manipulator's, q'Mq q'/2 + L g (m / 2 + mp + mh) sin th1 + Lh g mh sin th2;
 * power bond fh . s1' (the hydraulic force on the actuator's rate). */
#include "builtin.h"
#include "fixed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { L_, LH, M_, MP, MH, G_, TH1, TH2, AP, LC, CV, CD, RHO, PP, PT, CA, CB, NPAR };

static const cosa_param params[NPAR] = {
    [L_] = {"L", 1.0, "m", "length of link 1", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [LH] = {"Lh", 0.5, "m", "length of link 2 (massless)", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [M_] = {"m", 200.0, "kg", "mass of link 1 (distributed)", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [MP] = {"mp", 250.0, "kg", "point mass at Q", COSA_PARAM_MODEL, RANGE_NONNEGATIVE},
    [MH] = {"mh", 100.0, "kg", "point mass at R (end of link 2)", COSA_PARAM_MODEL,
            RANGE_POSITIVE},
    [G_] = {"g", 9.81, "m/s^2", "gravity (along -y)", COSA_PARAM_MODEL},
    [TH1] = {"th1", 0.52359877559829882, "rad", "initial angle of link 1 (pi/6)",
             COSA_PARAM_INITIAL},
    [TH2] = {"th2", 4.7123889803846897, "rad", "initial angle of link 2 (3 pi/2)",
             COSA_PARAM_INITIAL},
    [AP] = {"ap", 6.5e-3, "m^2", "piston area", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [LC] = {"l", 0.442, "m", "cylinder length", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [CV] = {"c", 1e5, "N s/m", "viscous friction of the actuator", COSA_PARAM_MODEL},
    [CD] = {"cd", 0.67, "", "valve discharge coefficient", COSA_PARAM_MODEL},
    [RHO] = {"rho", 850.0, "kg/m^3", "fluid density", COSA_PARAM_MODEL, RANGE_POSITIVE},
    [PP] = {"pP", 7.6e6, "Pa", "pressure at the pump", COSA_PARAM_MODEL},
    [PT] = {"pT", 1e5, "Pa", "pressure at the tank", COSA_PARAM_MODEL},
    [CA] = {"a", 6.53e-10, "1/Pa", "compressibility coefficient a", COSA_PARAM_MODEL},
    [CB] = {"b", -1.19e-18, "1/Pa^2", "compressibility coefficient b", COSA_PARAM_MODEL},
};

struct crane {
    double p[NPAR];
    double s10, kappa0, p10, p20, fh0;
};

static double actuator_length(const double *p, double th1)
{
    return p[L_] * sqrt(1.0 - 0.5 * sqrt(3.0) * cos(th1));
}

/* J (its nonzero first entry) at th1. */
static double jac1(const double *p, double th1)
{
    return sqrt(3.0) * p[L_] * p[L_] * sin(th1) / (4.0 * actuator_length(p, th1));
}

/* The mechanics' accelerations under the hydraulic force fh. */
static void accelerations(const double *p, const double *x, double fh, double *acc)
{
    const double L = p[L_], Lh = p[LH], mh = p[MH];
    const double mi = p[M_] / 3.0 + p[MP] + mh, mg = 0.5 * p[M_] + p[MP] + mh;
    const double d = x[0] - x[1];
    const double M11 = L * L * mi, M12 = L * Lh * mh * cos(d), M22 = Lh * Lh * mh;
    const double c1 = L * Lh * mh * sin(d) * x[3] * x[3], c2 = -L * Lh * mh * sin(d) * x[2] * x[2];
    const double r1 = -L * p[G_] * mg * cos(x[0]) - c1 + jac1(p, x[0]) * fh;
    const double r2 = -Lh * p[G_] * mh * cos(x[1]) - c2;
    const double det = M11 * M22 - M12 * M12;
    acc[0] = (M22 * r1 - M12 * r2) / det;
    acc[1] = (M11 * r2 - M12 * r1) / det;
}

static double valve(const double *p, double area, double dp)
{
    return dp > 0.0 ? area * p[CD] * sqrt(2.0 * dp / p[RHO]) : 0.0;
}

static double bulk(const double *p, double pi)
{
    return (1.0 + p[CA] * pi + p[CB] * pi * pi) / (p[CA] + 2.0 * p[CB] * pi);
}

/* kappa(t) of manoeuvre M2 (eq 33). */
static double kappa(const struct crane *d, double t)
{
    const double A = t <= 1.0 ? 0.1 * t : t <= 8.0 ? 0.1 : t <= 9.0 ? 0.1 * (9.0 - t) : 0.0;
    return d->kappa0 * (1.0 - A * sin(2.0 * M_PI * 2.0 * t));
}

/* p1', p2' at pressures pr, actuator s1, s1d and valve kappa k. */
static void pressure_rates(const struct crane *d, const double *pr, double s1, double s1d,
                           double k, double *rate)
{
    const double *p = d->p, ap = p[AP];
    const double l1 = 0.5 * p[LC] + d->s10 - s1, l2 = 0.5 * p[LC] + s1 - d->s10;
    const double ai = 5e-4 * k, ao = 5e-4 * (1.0 - k);
    rate[0] = bulk(p, pr[0]) / (ap * l1) *
              (ap * s1d + valve(p, ai, p[PP] - pr[0]) - valve(p, ao, pr[0] - p[PT]));
    rate[1] = bulk(p, pr[1]) / (ap * l2) *
              (-ap * s1d + valve(p, ao, p[PP] - pr[1]) - valve(p, ai, pr[1] - p[PT]));
}

static int fM(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const struct crane *d = ud;
    out[0] = x[2];
    out[1] = x[3];
    accelerations(d->p, x, u[0], out + 2);
    return 0;
}

static int gM(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t, (void)u;
    const struct crane *d = ud;
    out[0] = actuator_length(d->p, x[0]);
    out[1] = jac1(d->p, x[0]) * x[2];
    return 0;
}

static int fH(double t, const double *x, const double *u, double *out, void *ud)
{
    const struct crane *d = ud;
    pressure_rates(d, x, u[0], u[1], kappa(d, t), out);
    return 0;
}

static int gH(double t, const double *x, const double *u, double *out, void *ud)
{
    (void)t;
    const struct crane *d = ud;
    out[0] = (x[1] - x[0]) * d->p[AP] - d->p[CV] * u[1];
    return 0;
}

/* The static equilibrium: fh0, then (p1, p2, kappa0) by Newton (central
 * differences for the 3 x 3 Jacobian) from (3.3 MPa, 4.4 MPa, 0.5). */
static cosa_status equilibrium(struct crane *d)
{
    const double *p = d->p;
    const double th1 = p[TH1], th2 = p[TH2];
    d->s10 = actuator_length(p, th1);
    /* fh0 = -Meff J Mq^-1 f; J = [j, 0] */
    const double L = p[L_], Lh = p[LH], mh = p[MH];
    const double mi = p[M_] / 3.0 + p[MP] + mh, mg = 0.5 * p[M_] + p[MP] + mh;
    const double M11 = L * L * mi, M12 = L * Lh * mh * cos(th1 - th2), M22 = Lh * Lh * mh;
    const double det = M11 * M22 - M12 * M12, j = jac1(p, th1);
    const double f1 = -L * p[G_] * mg * cos(th1), f2 = -Lh * p[G_] * mh * cos(th2);
    const double i11 = M22 / det, i12 = -M12 / det;
    const double Minvf1 = i11 * f1 + i12 * f2, Meff = 1.0 / (j * i11 * j);
    d->fh0 = -Meff * j * Minvf1;
    /* start: the pressure difference fh0 / ap about the middle of [pT, pP]
     * (the benchmark starts from 3.3 and 4.4 MPa; this is inside the valves'
     * range for other pump pressures too) */
    const double mid = 0.5 * (p[PP] + p[PT]), half = 0.5 * d->fh0 / p[AP];
    double z[3] = {mid - half, mid + half, 0.5};
    int converged = 0;
    for (int it = 0; it < 50 && !converged; it++) {
        double g[3], Jz[9];
        for (int k = -1; k < 3; k++) {
            double zz[3] = {z[0], z[1], z[2]}, r[2], gg[3];
            const double h = k < 0 ? 0.0 : (k < 2 ? 1.0 : 1e-7);
            if (k >= 0)
                zz[k] += h;
            pressure_rates(d, zz, d->s10, 0.0, zz[2], r);
            gg[0] = (d->fh0 - (zz[1] - zz[0]) * p[AP]) / p[AP] * 1e-6;
            gg[1] = r[0] * 1e-6;
            gg[2] = r[1] * 1e-6;
            for (int i = 0; i < 3; i++) {
                if (k < 0)
                    g[i] = gg[i];
                else
                    Jz[i + 3 * k] = (gg[i] - g[i]) / h;
            }
        }
        /* solve Jz dz = -g (3 x 3, Cramer) */
        const double a = Jz[0], b = Jz[3], c = Jz[6], e = Jz[1], f = Jz[4], gq = Jz[7],
                     hq = Jz[2], iq = Jz[5], jq = Jz[8];
        const double D = a * (f * jq - gq * iq) - b * (e * jq - gq * hq) + c * (e * iq - f * hq);
        if (!(fabs(D) > 0.0) || !isfinite(D))
            return COSA_ENOTCONVERGED;
        const double r0 = -g[0], r1 = -g[1], r2 = -g[2];
        const double dz0 = (r0 * (f * jq - gq * iq) - b * (r1 * jq - gq * r2) + c * (r1 * iq - f * r2)) / D;
        const double dz1 = (a * (r1 * jq - gq * r2) - r0 * (e * jq - gq * hq) + c * (e * r2 - r1 * hq)) / D;
        const double dz2 = (a * (f * r2 - r1 * iq) - b * (e * r2 - r1 * hq) + r0 * (e * iq - f * hq)) / D;
        z[0] += dz0, z[1] += dz1, z[2] += dz2;
        converged = fabs(dz0) + fabs(dz1) <= 1e-9 * (fabs(z[0]) + fabs(z[1])) &&
                    fabs(dz2) <= 1e-13;
    }
    if (!converged || !(z[2] > 0.0 && z[2] < 1.0) || !isfinite(z[0]) || !isfinite(z[1]))
        return COSA_ENOTCONVERGED;
    /* an equilibrium indeed: the pressure rates vanish (relative to the
     * largest rate one valve could drive, beta/l * flow) */
    double rate[2];
    pressure_rates(d, z, d->s10, 0.0, z[2], rate);
    const double scale = bulk(p, z[0]) / (0.5 * p[LC]) * 5e-4 * p[CD] *
                         sqrt(2.0 * (p[PP] - p[PT]) / p[RHO]) / p[AP];
    if (!(fabs(rate[0]) + fabs(rate[1]) <= 1e-8 * scale) ||
        !(z[0] >= p[PT] && z[0] <= p[PP] && z[1] >= p[PT] && z[1] <= p[PP]))
        return COSA_ENOTCONVERGED;
    d->p10 = z[0], d->p20 = z[1], d->kappa0 = z[2];
    return COSA_OK;
}

static cosa_status setup(const double *par, struct crane *d)
{
    memcpy(d->p, par, sizeof d->p);
    if (!(par[L_] > 0.0) || !(par[LH] > 0.0) || !(par[M_] > 0.0) || !(par[MP] >= 0.0) ||
        !(par[MH] > 0.0) || !(par[AP] > 0.0) || !(par[LC] > 0.0) || !(par[RHO] > 0.0) ||
        !(1.0 - 0.5 * sqrt(3.0) * cos(par[TH1]) > 0.0) || !(sin(par[TH1]) != 0.0))
        return COSA_EPARAM;
    return equilibrium(d);
}

/* u = [fh (-> M), s1, s1' (-> H)] = L [s1, s1', fh]. */
static const double coupling[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
static const unsigned char kickM[4] = {0, 0, 1, 1}, kickH[2] = {1, 1};

static cosa_status create_ode(const cosa_model *m, const double *par, cosa_odesys **out)
{
    (void)m;
    *out = NULL;
    struct crane *d = malloc(sizeof *d);
    if (!d)
        return COSA_ENOMEM;
    cosa_status st = setup(par, d);
    if (st != COSA_OK) {
        free(d);
        return st;
    }
    const cosa_ode subs[2] = {
        {.nx = 4, .nu = 1, .ny = 2, .f = fM, .g = gM, .kick = kickM, .user_data = d},
        {.nx = 2, .nu = 2, .ny = 1, .f = fH, .g = gH, .kick = kickH, .user_data = d},
    };
    return cosa_odesys_create(out, 2, subs, coupling, d, free);
}

static cosa_status initial_state(const cosa_model *m, const double *par, double *x0)
{
    (void)m;
    struct crane d;
    cosa_status st = setup(par, &d);
    if (st != COSA_OK)
        return st;
    x0[0] = par[TH1], x0[1] = par[TH2], x0[2] = 0.0, x0[3] = 0.0;
    x0[4] = d.p10, x0[5] = d.p20;
    return COSA_OK;
}

static cosa_status energy(const cosa_model *m, const double *par, const double *x, double *E)
{
    (void)m;
    const double L = par[L_], Lh = par[LH], mh = par[MH];
    const double mi = par[M_] / 3.0 + par[MP] + mh, mg = 0.5 * par[M_] + par[MP] + mh;
    const double M11 = L * L * mi, M12 = L * Lh * mh * cos(x[0] - x[1]), M22 = Lh * Lh * mh;
    *E = 0.5 * (M11 * x[2] * x[2] + 2.0 * M12 * x[2] * x[3] + M22 * x[3] * x[3]) +
         L * par[G_] * mg * sin(x[0]) + Lh * par[G_] * mh * sin(x[1]);
    return COSA_OK;
}

/* names, and the bond fh (output 2) on the actuator, whose rate is s1'
 * (output 1); the correction into M's input fh (input 0) */
static const char *const state_names[] = {"th1", "th2", "w1", "w2", "p1", "p2"};
static const char *const input_names[] = {"M.fh", "H.s1", "H.s1d"};
static const char *const output_names[] = {"s1", "s1d", "fh"};
static const char *const sub_names[] = {"M", "H"};
static const size_t port_force[1] = {2}, port_velocity[1] = {1}, port_input[1] = {0};
static const cosa_energy_port port = {1, 1, port_force, port_velocity, port_input};
static const model_fixed_desc desc = {
    .nsub = 2, .nx = 6, .nu = 3, .ny = 3, .L = coupling, .state_names = state_names,
    .input_names = input_names, .output_names = output_names, .sub_names = sub_names,
    .port = &port,
};

const cosa_model model_crane = {
    .name = "crane",
    .doc = "energy paper's hydraulic crane: two-link manipulator (M) and hydraulic actuator "
           "(H), force/displacement, manoeuvre eq 33 (section 4.4)",
    .nparam = NPAR,
    .params = params,
    .tend = 10.0,
    .create_ode = create_ode,
    .initial_state = initial_state,
    MODEL_FIXED_NAME_CALLBACKS,
    .data = &desc,
    .energy = energy,
    .energy_port = model_fixed_energy_port,
};
