/* unitset.c -- a set of co-simulation units: the units stacked in order
 * (x, u, y as eq 5), the coupling u = L y, a validated execution sequence,
 * and the Newton solver of the algebraic loop y = g(t, x, L y) with its
 * workspace.  The master, the CVODE reference and the driver take a set, so
 * the dimension bookkeeping and the permutation check live only here. */
#include "td/unit_impl.h"
#include "core/dense.h"
#include "td/unitset_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NDER (COSA_UNIT_DERMAX + 1)

struct cosa_unitset {
    size_t nunits, nx, nu, ny;
    cosa_unit **units;          /* borrowed                               */
    size_t *ox, *ou, *oy;       /* offsets of each unit                   */
    size_t *seq;                /* execution sequence                     */
    unsigned char *seen;        /* nunits: scratch of the permutation check */
    double *L;                  /* nu x ny                                 */
    double *c;                  /* nu: the affine term of u = L y + c, or NULL (0) */
    /* algebraic-loop workspace */
    double *lu, *lg, *lD, *lJ, *lr, *lDi; /* nu, ny, ny x nu, ny x ny, ny, ny x nu */
    lapack_int *ipiv;           /* ny                                     */
    /* derivative-exchange workspace (cosa_unitset_exchange_derivatives) */
    double *ey, *eu, *ei;       /* ny x NDER, nu x NDER, one unit's max(nu_i, ny_i) x NDER */
    double *buf;
    /* the energy paper: unit steps per macro step, the power port */
    unsigned *rate;             /* nunits, or NULL (all 1)                  */
    cosa_energy_port port;      /* dim = 0: none                            */
    size_t *port_idx;
    /* coupling variables (cosa_unitset_set_coupling): c = phi(t, y), u = S c */
    cosa_coupling cpl;          /* nc = 0: none (c = u = L y)                */
    int banded;                 /* the reference's band matrix               */
    size_t blo, bup;
    double *cS;                 /* nu x nc (owned copy)                      */
    double *cc, *cJ, *cdudy;    /* nc, nc x ny, nu x ny: scratch             */
    char **names;               /* nunits copied names, or NULL (none)       */
    struct td_discrete *disc;   /* discrete signals (discrete.c), or NULL    */
};

struct td_discrete **cosa_unitset_discrete_slot(cosa_unitset *set) { return &set->disc; }

void cosa_unitset_free(cosa_unitset *set)
{
    if (!set)
        return;
    free(set->units);
    free(set->ox);
    free(set->seen);
    free(set->buf);
    free(set->ipiv);
    free(set->ey);
    free(set->rate);
    free(set->port_idx);
    free(set->cS);
    free(set->c);
    td_discrete_free(set->disc);
    cosa_unitset_set_names(set, NULL);
    free(set);
}

cosa_status cosa_unitset_set_rates(cosa_unitset *set, const unsigned *rate)
{
    if (!set)
        return COSA_EINVAL;
    int multi = 0;
    for (size_t i = 0; rate && i < set->nunits; i++) {
        if (rate[i] < 1)
            return COSA_ERANGE;
        multi |= rate[i] > 1;
    }
    if (!multi) {
        free(set->rate);
        set->rate = NULL;
        return COSA_OK;
    }
    if (!set->rate && !(set->rate = malloc(set->nunits * sizeof *set->rate)))
        return COSA_ENOMEM;
    memcpy(set->rate, rate, set->nunits * sizeof *set->rate);
    return COSA_OK;
}

unsigned cosa_unitset_rate(const cosa_unitset *set, size_t i)
{
    return set && set->rate && i < set->nunits ? set->rate[i] : 1;
}

