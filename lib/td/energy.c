/* energy.c -- residual power, residual energy, energy error and the energy
 * correction of the energy paper (eqs 7-17), at the macro points of a
 * Jacobi run.  Power bonds: force outputs f_b (of units with feedthrough)
 * that act on a receiving unit whose velocity output v pairs with them;
 * vectors of dim components (dot products).  At t_n, n = 1..N, with the
 * uncorrected forces:
 *   dP_n = sum_b (f_b,n-1 . v_n - f_b,n . v_n-1)        (eqs 7-9)
 *   dE_n = H sum_{k <= n} dP_k                           (eq 12)
 *   varsigma_n = E(x_n) - E(x_ref(t_n))                  (eq 10)
 * and with the correction (eqs 13-17, booked as in issue 10):
 *   s_n = mu H dP_n,
 *   Ucal_n = Ucal_{n-1} + U_n, U_n = s_{n-1} + f^c_{n-1} . v_n H  (n >= 2;
 *   U_1 = Ucal_1 = 0),
 *   f^c_n = -(s_n + nu Ucal_n) v_n / (|v_n|^2 H)   (0 if v_n = 0),
 *   |f^c_n| <= limit |sum_b f_b,n| and <= limit_abs (direction kept; counted
 *   in caps),
 * added to the receiving unit's force inputs over [t_n, t_{n+1}]. */
#include "td/energy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct energy_acc {
    cosa_energy_opts opt;
    cosa_energy_port port;
    size_t *idx;           /* the port's indices, copied                    */
    size_t nx, nu, ny, N;
    double H;
    double *fprev, *vprev; /* dim: the summed force and velocity at t_{n-1} */
    double *fsum, *v;      /* dim                                           */
    double *fbprev;        /* nbond x dim: forces at t_{n-1}                */
    double sprev;          /* s_{n-1}                                       */
    cosa_energy_result *r;
};

void energy_acc_free(energy_acc *a)
{
    if (!a)
        return;
    cosa_energy_result_free(a->r);
    free(a->idx);
    free(a->fprev);
    free(a);
}

void cosa_energy_result_free(cosa_energy_result *r)
{
    if (!r)
        return;
    free(r->E);
    free(r->capped);
    free(r);
}

cosa_status energy_acc_create(const cosa_energy_opts *opt, const cosa_energy_port *p, size_t nx,
                              size_t nu, size_t ny, size_t N, double H, energy_acc **out)
{
    *out = NULL;
    if (!opt || !p || !opt->energy)
        return COSA_EINVAL;
    const size_t d = p->dim, nb = p->nbond;
    if (d == 0 || nb == 0 || !p->force || !p->velocity || !p->input)
        return COSA_EINVAL;
    for (size_t k = 0; k < nb * d; k++)
        if (p->force[k] >= ny)
            return COSA_EINVAL;
    for (size_t k = 0; k < d; k++)
        if (p->velocity[k] >= ny || p->input[k] >= nu)
            return COSA_EINVAL;
    if (opt->correct && (!isfinite(opt->mu) || !isfinite(opt->nu) || opt->nu < 0.0 ||
                         !(opt->limit >= 0.0) || !(opt->limit_abs >= 0.0)))
        return COSA_ERANGE;
    energy_acc *a = calloc(1, sizeof *a);
    if (!a)
        return COSA_ENOMEM;
    a->opt = *opt;
    a->nx = nx, a->nu = nu, a->ny = ny, a->N = N, a->H = H;
    a->idx = malloc((nb * d + 2 * d) * sizeof *a->idx);
    a->fprev = calloc(4 * d + nb * d, sizeof(double));
    cosa_energy_result *r = a->r = calloc(1, sizeof *r);
    const size_t np = N + 1;
    if (r) {
        r->npoints = np;
        r->dim = d;
        r->E = calloc((7 + d) * np, sizeof(double));
        r->capped = calloc(np, 1);
    }
    if (!a->idx || !a->fprev || !r || !r->E || !r->capped) {
        energy_acc_free(a);
        return COSA_ENOMEM;
    }
    memcpy(a->idx, p->force, nb * d * sizeof *a->idx);
    memcpy(a->idx + nb * d, p->velocity, d * sizeof *a->idx);
    memcpy(a->idx + nb * d + d, p->input, d * sizeof *a->idx);
    a->port = (cosa_energy_port){d, nb, a->idx, a->idx + nb * d, a->idx + nb * d + d};
    a->vprev = a->fprev + d;
    a->fsum = a->vprev + d;
    a->v = a->fsum + d;
    a->fbprev = a->v + d;
    r->Eref = r->E + np;
    r->dP = r->Eref + np;
    r->dE = r->dP + np;
    r->varsigma = r->dE + np;
    r->U = r->varsigma + np;
    r->Ucal = r->U + np;
    r->fcorr = r->Ucal + np;
    r->mu = opt->correct ? opt->mu : 0.0;
    r->nu = opt->correct ? opt->nu : 0.0;
    r->limit = opt->correct ? opt->limit : INFINITY;
    r->limit_abs = opt->correct && opt->limit_abs > 0.0 ? opt->limit_abs : INFINITY;
    r->correct = opt->correct;
    *out = a;
    return COSA_OK;
}

