/* iterate.c -- iterative coupling in the time domain (imp:, gs-imp:, and
 * the explicit gs:P/Q as one sweep): the macro step of README "Iterative
 * coupling" run on units with rollback, driving the master
 * (lib/td/master.c) with given input polynomials (COSA_EXTRAP_GIVEN).
 *
 * One macro step T_n -> T_n + H, s = (t - T_n)/H:
 *   predictor   yhat^(0) = E_p = sum_j e_j ybar_{n-j} (degree-p extrapolation
 *               at s = 1);
 *   sweep j     every unit restarts from x_n; an input from output o is the
 *               degree-q polynomial through s = 1 (the end value v_o), s = 0
 *               (ybar_n), ..., s = 1 - q (ybar_{n-q+1}),
 *                 u_o(s) = l_0(s) v_o + sum_{i=1..q} l_i(s) ybar_{n-i+1,o},
 *               v_o = y^(j)_o if o's unit already advanced in this sweep
 *               (Gauss-Seidel, in sequence order), else yhat^(j-1)_o;
 *               y^(j) the units' outputs at T_n + H;
 *   relaxation  yhat^(j) = yhat^(j-1) + omega_j (y^(j) - yhat^(j-1)), omega_j
 *               the scheme's omega or Aitken's (preCICE's AitkenAcceleration):
 *               omega_1 = sign(omega_prev) min(omega_0, |omega_prev|),
 *               omega_j = -omega_{j-1} r_{j-1}'(r_j - r_{j-1}) / |r_j - r_{j-1}|^2
 *               with the residuals r_j = y^(j) - yhat^(j-1) over R;
 *   convergence |yhat^(j) - yhat^(j-1)|_2 <= tol |yhat^(j)|_2 over R
 *               (preCICE's relative convergence measure on the window-end
 *               values);
 *   accepted    x_{n+1} = x^(j), ybar_{n+1} = y^(j) of the last sweep.
 * R, the outputs read as relaxed iterates: Jacobi every output some unit
 * reads; Gauss-Seidel those read by a unit at a sequence position no later
 * than their own unit's (as cosa_phi_iter_info's M).
 *
 * Jacobi sweeps are the master's proposals (propose with the units saved,
 * read the outputs, reject = rollback; the last one is committed).  The
 * master advances all units at once, so a Gauss-Seidel sweep steps the units
 * here through the unit API from snapshots taken at T_n, in sequence order;
 * the accepted sweep is then proposed once more through the master with the
 * input polynomials it used (deterministic units give it bitwise again) and
 * committed, so that observers, history and read-out are the master's. */
#include "td/unit_impl.h"
#include "td/evolve.h"
#include "td/stepping_impl.h"
#include "core/carve.h"
#include "core/dense.h"
#include "td/unitset_impl.h"
#include "td/master_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ_MAX (COSA_ORDER_MAX + 2)
/* the last sweeps whose update is above rounding measure the contraction:
 * |d_j| > this x |yhat^(j)| keeps ~5 significant digits in the ratio */
#define CONTRACTION_FLOOR 1e-11

struct cosa_iter {
    cosa_unitset *set;
    cosa_master *m;
    size_t nunits, nx, nu, ny, np, nq, nr;
    int p, q, gs, aitken, converge;
    unsigned kmax;
    double H, tol, omega0, omega; /* omega: the factor of the last sweep (Aitken) */
    const double *L;
    size_t *seq, *ridx;
    double itp[NQ_MAX * NQ_MAX], e[NQ_MAX], fact[NQ_MAX];
    const cosa_iteration_type *type; /* the scheme's entry (lib/core/iteration.c) */
    double *z, *yhat, *ynew, *y, *V, *C, *uder, *uacc, *der, *r, *rold, *d;
    double *dv, *xv; /* the update and the iterate over R (the entry's test) */
    cosa_unit_snapshot **snaps;
    size_t failed;
    cosa_iter_stats st;
    double logsum; /* sum of log contraction estimates, over st.nest windows */
};

void cosa_iter_free(cosa_iter *it)
{
    if (!it)
        return;
    for (size_t i = 0; it->snaps && i < it->nunits; i++)
        cosa_unit_snapshot_free(cosa_unitset_unit(it->set, i), it->snaps[i]);
    free(it->snaps);
    cosa_master_free(it->m);
    free(it->seq);
    free(it->ridx);
    free(it->z);
    free(it);
}