cosa_status cosa_unitset_set_port(cosa_unitset *set, const cosa_energy_port *port)
{
    if (!set)
        return COSA_EINVAL;
    free(set->port_idx);
    set->port_idx = NULL;
    set->port = (cosa_energy_port){0};
    if (!port)
        return COSA_OK;
    const size_t d = port->dim, nb = port->nbond;
    if (d == 0 || nb == 0 || !port->force || !port->velocity || !port->input)
        return COSA_EINVAL;
    for (size_t k = 0; k < nb * d; k++)
        if (port->force[k] >= set->ny)
            return COSA_EINVAL;
    for (size_t k = 0; k < d; k++)
        if (port->velocity[k] >= set->ny || port->input[k] >= set->nu)
            return COSA_EINVAL;
    size_t *idx = malloc((nb * d + 2 * d) * sizeof *idx);
    if (!idx)
        return COSA_ENOMEM;
    memcpy(idx, port->force, nb * d * sizeof *idx);
    memcpy(idx + nb * d, port->velocity, d * sizeof *idx);
    memcpy(idx + nb * d + d, port->input, d * sizeof *idx);
    set->port_idx = idx;
    set->port = (cosa_energy_port){d, nb, idx, idx + nb * d, idx + nb * d + d};
    return COSA_OK;
}

const cosa_energy_port *cosa_unitset_port(const cosa_unitset *set)
{
    return set && set->port.dim ? &set->port : NULL;
}

int cosa_unitset_is_sequence(const cosa_unitset *set, const size_t *seq)
{
    if (!set)
        return 0;
    if (!seq)
        return 1;
    memset(set->seen, 0, set->nunits);
    for (size_t k = 0; k < set->nunits; k++) {
        if (seq[k] >= set->nunits || set->seen[seq[k]])
            return 0;
        set->seen[seq[k]] = 1;
    }
    return 1;
}

cosa_status cosa_unitset_create(size_t nunits, cosa_unit *const *units, const double *L,
                                const size_t *sequence, cosa_unitset **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!units || nunits == 0)
        return COSA_EINVAL;
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < nunits; i++) {
        if (!units[i])
            return COSA_EINVAL;
        nx += units[i]->nx;
        nu += units[i]->nu;
        ny += units[i]->ny;
    }
    if (nu && ny && !L)
        return COSA_EINVAL;
    if (nu && ny && !dense_isfinite(nu, ny, L, nu))
        return COSA_ENONFINITE;
    cosa_unitset *set = calloc(1, sizeof *set);
    if (!set)
        return COSA_ENOMEM;
    set->nunits = nunits;
    set->nx = nx;
    set->nu = nu;
    set->ny = ny;
    set->units = malloc(nunits * sizeof *set->units);
    set->ox = malloc(4 * nunits * sizeof(size_t));
    set->seen = malloc(nunits);
    set->buf = calloc(nu * ny + nu + ny + 2 * ny * nu + ny * ny + ny + 1, sizeof(double));
    set->ipiv = calloc(ny + 1, sizeof *set->ipiv);
    size_t dmax = 0;
    for (size_t i = 0; i < nunits; i++)
        dmax = units[i]->nu > dmax ? units[i]->nu : dmax, dmax = units[i]->ny > dmax ? units[i]->ny : dmax;
    set->ey = calloc((ny + nu + dmax) * NDER + 1, sizeof(double));
    if (!set->units || !set->ox || !set->seen || !set->buf || !set->ipiv || !set->ey) {
        cosa_unitset_free(set);
        return COSA_ENOMEM;
    }
    set->ou = set->ox + nunits;
    set->oy = set->ou + nunits;
    set->seq = set->oy + nunits;
    size_t ox = 0, ou = 0, oy = 0;
    for (size_t i = 0; i < nunits; i++) {
        set->units[i] = units[i];
        set->ox[i] = ox;
        set->ou[i] = ou;
        set->oy[i] = oy;
        ox += units[i]->nx;
        ou += units[i]->nu;
        oy += units[i]->ny;
    }
    if (!cosa_unitset_is_sequence(set, sequence)) {
        cosa_unitset_free(set);
        return COSA_EINVAL;
    }
    for (size_t k = 0; k < nunits; k++)
        set->seq[k] = sequence ? sequence[k] : k;
    double *q = set->buf;
    set->L = q, q += nu * ny;
    set->lu = q, q += nu;
    set->lg = q, q += ny;
    set->lD = q, q += ny * nu;
    set->lJ = q, q += ny * ny;
    set->lr = q, q += ny;
    set->lDi = q;
    set->eu = set->ey + ny * NDER;
    set->ei = set->eu + nu * NDER;
    if (nu && ny)
        memcpy(set->L, L, nu * ny * sizeof *L);
    *out = set;
    return COSA_OK;
}

size_t cosa_unitset_count(const cosa_unitset *set) { return set ? set->nunits : 0; }