static double dot(size_t d, const double *a, const double *b)
{
    double s = 0.0;
    for (size_t c = 0; c < d; c++)
        s += a[c] * b[c];
    return s;
}

cosa_status energy_acc_point(energy_acc *a, size_t n, const double *x, const double *xref,
                             const double *y, double *off)
{
    cosa_energy_result *r = a->r;
    const cosa_energy_port *p = &a->port;
    const size_t d = p->dim, nb = p->nbond;
    if (!r || n > a->N)
        return COSA_EINVAL;
    cosa_status st = a->opt.energy(a->opt.ctx, x, &r->E[n]);
    if (st == COSA_OK)
        st = a->opt.energy(a->opt.ctx, xref, &r->Eref[n]);
    if (st != COSA_OK)
        return st;
    r->varsigma[n] = r->E[n] - r->Eref[n];
    for (size_t c = 0; c < d; c++) {
        a->v[c] = y[p->velocity[c]];
        a->fsum[c] = 0.0;
        for (size_t b = 0; b < nb; b++)
            a->fsum[c] += y[p->force[b * d + c]];
    }
    /* residual power and energy (n >= 1) */
    double dP = 0.0;
    for (size_t b = 0; n > 0 && b < nb; b++)
        for (size_t c = 0; c < d; c++)
            dP += a->fbprev[b * d + c] * a->v[c] - y[p->force[b * d + c]] * a->vprev[c];
    r->dP[n] = dP;
    r->dE[n] = n > 0 ? r->dE[n - 1] + a->H * dP : 0.0;
    /* the correction force f^c_n (none at t_0: dP_0 is not defined) */
    double *fc = r->fcorr + n * d;
    if (a->opt.correct && n > 0) {
        const double s = a->opt.mu * a->H * dP;
        if (n >= 2) {
            r->U[n] = a->sprev + dot(d, r->fcorr + (n - 1) * d, a->v) * a->H;
            r->Ucal[n] = r->Ucal[n - 1] + r->U[n];
        }
        const double v2 = dot(d, a->v, a->v);
        for (size_t c = 0; c < d; c++)
            fc[c] = v2 > 0.0 ? -(s + a->opt.nu * r->Ucal[n]) * a->v[c] / (v2 * a->H) : 0.0;
        const double fmag = sqrt(dot(d, fc, fc));
        /* (limit none: no relative cap, also where the force sum is 0) */
        double cap = isfinite(a->opt.limit) ? a->opt.limit * sqrt(dot(d, a->fsum, a->fsum))
                                            : INFINITY;
        if (a->opt.limit_abs > 0.0 && a->opt.limit_abs < cap)
            cap = a->opt.limit_abs;
        if (fmag > cap) {
            const double scale = cap / fmag;
            for (size_t c = 0; c < d; c++)
                fc[c] *= scale;
            r->capped[n] = 1;
            r->caps++;
        }
        a->sprev = s;
    }
    if (off) {
        memset(off, 0, a->nu * sizeof *off);
        for (size_t c = 0; a->opt.correct && c < d; c++)
            off[p->input[c]] = fc[c];
    }
    for (size_t k = 0; k < nb * d; k++)
        a->fbprev[k] = y[p->force[k]];
    memcpy(a->vprev, a->v, d * sizeof *a->v);
    r->npoints = n + 1;
    return COSA_OK;
}

cosa_energy_result *energy_acc_take(energy_acc *a)
{
    cosa_energy_result *r = a->r;
    a->r = NULL;
    return r;
}