/* R (it->ridx, it->nr) from L and the execution order (see the header). */
static void iterate_set(cosa_iter *it)
{
    size_t *pos = it->ridx + it->ny; /* scratch: position of every unit */
    size_t *owner = pos + it->nunits;
    for (size_t k = 0; k < it->nunits; k++)
        pos[it->seq[k]] = k;
    for (size_t i = 0; i < it->nunits; i++) {
        size_t oy;
        cosa_unitset_offsets(it->set, i, NULL, NULL, &oy);
        for (size_t l = 0; l < cosa_unit_ny(cosa_unitset_unit(it->set, i)); l++)
            owner[oy + l] = i;
    }
    it->nr = 0;
    for (size_t o = 0; o < it->ny; o++) {
        int read = 0;
        for (size_t i = 0; i < it->nunits && !read; i++) {
            size_t ou;
            cosa_unitset_offsets(it->set, i, NULL, &ou, NULL);
            if (it->gs && pos[i] > pos[owner[o]])
                continue;
            for (size_t k = 0; k < cosa_unit_nu(cosa_unitset_unit(it->set, i)) && !read; k++)
                read = it->L[ou + k + o * it->nu] != 0.0;
        }
        if (read)
            it->ridx[it->nr++] = o;
    }
}

static cosa_status check_args(cosa_unitset *set, const cosa_scheme *s, double H,
                              const cosa_master_opts *mopt, const cosa_iter_opts *o)
{
    if (!set || !s || !o)
        return COSA_EINVAL;
    if (!cosa_iteration_of(s)->iterates || s->corr != COSA_CORR_NONE)
        return COSA_EUNSUPPORTED;
    if (!isfinite(H) || !(H > 0.0) || !(o->tol > 0.0) || !isfinite(o->tol) ||
        COSA_SCHEME_Q(s) > COSA_UNIT_DEGMAX || s->order < 0)
        return COSA_ERANGE;
    if (cosa_iteration_of(s)->repeats && (!isfinite(s->relax) || s->relax == 0.0))
        return COSA_ERANGE;
    /* the rules of the one table (lib/core/combination.c): sweeps from the
     * reference start on units without rates, held inputs, coupling
     * variables or the mid sample */
    unsigned f = cosa_unitset_has_coupling(set) ? COSA_COMB_COUPLING_VARS : 0u;
    if (mopt && mopt->held)
        f |= COSA_COMB_HELD;
    if (mopt && mopt->sample_mid)
        f |= COSA_COMB_SAMPLE_MID;
    for (size_t i = 0; i < cosa_unitset_count(set); i++)
        if (cosa_unitset_rate(set, i) > 1)
            f |= COSA_COMB_MULTIRATE;
    if (cosa_combination_check(s, f, 0, NULL) != COSA_OK)
        return COSA_EUNSUPPORTED;
    if (s->exec == COSA_GAUSS_SEIDEL && s->seq && !cosa_unitset_is_sequence(set, s->seq))
        return COSA_EINVAL;
    return COSA_OK;
}