cosa_status cosa_unitset_set_names(cosa_unitset *set, const char *const *names)
{
    if (!set)
        return COSA_EINVAL;
    for (size_t i = 0; names && i < set->nunits; i++)
        if (!names[i])
            return COSA_EINVAL;
    if (set->names)
        for (size_t i = 0; i < set->nunits; i++)
            free(set->names[i]);
    free(set->names);
    set->names = NULL;
    if (!names)
        return COSA_OK;
    if (!(set->names = calloc(set->nunits, sizeof *set->names)))
        return COSA_ENOMEM;
    for (size_t i = 0; i < set->nunits; i++) {
        const size_t n = strlen(names[i]) + 1;
        if (!(set->names[i] = malloc(n))) {
            cosa_unitset_set_names(set, NULL);
            return COSA_ENOMEM;
        }
        memcpy(set->names[i], names[i], n);
    }
    return COSA_OK;
}

const char *cosa_unitset_unit_name(const cosa_unitset *set, size_t i)
{
    return set && set->names && i < set->nunits ? set->names[i] : NULL;
}

void cosa_unitset_counters_reset(cosa_unitset *set)
{
    for (size_t i = 0; set && i < set->nunits; i++)
        cosa_unit_counters_reset(set->units[i]);
}
size_t cosa_unitset_nx(const cosa_unitset *set) { return set ? set->nx : 0; }
size_t cosa_unitset_nu(const cosa_unitset *set) { return set ? set->nu : 0; }
size_t cosa_unitset_ny(const cosa_unitset *set) { return set ? set->ny : 0; }
const double *cosa_unitset_L(const cosa_unitset *set) { return set ? set->L : NULL; }

cosa_status cosa_unitset_set_input_offset(cosa_unitset *set, const double *c)
{
    if (!set)
        return COSA_EINVAL;
    free(set->c);
    set->c = NULL;
    int any = 0;
    for (size_t k = 0; c && k < set->nu; k++)
        any |= c[k] != 0.0;
    if (!any)
        return COSA_OK;
    if (!dense_isfinite(set->nu, 1, c, set->nu))
        return COSA_ENONFINITE;
    if (!(set->c = malloc(set->nu * sizeof *set->c)))
        return COSA_ENOMEM;
    memcpy(set->c, c, set->nu * sizeof *c);
    return COSA_OK;
}

const double *cosa_unitset_input_offset(const cosa_unitset *set) { return set ? set->c : NULL; }

double *cosa_unitset_input_offset_rw(cosa_unitset *set)
{
    if (set && !set->c && set->nu)
        set->c = calloc(set->nu, sizeof *set->c);
    return set ? set->c : NULL;
}

void cosa_unitset_couple(const cosa_unitset *set, size_t r0, size_t nr, size_t ncol,
                         const double *Y, size_t ldy, double *U, size_t ldu)
{
    if (!nr || !ncol)
        return;
    if (set->ny)
        dense_gemm('N', 'N', nr, ncol, set->ny, 1.0, set->L + r0, set->nu, Y, ldy, 0.0, U, ldu);
    else
        dense_zero(nr, ncol, U, ldu);
    for (size_t r = 0; set->c && r < nr; r++)
        U[r] += set->c[r0 + r]; /* the value (column 0) only: c is constant */
}
const size_t *cosa_unitset_sequence(const cosa_unitset *set) { return set ? set->seq : NULL; }

cosa_unit *cosa_unitset_unit(const cosa_unitset *set, size_t i)
{
    return set && i < set->nunits ? set->units[i] : NULL;
}

cosa_status cosa_unitset_offsets(const cosa_unitset *set, size_t i, size_t *ox, size_t *ou,
                                 size_t *oy)
{
    if (!set || i >= set->nunits)
        return COSA_EINVAL;
    if (ox)
        *ox = set->ox[i];
    if (ou)
        *ou = set->ou[i];
    if (oy)
        *oy = set->oy[i];
    return COSA_OK;
}

/* ---- coupling variables -------------------------------------------------- */

