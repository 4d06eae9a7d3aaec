/* step_gains.c -- a unit's input-output gains over one step by central
 * differences through its snapshots (issue 13, "finite differences through
 * FMU state"): save, perturb the input polynomial, step, read the outputs,
 * restore.  For MBCorr these are G_p and G_0 of doc/method.md directly:
 *   G_w = d y(t + h) / d eps  for the input u~(tau) + eps e_k w(tau / h),
 * w = w_p (G_p) or w = 1 (G_0); for a linear unit
 * G_w = C int_0^h e^{A(h - tau)} B w(tau/h) dtau + D exactly. */
#include "td/unit_impl.h"

#include <math.h>
#include <string.h>

#define NCOEF (COSA_UNIT_DEGMAX + 1)

/* Outputs after a step of h from the snapshot with coefficient m of input k
 * raised by d w_m / h^m (the polynomial is about the step's start). */
static cosa_status perturbed_output(cosa_unit *u, const cosa_unit_snapshot *snap, double h,
                                    int deg, int nw, const double *w, size_t k, double d,
                                    double *y)
{
    cosa_status st = cosa_unit_restore(u, snap);
    if (st != COSA_OK)
        return st;
    const size_t nu = u->nu;
    for (int m = u->deg + 1; m <= deg; m++)
        for (size_t r = 0; r < nu; r++)
            u->coef[r + (size_t)m * nu] = 0.0;
    u->deg = deg;
    double hm = 1.0;
    for (int m = 0; m < nw; m++, hm *= h)
        u->coef[k + (size_t)m * nu] += d * w[m] / hm;
    if ((st = cosa_unit_do_step(u, h)) != COSA_OK)
        return st;
    return cosa_unit_get_output(u, y);
}

/* Columns of G_w (ny x nu, ld ny) for the weight w (nw coefficients). */
static cosa_status gain_columns(cosa_unit *u, cosa_unit_snapshot *snap, double h, int nw,
                                const double *w, double *G, double *work)
{
    const size_t nu = u->nu, ny = u->ny;
    double *yp = work, *ym = work + ny, *ds = work + 2 * ny;
    const int deg = u->deg > nw - 1 ? u->deg : nw - 1;
    /* the input values at the start of the step fix the steps' scales */
    cosa_status rs = cosa_unit_restore(u, snap);
    if (rs != COSA_OK)
        return rs;
    for (size_t k = 0; k < nu; k++)
        ds[k] = unit_fd_step(nu, u->coef, k);
    for (size_t k = 0; k < nu; k++) {
        const double d = ds[k];
        cosa_status st = perturbed_output(u, snap, h, deg, nw, w, k, d, yp);
        if (st == COSA_OK)
            st = perturbed_output(u, snap, h, deg, nw, w, k, -d, ym);
        if (st != COSA_OK)
            return st;
        for (size_t r = 0; r < ny; r++)
            G[r + k * ny] = (yp[r] - ym[r]) / (2.0 * d);
    }
    return COSA_OK;
}

cosa_status cosa_unit_step_gains(cosa_unit *u, double h, int nw, const double *w, double *Gw,
                                 double *G0, cosa_unit_snapshot **snap, double *work)
{
    if (!u || !w || !Gw || !snap || !work || nw < 1 || nw > NCOEF)
        return COSA_EINVAL;
    if (!(h > 0.0) || !isfinite(h))
        return COSA_ERANGE;
    if (!(u->type->caps & COSA_UNIT_CAN_SAVE_STATE))
        return COSA_EUNSUPPORTED;
    if (nw - 1 > u->type->max_input_degree)
        return COSA_ERANGE;
    const size_t nu = u->nu;
    /* the input polynomial about the current time, so that the perturbation
     * w(tau / h) starts with the step */
    if (u->t_in != u->t && nu) {
        unit_poly_derivs(nu, u->deg, u->coef, u->t - u->t_in, u->deg, u->uder);
        cosa_status st = cosa_unit_set_input(u, u->deg, u->uder);
        if (st != COSA_OK)
            return st;
    }
    cosa_status st = cosa_unit_save(u, snap);
    if (st != COSA_OK)
        return st;
    const int same = nw == 1 && w[0] == 1.0; /* w_0 = 1: G_p = G_0 */
    st = gain_columns(u, *snap, h, nw, w, Gw, work);
    if (st == COSA_OK && G0) {
        const double one = 1.0;
        if (same)
            memcpy(G0, Gw, u->ny * nu * sizeof *G0);
        else
            st = gain_columns(u, *snap, h, 1, &one, G0, work);
    }
    cosa_status rs = cosa_unit_restore(u, *snap);
    return st != COSA_OK ? st : rs;
}