cosa_status cosa_iter_create(cosa_unitset *set, const cosa_scheme *s, double H,
                             const cosa_master_opts *mopt, const cosa_iter_opts *o,
                             cosa_iter **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    cosa_status st = check_args(set, s, H, mopt, o);
    if (st != COSA_OK)
        return st;
    cosa_iter *it = calloc(1, sizeof *it);
    if (!it)
        return COSA_ENOMEM;
    it->set = set;
    it->nunits = cosa_unitset_count(set);
    it->nx = cosa_unitset_nx(set);
    it->nu = cosa_unitset_nu(set);
    it->ny = cosa_unitset_ny(set);
    it->L = cosa_unitset_L(set);
    it->p = s->order;
    it->q = COSA_SCHEME_Q(s);
    it->np = (size_t)s->order + 1;
    it->nq = (size_t)it->q + 1;
    it->gs = s->exec == COSA_GAUSS_SEIDEL;
    it->H = H;
    it->tol = o->tol;
    /* the iteration entry (coupling.c): one sweep (gs:P/Q), or k sweeps or
     * to tol with at most k, relaxed */
    it->type = cosa_iteration_of(s);
    const int repeats = it->type->repeats;
    it->converge = repeats && o->converge;
    it->kmax = !repeats ? it->type->max : o->iterations ? o->iterations : it->type->max;
    it->aitken = repeats && o->aitken;
    it->omega0 = it->omega = repeats ? s->relax : 1.0;
    it->failed = it->nunits;
    /* the master: a plain Jacobi scheme of order p for the history ybar_n..ybar_{n-p} */
    cosa_scheme plain = {.order = s->order, .alpha = 1.0, .exec = COSA_JACOBI};
    cosa_master_opts mo = mopt ? *mopt : (cosa_master_opts){0};
    mo.extrapolation = COSA_EXTRAP_GIVEN;
    mo.step_gains = NULL; /* gains serve the output correction: none here */
    const size_t ny = it->ny, nu = it->nu, nq = it->nq;
    size_t big = 1;
    for (size_t i = 0; i < it->nunits; i++)
        big = cosa_unit_nu(cosa_unitset_unit(set, i)) > big ? cosa_unit_nu(cosa_unitset_unit(set, i))
                                                           : big;
    const size_t nd = it->nx + ny * it->np + 4 * ny + ny * nq + 2 * nu * nq + big * nq + 4 * ny +
                      it->kmax + 1;
    if ((st = cosa_master_create(set, &plain, H, &mo, &it->m)) != COSA_OK)
        goto fail;
    st = COSA_ENOMEM;
    if (!(it->seq = calloc(it->nunits + 1, sizeof *it->seq)) ||
        !(it->ridx = calloc(ny + 2 * it->nunits + ny + 1, sizeof *it->ridx)) ||
        !(it->z = calloc(nd, sizeof *it->z)) ||
        !(it->snaps = calloc(it->nunits + 1, sizeof *it->snaps)))
        goto fail;
    double *q = it->z + it->nx + ny * it->np;
    COSA_CARVE(it->yhat, q, ny);
    COSA_CARVE(it->ynew, q, ny);
    COSA_CARVE(it->y, q, ny);
    COSA_CARVE(it->V, q, ny);
    COSA_CARVE(it->C, q, ny * nq);
    COSA_CARVE(it->uder, q, nu * nq);
    COSA_CARVE(it->uacc, q, nu * nq);
    COSA_CARVE(it->der, q, big * nq);
    COSA_CARVE(it->r, q, ny);
    COSA_CARVE(it->rold, q, ny);
    COSA_CARVE(it->dv, q, ny);
    COSA_CARVE(it->xv, q, ny);
    COSA_CARVE(it->d, q, it->kmax + 1);
    const size_t *setseq = cosa_unitset_sequence(set);
    for (size_t k = 0; k < it->nunits; k++)
        it->seq[k] = it->gs ? (s->seq ? s->seq[k] : setseq[k]) : k;
    iterate_set(it);
    double lag[NQ_MAX * NQ_MAX], w[NQ_MAX];
    (void)cosa_order_tables(it->p, lag, it->e, w);
    cosa_lagrange_table(it->q, 1.0, it->itp);
    it->fact[0] = 1.0; /* m! / H^m: s^m coefficients into time derivatives */
    for (size_t mdeg = 1; mdeg < nq; mdeg++)
        it->fact[mdeg] = it->fact[mdeg - 1] * (double)mdeg / H;
    it->st.contraction = NAN;
    *out = it;
    return COSA_OK;
fail:
    cosa_iter_free(it);
    return st;
}

cosa_master *cosa_iter_master(cosa_iter *it) { return it ? it->m : NULL; }

size_t cosa_iter_failed_unit(const cosa_iter *it)
{
    if (!it)
        return 0;
    return it->failed < it->nunits ? it->failed : cosa_master_failed_unit(it->m);
}

cosa_status cosa_iter_get_stats(const cosa_iter *it, cosa_iter_stats *st)
{
    if (!it || !st)
        return COSA_EINVAL;
    *st = it->st;
    st->contraction = it->st.nest ? exp(it->logsum / (double)it->st.nest) : NAN;
    st->relax_last = it->omega;
    return COSA_OK;
}

/* The input derivatives u^(0..q)(T_n) (nu x nq, ld nu) of the end values V:
 * the output polynomials' s^m coefficients C = sum_i l_im [V | ybar_n ..],
 * then u = L C scaled by m!/H^m. */