cosa_status cosa_unitset_set_coupling(cosa_unitset *set, const cosa_coupling *c)
{
    if (!set)
        return COSA_EINVAL;
    free(set->cS);
    set->cS = NULL;
    memset(&set->cpl, 0, sizeof set->cpl);
    if (!c)
        return COSA_OK;
    if (!c->nc || !c->phi || (set->nu && !c->S))
        return COSA_EINVAL;
    const size_t nu = set->nu, ny = set->ny, nc = c->nc;
    if (nu && !dense_isfinite(nu, nc, c->S, nu))
        return COSA_ENONFINITE;
    set->cS = calloc(nu * nc + nc + nc * ny + nu * ny + 1, sizeof(double));
    if (!set->cS)
        return COSA_ENOMEM;
    if (nu)
        memcpy(set->cS, c->S, nu * nc * sizeof(double));
    set->cc = set->cS + nu * nc;
    set->cJ = set->cc + nc;
    set->cdudy = set->cJ + nc * ny;
    set->cpl = *c;
    set->cpl.S = set->cS;
    return COSA_OK;
}

cosa_status cosa_unitset_set_band(cosa_unitset *set, size_t lower, size_t upper)
{
    if (!set)
        return COSA_EINVAL;
    set->banded = 1;
    set->blo = lower;
    set->bup = upper;
    return COSA_OK;
}

int cosa_unitset_band(const cosa_unitset *set, size_t *lower, size_t *upper)
{
    if (!set || !set->banded)
        return 0;
    if (lower)
        *lower = set->blo;
    if (upper)
        *upper = set->bup;
    return 1;
}

size_t cosa_unitset_nc(const cosa_unitset *set)
{
    return set ? (set->cpl.nc ? set->cpl.nc : set->nu) : 0;
}

int cosa_unitset_has_coupling(const cosa_unitset *set) { return set && set->cpl.nc; }

const double *cosa_unitset_coupling_S(const cosa_unitset *set)
{
    return set && set->cpl.nc ? set->cS : NULL;
}

cosa_status cosa_unitset_coupling_eval(const cosa_unitset *set, double t, const double *y,
                                       double *c, double *J)
{
    if (!set || (set->ny && !y) || !c)
        return COSA_EINVAL;
    const size_t nu = set->nu, ny = set->ny;
    if (!set->cpl.nc) { /* c = u = L y + offset */
        cosa_unitset_couple(set, 0, nu, 1, y, ny ? ny : 1, c, nu ? nu : 1);
        if (J && nu && ny)
            memcpy(J, set->L, nu * ny * sizeof *J);
        return COSA_OK;
    }
    cosa_status st = set->cpl.phi(set->cpl.ctx, t, y, c, J);
    if (st != COSA_OK)
        return st;
    if (!dense_isfinite(set->cpl.nc, 1, c, set->cpl.nc) ||
        (J && !dense_isfinite(set->cpl.nc, ny, J, set->cpl.nc)))
        return COSA_ENONFINITE;
    return COSA_OK;
}

cosa_status cosa_unitset_inputs(cosa_unitset *set, double t, const double *y, double *u,
                                double *dudy)
{
    if (!set || (set->ny && !y) || (set->nu && !u))
        return COSA_EINVAL;
    const size_t nu = set->nu, ny = set->ny, nc = set->cpl.nc;
    if (!nc)
        return cosa_unitset_coupling_eval(set, t, y, u, dudy);
    cosa_status st = cosa_unitset_coupling_eval(set, t, y, set->cc, dudy ? set->cJ : NULL);
    if (st != COSA_OK)
        return st;
    if (nu) {
        dense_gemv(nu, nc, 1.0, set->cS, nu, set->cc, 0.0, u);
        for (size_t k = 0; set->c && k < nu; k++)
            u[k] += set->c[k];
        if (dudy && ny)
            dense_gemm('N', 'N', nu, ny, nc, 1.0, set->cS, nu, set->cJ, nc, 0.0, dudy, nu);
    }
    return COSA_OK;
}

/* Newton on r(y) = y - g(t, x, L y):  (I - D L) dy = r,  y <- y - dy, with
 * D = dg/du (block diagonal) at the current iterate.  Converged one
 * iteration after ||dy||_inf <= 1e-10 ||y||_inf (quadratic convergence then
 * leaves rounding-level changes), or when dy = 0; at most
 * COSA_UNITSET_LOOP_MAXIT iterations. */
static cosa_status loop_newton(cosa_unitset *set, double t, const double *x, double *y,
                               int *iters, double *resid)
{
    const size_t nu = set->nu, ny = set->ny;
    const double *L = set->L;
    if (ny == 0)
        return COSA_OK;
    int last = 0;
    for (int it = 0; it < COSA_UNITSET_LOOP_MAXIT; it++) {
        if (iters)
            *iters = it + 1;
        if (set->cpl.nc) { /* u = S phi(t, y), du/dy = S dphi/dy */
            cosa_status st = cosa_unitset_inputs(set, t, y, set->lu, set->cdudy);
            if (st != COSA_OK)
                return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
            L = set->cdudy;
        } else
            cosa_unitset_couple(set, 0, nu, 1, y, ny, set->lu, nu ? nu : 1);
        dense_zero(ny, nu, set->lD, ny);
        for (size_t i = 0; i < set->nunits; i++) {
            cosa_unit *un = set->units[i];
            const size_t ox = set->ox[i], ou = set->ou[i], oy = set->oy[i];
            if (un->nu && un->ny) {
                /* D_i goes into the stacked D through a contiguous scratch */
                cosa_status st = cosa_unit_jacobian(un, t, x + ox, set->lu + ou, 0, NULL, NULL,
                                                    NULL, set->lDi);
                if (st != COSA_OK)
                    return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
                dense_copy(un->ny, un->nu, set->lDi, un->ny, set->lD + oy + ou * ny, ny);
            }
            cosa_status st = cosa_unit_eval(un, t, x + ox, set->lu + ou, NULL, set->lg + oy);
            if (st != COSA_OK)
                return st == COSA_ENONFINITE ? COSA_ENOTCONVERGED : st;
        }
        double ynorm = 0.0, dnorm = 0.0;
        for (size_t k = 0; k < ny; k++)
            set->lr[k] = y[k] - set->lg[k];
        if (resid) { /* ||y - g(t, x, L y)||_inf at this iterate */
            *resid = 0.0;
            for (size_t k = 0; k < ny; k++)
                *resid = fmax(*resid, fabs(set->lr[k]));
        }
        dense_identity(ny, set->lJ, ny);
        if (nu)
            dense_gemm('N', 'N', ny, ny, nu, -1.0, set->lD, ny, L, nu, 1.0, set->lJ, ny);
        if (!dense_isfinite(ny, 1, set->lr, ny) || !dense_isfinite(ny, ny, set->lJ, ny))
            return COSA_ENOTCONVERGED;
        if (dense_lu(ny, set->lJ, ny, set->ipiv) != 0)
            return COSA_EALGLOOP;
        dense_lu_solve(ny, 1, set->lJ, ny, set->ipiv, set->lr, ny);
        for (size_t k = 0; k < ny; k++) {
            y[k] -= set->lr[k];
            ynorm = fmax(ynorm, fabs(y[k]));
            dnorm = fmax(dnorm, fabs(set->lr[k]));
        }
        if (!isfinite(ynorm) || !isfinite(dnorm))
            return COSA_ENOTCONVERGED;
        if (last || dnorm == 0.0)
            return COSA_OK;
        if (dnorm <= 1e-10 * ynorm)
            last = 1;
    }
    return COSA_ENOTCONVERGED;
}

cosa_status cosa_unitset_loop_solve(cosa_unitset *set, double t, const double *x, double *y)
{
    if (!set || (set->nx && !x) || (set->ny && !y))
        return COSA_EINVAL;
    if (!isfinite(t) || !dense_isfinite(set->nx, 1, x, set->nx) ||
        !dense_isfinite(set->ny, 1, y, set->ny))
        return COSA_ENONFINITE;
    return loop_newton(set, t, x, y, NULL, NULL);
}

cosa_status cosa_unitset_loop_solve_stats(cosa_unitset *set, double t, const double *x,
                                          double *y, int *iterations, double *residual)
{
    if (iterations)
        *iterations = 0;
    if (residual)
        *residual = 0.0;
    if (!set || (set->nx && !x) || (set->ny && !y))
        return COSA_EINVAL;
    if (!isfinite(t) || !dense_isfinite(set->nx, 1, x, set->nx) ||
        !dense_isfinite(set->ny, 1, y, set->ny))
        return COSA_ENONFINITE;
    return loop_newton(set, t, x, y, iterations, residual);
}