static cosa_status input_polys(cosa_iter *it, const double *V, double *uder)
{
    const size_t ny = it->ny, nq = it->nq;
    const double *hist = it->z + it->nx;
    for (size_t mdeg = 0; mdeg < nq; mdeg++)
        for (size_t o = 0; o < ny; o++) {
            double c = it->itp[mdeg] * V[o];
            for (size_t i = 1; i < nq; i++)
                c += it->itp[i * nq + mdeg] * hist[o + (i - 1) * ny];
            it->C[o + mdeg * ny] = c * it->fact[mdeg];
        }
    if (it->nu)
        cosa_unitset_couple(it->set, 0, it->nu, nq, it->C, ny ? ny : 1, uder, it->nu);
    return dense_isfinite(it->nu, nq, uder, it->nu ? it->nu : 1) ? COSA_OK : COSA_ENONFINITE;
}

/* A Jacobi sweep: the master's proposal from yhat^(j-1), its outputs y^(j). */
static cosa_status sweep_jacobi(cosa_iter *it)
{
    cosa_status st = input_polys(it, it->yhat, it->uder);
    if (st == COSA_OK)
        st = cosa_master_set_inputs(it->m, it->q, it->uder);
    if (st == COSA_OK && (st = cosa_master_propose(it->m, 1)) != COSA_OK)
        cosa_master_reject(it->m); /* restores what was saved */
    if (st == COSA_OK)
        st = cosa_master_proposal_outputs(it->m, it->y);
    return st;
}

/* A Gauss-Seidel sweep through the units (restored to T_n for j > 1), in
 * sequence order; the stacked input derivatives it used into it->uacc. */
static cosa_status sweep_gs(cosa_iter *it, unsigned j)
{
    const size_t nu = it->nu, nq = it->nq;
    memcpy(it->V, it->yhat, it->ny * sizeof *it->V);
    for (size_t k = 0; k < it->nunits; k++) {
        const size_t i = it->seq[k];
        cosa_unit *u = cosa_unitset_unit(it->set, i);
        size_t ou, oy;
        cosa_unitset_offsets(it->set, i, NULL, &ou, &oy);
        const size_t nui = cosa_unit_nu(u), nyi = cosa_unit_ny(u);
        cosa_status st = j > 1 ? cosa_unit_restore(u, it->snaps[i]) : COSA_OK;
        if (st == COSA_OK)
            st = input_polys(it, it->V, it->uder);
        for (size_t mdeg = 0; st == COSA_OK && mdeg < nq; mdeg++)
            for (size_t r = 0; r < nui; r++) {
                const double v = it->uder[ou + r + mdeg * nu];
                it->der[r + mdeg * nui] = v;
                it->uacc[ou + r + mdeg * nu] = v;
            }
        if (st == COSA_OK)
            st = cosa_unit_set_input(u, it->q, it->der);
        if (st == COSA_OK)
            st = cosa_unit_do_step(u, it->H);
        if (st == COSA_OK && nyi)
            st = cosa_unit_get_output(u, it->y + oy);
        if (st != COSA_OK) {
            it->failed = i;
            return st;
        }
        memcpy(it->V + oy, it->y + oy, nyi * sizeof *it->V); /* later units read it */
    }
    return COSA_OK;
}

/* Relaxation of sweep j (fixed or Aitken's omega) into yhat; *d the update
 * |yhat^(j) - yhat^(j-1)| over R, *ynorm = |yhat^(j)| over R; returns the
 * iteration entry's convergence test of them. */
static int relax(cosa_iter *it, unsigned j, double *d, double *ynorm)
{
    const size_t nr = it->nr;
    for (size_t k = 0; k < nr; k++)
        it->r[k] = it->y[it->ridx[k]] - it->yhat[it->ridx[k]];
    if (it->aitken && j == 1) {
        const double a = fabs(it->omega) < it->omega0 ? fabs(it->omega) : it->omega0;
        it->omega = it->omega < 0.0 ? -a : a;
    } else if (it->aitken) {
        double num = 0.0, den = 0.0, yy = 0.0;
        for (size_t k = 0; k < nr; k++) {
            const double dr = it->r[k] - it->rold[k];
            num += it->rold[k] * dr;
            den += dr * dr;
            yy += it->yhat[it->ridx[k]] * it->yhat[it->ridx[k]];
        }
        /* a residual change at rounding level carries no secant: keep omega */
        if (den > CONTRACTION_FLOOR * CONTRACTION_FLOOR * yy && isfinite(num / den))
            it->omega = -it->omega * num / den;
    }
    memcpy(it->rold, it->r, nr * sizeof *it->r);
    const double om = it->omega;
    for (size_t o = 0; o < it->ny; o++)
        it->ynew[o] = it->yhat[o] + om * (it->y[o] - it->yhat[o]);
    for (size_t k = 0; k < nr; k++) {
        it->dv[k] = it->ynew[it->ridx[k]] - it->yhat[it->ridx[k]];
        it->xv[k] = it->ynew[it->ridx[k]];
    }
    memcpy(it->yhat, it->ynew, it->ny * sizeof *it->yhat);
    return it->type->converged(nr, it->dv, it->xv, it->tol, d, ynorm);
}