/* Every unit's output derivatives y^(0..n) into y (ny x (n+1), ld ny). */
static cosa_status read_derivatives(cosa_unitset *set, int n, double *y, size_t *failed)
{
    const size_t ny = set->ny;
    for (size_t i = 0; i < set->nunits; i++) {
        cosa_unit *un = set->units[i];
        if (!un->ny)
            continue;
        cosa_status st = cosa_unit_get_output_derivatives(un, n, set->ei);
        if (st != COSA_OK) {
            *failed = i;
            return st;
        }
        dense_copy(un->ny, (size_t)n + 1, set->ei, un->ny, y + set->oy[i], ny);
    }
    return COSA_OK;
}

cosa_status cosa_unitset_set_taylor_inputs(cosa_unitset *set, int q, const double *yder,
                                           size_t ldy)
{
    if (!set || (set->ny && !yder) || ldy < set->ny)
        return COSA_EINVAL;
    if (q < 0 || q > COSA_UNIT_DEGMAX)
        return COSA_ERANGE;
    const size_t nu = set->nu;
    if (!nu)
        return COSA_OK;
    /* u^(j) = L y^(j) (+ the offset for j = 0) */
    cosa_unitset_couple(set, 0, nu, (size_t)q + 1, yder, ldy, set->eu, nu);
    for (size_t i = 0; i < set->nunits; i++) {
        cosa_unit *un = set->units[i];
        if (!un->nu)
            continue;
        dense_copy(un->nu, (size_t)q + 1, set->eu + set->ou[i], nu, set->ei, un->nu);
        cosa_status st = cosa_unit_set_input(un, q, set->ei);
        if (st != COSA_OK)
            return st;
    }
    return COSA_OK;
}

/* Past the chain bound only an algebraic loop keeps the exchange going: it
 * is then the fixed-point iteration y^(j) = g_j(L y^(0..j)), which contracts
 * at the rate rho(D L) when rho(D L) < 1 and rarely repeats itself bitwise.
 * Settled when every order's change is at rounding level, max_l |dy^(j)_l|
 * <= 4 eps max_l |y^(j)_l| (the error left is then <= rho / (1 - rho) of
 * it). */
static int exchange_settled(size_t ny, int n, const double *y, const double *yold)
{
    for (int j = 0; j <= n; j++) {
        double d = 0.0, a = 0.0;
        for (size_t l = 0; l < ny; l++) {
            const double v = y[l + (size_t)j * ny], w = yold[l + (size_t)j * ny];
            d = fmax(d, fabs(v - w));
            a = fmax(a, fabs(v));
        }
        if (!(d <= 4.0 * DBL_EPSILON * a))
            return 0;
    }
    return 1;
}

cosa_status cosa_unitset_exchange_derivatives(cosa_unitset *set, int m, int n, double *yder,
                                              size_t *iters)
{
    if (iters)
        *iters = 0;
    if (!set || (set->ny && !yder))
        return COSA_EINVAL;
    if (m < 0 || n < 0 || n > COSA_UNIT_DERMAX || m > COSA_UNIT_DEGMAX)
        return COSA_ERANGE;
    const int q = m < n ? m : n;
    const size_t ny = set->ny, len = ny * ((size_t)n + 1);
    /* without an algebraic loop every derivative is final after at most
     * nunits (n + 1) exchanges (the longest chain of dependencies), and one
     * more exchange confirms it */
    const size_t maxit = set->nunits * ((size_t)n + 1) + 3;
    size_t failed = set->nunits;
    for (size_t it = 1; it <= maxit + COSA_UNITSET_EXCHANGE_LOOP_MAXIT; it++) {
        cosa_status st = read_derivatives(set, n, yder, &failed);
        if (st != COSA_OK)
            return st;
        if (iters)
            *iters = it;
        if (it > 1 && memcmp(yder, set->ey, len * sizeof(double)) == 0)
            return COSA_OK;
        if (it > maxit && exchange_settled(ny, n, yder, set->ey))
            return COSA_OK;
        if (len)
            memcpy(set->ey, yder, len * sizeof(double));
        if ((st = cosa_unitset_set_taylor_inputs(set, q, yder, ny)) != COSA_OK)
            return st;
    }
    return COSA_ENOTCONVERGED;
}