/* Statistics of a finished window of J sweeps with updates d_1..d_J: the
 * contraction per sweep from the sweeps whose update is above rounding. */
static void window_done(cosa_iter *it, unsigned J, int converged, double ylast)
{
    it->st.windows++;
    it->st.sweeps += J;
    if (J > it->st.sweeps_max)
        it->st.sweeps_max = J;
    if (!converged)
        it->st.not_converged++;
    unsigned jb = 0;
    for (unsigned j = 1; j <= J; j++)
        if (it->d[j] > CONTRACTION_FLOOR * ylast)
            jb = j;
    if (jb < 4)
        return;
    /* least-squares slope of log d_j over j = 2..jb (d_j = T d_{j-1} from
     * j = 2 on): the oscillation of a complex pair averages out */
    double sj = 0.0, sl = 0.0, sjj = 0.0, sjl = 0.0;
    const double n = (double)(jb - 1);
    for (unsigned k = 2; k <= jb; k++) {
        const double l = log(it->d[k]);
        sj += k, sl += l, sjj += (double)k * k, sjl += k * l;
    }
    it->logsum += (n * sjl - sj * sl) / (n * sjj - sj * sj);
    it->st.nest++;
}

/* The iterated step up to its commit: the sweeps, their rollbacks, and the
 * accepted sweep's proposal left on the master (evolve.h). */
cosa_status iter_propose(cosa_iter *it)
{
    if (!it)
        return COSA_EINVAL;
    const size_t ny = it->ny;
    it->failed = it->nunits;
    cosa_status st = cosa_master_info(it->m, it->z); /* x_n | ybar_n .. ybar_{n-p} */
    if (st != COSA_OK)
        return st;
    const double *hist = it->z + it->nx;
    for (size_t o = 0; o < ny; o++) { /* predictor E_p */
        double v = 0.0;
        for (size_t j = 0; j < it->np; j++)
            v += it->e[j] * hist[o + j * ny];
        it->yhat[o] = v;
    }
    for (size_t i = 0; it->gs && i < it->nunits; i++)
        if ((st = cosa_unit_save(cosa_unitset_unit(it->set, i), &it->snaps[i])) != COSA_OK) {
            it->failed = i;
            return st;
        }
    unsigned j = 0;
    int converged = 0;
    double ynorm = 0.0;
    while (j < it->kmax) {
        j++;
        st = it->gs ? sweep_gs(it, j) : sweep_jacobi(it);
        if (st != COSA_OK)
            return st;
        converged = relax(it, j, &it->d[j], &ynorm);
        if (!isfinite(it->d[j]) || !isfinite(ynorm))
            return COSA_ENONFINITE;
        if ((it->converge && converged) || j == it->kmax)
            break;
        if (!it->gs && (st = cosa_master_reject(it->m)) != COSA_OK)
            return st;
        it->st.rollbacks++; /* the next sweep starts from T_n again */
    }
    window_done(it, j, converged, ynorm);
    if (it->gs) { /* the accepted sweep once more through the master */
        it->st.rollbacks++;
        for (size_t i = 0; i < it->nunits; i++)
            if ((st = cosa_unit_restore(cosa_unitset_unit(it->set, i), it->snaps[i])) !=
                COSA_OK) {
                it->failed = i;
                return st;
            }
        if ((st = cosa_master_set_inputs(it->m, it->q, it->uacc)) != COSA_OK ||
            (st = cosa_master_propose(it->m, 0)) != COSA_OK)
            return st;
    }
    return COSA_OK;
}

cosa_status cosa_iter_step(cosa_iter *it)
{
    cosa_status st = iter_propose(it);
    return st == COSA_OK ? cosa_master_commit(it->m) : st;
}
