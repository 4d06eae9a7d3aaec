/* master.c -- the time-domain master: runs any Jacobi or Gauss-Seidel scheme
 * of the Phi engine (cosa_scheme) on a unit set, with output correction,
 * state correction and MBCorr from Jacobians the units supply at every macro
 * step (MBCorr paper section 2.3, steps 1-5; doc/method.md, sections 4-6,
 * "Gauss-Seidel").
 *
 * A macro step T_n -> T_{n+1}, s = (t - T_n)/H, is a chain of stages that
 * write a *proposal*; commit accepts it, reject drops it (and restores the
 * units from their snapshots), so a controller can retry a step:
 *   extrapolate  P(s) = sum_j l_j(s) ybar_{n-j}, Lagrange basis on
 *                s = 0, -1, ..., -p; E_p = P(1) = sum_j e_j ybar_{n-j};
 *   advance      u~(s) = L P(s) + du_n, handed to each unit as value and
 *                derivatives at T_n (d^m u~/dt^m = m! a_m / H^m for
 *                u~ = sum_m a_m s^m), step, outputs y_{n+1}; the execution
 *                scheme is a table entry: Jacobi, or Gauss-Seidel, whose
 *                advanced units' outputs then enter through the basis on
 *                s = 1, 0, ..., 1-p through y_{n+1}, ybar_n, ..., ybar_{n+1-p};
 *   correct outputs (eq 14, integral form):
 *                (I - G_p L) ybar_{n+1} = y_{n+1} - G_p L E_p - G_0 du_n,
 *                G_p = C_n sum_m w_m Q_m + D_n, G_0 = C_n Q_0 + D_n, with
 *                Q_m = int_0^H e^{A_n (H - tau)} B_n (tau/H)^m dtau from the
 *                Van Loan discretisation (core) of the stacked Jacobians;
 *   correct state (eq 22): du_{n+1} = (1 - alpha) du_n + alpha kappa_p L (ybar_{n+1} - E_p);
 *   commit       history shift, T_{n+1}, observers.
 * The coefficient tables (l_j, e_j, w_m, kappa_p) are those of the Phi
 * engine (lib/core/tables.c). */
#include "td/master_impl.h"
#include "td/input_builder.h"
#include "td/stepping_impl.h"
#include "core/carve.h"
#include "core/discretize_impl.h"
#include "td/unitset_impl.h"
#include "td/unit_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- execution schemes (a table, not a branch per stage) --------------------- */

/* What differs between Jacobi and Gauss-Seidel in the advance stage: what
 * happens to the output polynomials once unit i has advanced. */
struct exec_type {
    const char *name;
    void (*after_unit)(cosa_master *m, size_t i);
};

/* Gauss-Seidel: interpolation through (1, y_{n+1}), (0, ybar_n), ...,
 * (1-p, ybar_{n+1-p}) for the outputs of unit i. */
static void gs_after_unit(cosa_master *m, size_t i)
{
    const size_t ny = m->ny, np = m->np;
    size_t oy;
    cosa_unitset_offsets(m->set, i, NULL, NULL, &oy);
    const size_t nyi = cosa_unitset_unit(m->set, i)->ny;
    for (size_t l = oy; l < oy + nyi; l++)
        for (size_t k = 0; k < np; k++) {
            double c = m->lag1[k] * m->y_new[l];
            for (size_t j = 1; j < np; j++)
                c += m->lag1[j * np + k] * m->hist[l + (j - 1) * ny];
            m->P[l + k * ny] = c;
        }
}

static const struct exec_type exec_types[] = {
    [COSA_JACOBI] = {"jacobi", NULL},
    [COSA_GAUSS_SEIDEL] = {"gauss-seidel", gs_after_unit},
};

/* ---- life cycle ---------------------------------------------------------------- */

void cosa_master_free(cosa_master *m)
{
    if (!m)
        return;
    if (m->snaps)
        for (size_t i = 0; i < m->nunits; i++)
            cosa_unit_snapshot_free(cosa_unitset_unit(m->set, i), m->snaps[i]);
    free(m->snaps);
    if (m->msnaps)
        for (size_t i = 0; i < m->nunits; i++)
            cosa_unit_snapshot_free(cosa_unitset_unit(m->set, i), m->msnaps[i]);
    free(m->msnaps);
    if (m->gsnaps)
        for (size_t i = 0; i < m->nunits; i++)
            cosa_unit_snapshot_free(cosa_unitset_unit(m->set, i), m->gsnaps[i]);
    free(m->gsnaps);
    master_event_free(m);
    free(m->sgain);
    free(m->sGp);
    free(m->yder);
    free(m->gder);
    free(m->gst);
    cosa_disc_workspace_free(m->dw);
    cosa_system_free(m->jsys);
    free(m->seq);
    free(m->buf);
    free(m->ipiv);
    free(m);
}

/* Stacked system of zero Jacobians with the dimensions of the units. */
static cosa_status jsys_create(cosa_master *m)
{
    cosa_subsystem *subs = calloc(m->nunits, sizeof *subs);
    size_t big = 0;
    for (size_t i = 0; i < m->nunits; i++) {
        const cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t sz = u->nx * u->nx + u->nx * u->nu + u->ny * u->nx + u->ny * u->nu;
        big = sz > big ? sz : big;
    }
    double *zeros = calloc(big + 1, sizeof(double));
    cosa_status st = COSA_ENOMEM;
    if (subs && zeros) {
        for (size_t i = 0; i < m->nunits; i++) {
            const cosa_unit *u = cosa_unitset_unit(m->set, i);
            subs[i] = (cosa_subsystem){u->nx, u->nu, u->ny, zeros, zeros, zeros, zeros};
        }
        st = cosa_system_create(&m->jsys, m->nunits, subs, m->L);
        if (st == COSA_OK) {
            m->dw = cosa_disc_workspace_alloc(m->jsys, m->p);
            if (!m->dw)
                st = COSA_ENOMEM;
        }
    }
    free(subs);
    free(zeros);
    return st;
}

/* Imperfect model knowledge (cosa_scheme.model): the output correction uses
 * the model's matrices as fixed Jacobians instead of linearising the units.
 * jsys is the model's subsystems themselves: a subsystem's inputs and
 * outputs are its unit's, its state count may differ (a black box, which
 * runs without states, corrected on its identified model: G_p and G_0 are
 * input-output maps, the same for every realisation). */
static cosa_status use_model(cosa_master *m, const cosa_system *model)
{
    if (cosa_system_nsub(model) != m->nunits)
        return COSA_EMODELSHAPE;
    const double *A = cosa_system_A(model), *B = cosa_system_B(model),
                 *C = cosa_system_C(model), *D = cosa_system_D(model);
    const size_t nx = cosa_system_nx(model), ny = cosa_system_ny(model);
    size_t total = 0;
    for (size_t i = 0; i < m->nunits; i++) {
        const cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t nxi, nui, nyi, ox, ou, oy;
        cosa_system_sub_dims(model, i, &nxi, &nui, &nyi, &ox, &ou, &oy);
        if (nui != u->nu || nyi != u->ny)
            return COSA_EMODELSHAPE;
        total += nxi * nxi + nxi * nui + nyi * nxi + nyi * nui;
    }
    cosa_subsystem *subs = calloc(m->nunits, sizeof *subs);
    double *buf = calloc(total + 1, sizeof *buf), *q = buf;
    cosa_status st = COSA_ENOMEM;
    if (subs && buf) {
        for (size_t i = 0; i < m->nunits; i++) {
            size_t nxi, nui, nyi, ox, ou, oy;
            cosa_system_sub_dims(model, i, &nxi, &nui, &nyi, &ox, &ou, &oy);
            double *Ai = q, *Bi = Ai + nxi * nxi, *Ci = Bi + nxi * nui, *Di = Ci + nyi * nxi;
            q = Di + nyi * nui;
            dense_copy(nxi, nxi, A + ox + ox * nx, nx, Ai, nxi);
            dense_copy(nxi, nui, B + ox + ou * nx, nx, Bi, nxi);
            dense_copy(nyi, nxi, C + oy + ox * ny, ny, Ci, nyi);
            dense_copy(nyi, nui, D + oy + ou * ny, ny, Di, nyi);
            subs[i] = (cosa_subsystem){nxi, nui, nyi, Ai, Bi, Ci, Di};
        }
        cosa_system *js = NULL;
        st = cosa_system_create(&js, m->nunits, subs, m->L);
        cosa_disc_workspace *dw = st == COSA_OK ? cosa_disc_workspace_alloc(js, m->p) : NULL;
        if (st == COSA_OK && !dw) {
            cosa_system_free(js);
            st = COSA_ENOMEM;
        }
        if (st == COSA_OK) {
            cosa_disc_workspace_free(m->dw);
            cosa_system_free(m->jsys);
            m->jsys = js;
            m->dw = dw;
            m->fixed_jac = 1;
        }
    }
    free(subs);
    free(buf);
    return st;
}

/* The units whose G_p, G_0 come from cosa_unit_step_gains (opt.step_gains):
 * flags, the stacked blocks and the scratch. */
static cosa_status step_gains_setup(cosa_master *m, const unsigned char *flags)
{
    size_t blk = 0;
    for (size_t i = 0; i < m->nunits; i++) {
        const cosa_unit *u = cosa_unitset_unit(m->set, i);
        if (!flags[i])
            continue;
        if (!(u->type->caps & COSA_UNIT_CAN_SAVE_STATE)) {
            m->failed = i;
            return COSA_EUNSUPPORTED;
        }
        m->nsgain++;
        blk = u->ny * u->nu > blk ? u->ny * u->nu : blk;
    }
    if (!m->nsgain)
        return COSA_OK;
    const size_t ny = m->ny, nu = m->nu;
    m->sgain = malloc(m->nunits);
    m->gsnaps = calloc(m->nunits, sizeof *m->gsnaps);
    m->sGp = calloc(2 * ny * nu + 2 * ny + nu + 2 * blk + 1, sizeof(double));
    if (!m->sgain || !m->gsnaps || !m->sGp)
        return COSA_ENOMEM;
    memcpy(m->sgain, flags, m->nunits);
    m->sG0 = m->sGp + ny * nu;
    m->gwork = m->sG0 + ny * nu;
    m->gblk = m->gwork + 2 * ny + nu;
    return COSA_OK;
}

/* The run's features as the combination rules name them (COSA_COMB_*),
 * with the input builder's bit (its rows). */
static unsigned master_features(cosa_unitset *set, const cosa_input_builder_type *in,
                                const cosa_master_opts *opt)
{
    unsigned f = in->comb;
    if (cosa_unitset_has_coupling(set))
        f |= COSA_COMB_COUPLING_VARS;
    for (size_t i = 0; i < cosa_unitset_count(set); i++)
        if (cosa_unitset_rate(set, i) > 1)
            f |= COSA_COMB_MULTIRATE;
    if (opt && opt->sample_mid)
        f |= COSA_COMB_SAMPLE_MID;
    if (opt && opt->step_gains)
        f |= COSA_COMB_STEP_GAINS;
    if (opt && opt->held)
        f |= COSA_COMB_HELD;
    if (opt && opt->events)
        f |= COSA_COMB_EVENTS;
    return f;
}

/* The features asked before the builder's own options (check), the rest
 * after: the order of the master's refusals (the scheme's execution and
 * corrections are asked in both). */
#define MASTER_FIRST_FEATURES                                                     \
    (COSA_COMB_INPUT_HISTORY | COSA_COMB_INPUT_TAYLOR | COSA_COMB_INPUT_GIVEN |   \
     COSA_COMB_COUPLING_VARS | COSA_COMB_SAMPLE_MID | COSA_COMB_STEP_GAINS)

/* What the master runs, checked before anything is allocated; *comb the
 * features the rules were asked (m->comb). */
static cosa_status master_check(cosa_unitset *set, const cosa_scheme *s, double H,
                                const cosa_master_opts *opt, unsigned *comb)
{
    if (!set || !s)
        return COSA_EINVAL;
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    cosa_status st = cosa_scheme_check(s, NULL);
    if (st != COSA_OK)
        return st;
    if (cosa_iteration_of(s)->iterates) /* the iteration drives a master: iterate.c */
        return COSA_EUNSUPPORTED;
    if (s->exec == COSA_GAUSS_SEIDEL && s->seq && !cosa_unitset_is_sequence(set, s->seq))
        return COSA_EINVAL;
    const cosa_input_builder_type *in = cosa_input_builder_of(opt);
    if (!in)
        return COSA_EINVAL;
    /* the rules of the one table (lib/core/combination.c): what the input
     * builder composes with, the features among themselves (events: plain
     * Jacobi without corrections, one step per unit, no mid sample; unit
     * steps: plain Jacobi, no snapshots of the step); the builder's own
     * options in between */
    *comb = master_features(set, in, opt);
    if (cosa_combination_check(s, *comb & MASTER_FIRST_FEATURES, 0, NULL) != COSA_OK)
        return COSA_EUNSUPPORTED;
    if (in->check && (st = in->check(opt)) != COSA_OK)
        return st;
    return cosa_combination_check(s, *comb, 0, NULL);
}

/* The execution sequence and the one block of the step's vectors and
 * matrices (m->buf, carved). */
static cosa_status master_alloc_work(cosa_master *m, const cosa_scheme *s)
{
    const size_t nunits = m->nunits, nx = m->nx, nu = m->nu, ny = m->ny;
    m->seq = calloc(nunits, sizeof *m->seq);
    if (!m->seq)
        return COSA_ENOMEM;
    const size_t *setseq = cosa_unitset_sequence(m->set);
    size_t big = 0;
    for (size_t i = 0; i < nunits; i++) {
        const cosa_unit *u = cosa_unitset_unit(m->set, i);
        if (s->exec == COSA_GAUSS_SEIDEL)
            m->seq[i] = s->seq ? s->seq[i] : setseq[i];
        else
            m->seq[i] = i;
        size_t sz = u->nx * u->nx + u->nx * u->nu + u->ny * u->nx + u->ny * u->nu;
        big = sz > big ? sz : big;
    }
    m->s.seq = m->seq;
    if (!(s->corr & COSA_CORR_OUTPUT))
        big = 0; /* one unit's Jacobians serve the output correction only (long
                    banded units must not get an nx x nx scratch) */
    const size_t np = m->np;
    /* QW: correction only, with the states of the model it uses (use_model) */
    const size_t nxq = s->model ? cosa_system_nx(s->model) : nx;
    const size_t nqw = (s->corr & COSA_CORR_OUTPUT) ? nxq * nu : 0;
    size_t total = 2 * ny * np + 3 * nu + 2 * ny + ny * np + 2 * nu * np + ny + nu + ny + nu +
                   big + nqw + 2 * ny * nu + ny * ny + 1;
    m->buf = calloc(total, sizeof(double));
    m->ipiv = calloc(ny + 1, sizeof *m->ipiv);
    if (!m->buf || !m->ipiv)
        return COSA_ENOMEM;
    double *q = m->buf;
    COSA_CARVE(m->hist, q, ny * np);
    COSA_CARVE(m->hist_new, q, ny * np);
    COSA_CARVE(m->du, q, nu);
    COSA_CARVE(m->du_new, q, nu);
    COSA_CARVE(m->uoff, q, nu);
    COSA_CARVE(m->y, q, ny);
    COSA_CARVE(m->y_new, q, ny);
    COSA_CARVE(m->P, q, ny * np);
    COSA_CARVE(m->a, q, nu * np);
    COSA_CARVE(m->der, q, nu * np);
    COSA_CARVE(m->Ep, q, ny);
    COSA_CARVE(m->vu, q, nu);
    COSA_CARVE(m->vy, q, ny);
    COSA_CARVE(m->u0, q, nu);
    COSA_CARVE(m->jA, q, big);
    COSA_CARVE(m->QW, q, nqw);
    COSA_CARVE(m->Gp, q, ny * nu);
    COSA_CARVE(m->G0, q, ny * nu);
    COSA_CARVE(m->IGL, q, ny * ny);
    return COSA_OK;
}

/* The input builder's state, and the derivative records every builder
 * hands out: y^(0..n) at T_n and T_n + H (NEEDS_OUTPUT_DER), u^(0..q), the
 * mid sample. */
static cosa_status master_alloc_inputs(cosa_master *m, const cosa_master_opts *opt)
{
    const size_t nu = m->nu, ny = m->ny;
    cosa_status st = m->in->alloc(m, opt);
    if (st != COSA_OK)
        return st;
    const size_t nd = (size_t)(m->in->needs & COSA_INPUT_NEEDS_OUTPUT_DER ? m->nout + 1 : 0);
    const size_t nq =
        (size_t)(m->in->needs & COSA_INPUT_NEEDS_CALLER ? COSA_UNIT_DEGMAX : m->q) + 1;
    m->yder = calloc(3 * ny * nd + nu * nq + ny + 1, sizeof(double));
    if (!m->yder)
        return COSA_ENOMEM;
    m->yend = m->yder + ny * nd;
    m->uder = m->yend + ny * nd;
    m->ymid = m->uder + nu * nq;
    m->dtmp = m->ymid + ny;
    return COSA_OK;
}

cosa_status cosa_master_create(cosa_unitset *set, const cosa_scheme *s, double H,
                               const cosa_master_opts *opt, cosa_master **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    unsigned comb = 0;
    cosa_status st = master_check(set, s, H, opt, &comb);
    if (st != COSA_OK)
        return st;

    cosa_master *m = calloc(1, sizeof *m);
    if (!m)
        return COSA_ENOMEM;
    m->set = set;
    m->nunits = cosa_unitset_count(set);
    m->mid_lost = m->nunits;
    m->nx = cosa_unitset_nx(set);
    m->nu = cosa_unitset_nu(set);
    m->ny = cosa_unitset_ny(set);
    m->L = cosa_unitset_L(set);
    m->s = *s;
    m->exec = &exec_types[s->exec];
    m->in = cosa_input_builder_of(opt);
    m->comb = comb;
    m->p = s->order;
    m->np = (size_t)s->order + 1;
    m->has_du = (s->corr & COSA_CORR_STATE) != 0;
    m->H = H;
    if (opt)
        m->opt = *opt;
    m->failed = m->nunits;
    if ((st = master_alloc_work(m, s)) != COSA_OK ||
        (st = master_alloc_inputs(m, opt)) != COSA_OK) {
        cosa_master_free(m);
        return st;
    }
    m->kappa = cosa_order_tables(m->p, m->lag, m->e, m->w);
    cosa_lagrange_table(m->p, 1.0, m->lag1);
    if (s->corr & COSA_CORR_OUTPUT) {
        /* the units' Jacobians, or a fixed model's (whose states may not be
         * the units': a black box without any) */
        st = s->model ? use_model(m, s->model) : jsys_create(m);
        if (st != COSA_OK) {
            cosa_master_free(m);
            return st;
        }
    }
    m->s.model = NULL; /* copied into jsys; the master does not keep it */
    if ((s->corr & COSA_CORR_OUTPUT) && !m->fixed_jac && opt && opt->step_gains &&
        (st = step_gains_setup(m, opt->step_gains)) != COSA_OK) {
        cosa_master_free(m);
        return st;
    }
    m->opt.step_gains = NULL; /* borrowed: copied into sgain */
    if (m->opt.events && (st = master_event_alloc(m)) != COSA_OK) {
        cosa_master_free(m);
        return st;
    }
    m->nvalid = m->np;
    *out = m;
    return COSA_OK;
}

cosa_status cosa_master_set_input_offset(cosa_master *m, const double *off)
{
    if (!m)
        return COSA_EINVAL;
    if (off && !dense_isfinite(m->nu, 1, off, m->nu))
        return COSA_ENONFINITE;
    for (size_t k = 0; k < m->nu; k++)
        m->uoff[k] = off ? off[k] : 0.0;
    return COSA_OK;
}

cosa_status cosa_master_add_observer(cosa_master *m, const cosa_observer *obs)
{
    if (!m || !obs)
        return COSA_EINVAL;
    if (m->nobs >= COSA_MASTER_OBSERVERS)
        return COSA_ERANGE;
    m->obs[m->nobs++] = *obs;
    return COSA_OK;
}

/* Call every observer's initialized (which = 0) or step_complete (1); the
 * first status other than COSA_OK is returned, all are called. */
cosa_status master_notify(const cosa_master *m, int which)
{
    cosa_status first = COSA_OK;
    for (size_t k = 0; k < m->nobs; k++) {
        const cosa_observer *o = &m->obs[k];
        cosa_status (*fn)(const cosa_master *, void *) =
            which ? o->step_complete : o->initialized;
        cosa_status st = fn ? fn(m, o->user_data) : COSA_OK;
        if (st != COSA_OK && first == COSA_OK)
            first = st;
    }
    return first;
}


/* The units whose next time event is the communication point m->t -- an
 * FMU's input clock tick (README "Clocks"), a nextEventTime on the grid:
 * Event Mode there (cosa_unit_event_update) with their inputs at t (u = L
 * ybar_n + du from the newest sample, the coupling as the next step sees
 * it), then their outputs read again; the history of those outputs
 * restarts at the new value (every slot), so no extrapolation spans the
 * jump.  Time events off the grid are met inside the unit's step. */
static cosa_status point_events(cosa_master *m)
{
    /* passes until no unit is due: an Event Mode may ask for another's at the
     * same time (a clock link); the inputs from the outputs as they are */
    int any = 1;
    for (size_t pass = 0; any && pass <= m->nunits; pass++) {
        any = 0;
        for (size_t i = 0; i < m->nunits; i++) {
            cosa_unit *u = cosa_unitset_unit(m->set, i);
            /* the event time as the unit computed it (a tick t0 + k T from its
             * own time, a sum of step lengths): 1e-9 H + 4 eps |t|, as the clocks' */
            const double tol = 1e-9 * m->H + 4.0 * DBL_EPSILON * fabs(m->t);
            if (!cosa_unit_has_events(u) || !(cosa_unit_next_event(u) <= m->t + tol))
                continue;
            if (!any)
                master_inputs_of(m, m->hist, m->u0);
            any = 1;
            size_t ou, oy;
            cosa_unitset_offsets(m->set, i, NULL, &ou, &oy);
            cosa_status st = cosa_unit_set_input(u, 0, m->u0 + ou);
            if (st == COSA_OK)
                st = cosa_unit_event_update(u, NULL);
            if (st == COSA_OK && u->ny)
                st = cosa_unit_get_output(u, m->y + oy);
            if (st != COSA_OK) {
                m->failed = i;
                return st;
            }
            for (size_t j = 0; j < m->np; j++)
                memcpy(m->hist + j * m->ny + oy, m->y + oy, u->ny * sizeof *m->y);
        }
    }
    return COSA_OK;
}

cosa_status master_discrete(cosa_master *m)
{
    return cosa_unitset_discrete_exchange(m->set, &m->failed);
}

cosa_status cosa_master_init(cosa_master *m, double t0, const double *x0, const double *yhist,
                             const double *du0)
{
    if (!m || (m->nx && !x0) ||
        (m->ny && !yhist && (m->in->needs & COSA_INPUT_NEEDS_HISTORY)))
        return COSA_EINVAL;
    if (!isfinite(t0) || (yhist && !dense_isfinite(m->ny, m->np, yhist, m->ny)) ||
        (du0 && !dense_isfinite(m->nu, 1, du0, m->nu)))
        return COSA_ENONFINITE;
    for (size_t i = 0; i < m->nunits; i++) {
        size_t ox;
        cosa_unitset_offsets(m->set, i, &ox, NULL, NULL);
        cosa_status st =
            cosa_unit_set_state(cosa_unitset_unit(m->set, i), t0, x0 ? x0 + ox : NULL);
        if (st != COSA_OK)
            return st;
    }
    m->t = t0;
    m->t_base = t0;
    m->nsince = 0;
    m->nvalid = m->np;
    cosa_status st = m->in->init(m, yhist);
    if (st != COSA_OK)
        return st;
    for (size_t k = 0; k < m->nu; k++)
        m->du[k] = m->has_du && du0 ? du0[k] : 0.0;
    m->proposed = 0;
    m->saved = 0;
    m->have_data = 0;
    m->at_event = 0;
    m->mid_lost = m->nunits;
    m->mid_lost_now = 0;
    m->mid_why[0] = '\0';
    for (size_t j = 0; m->hist_t && j < m->np; j++) /* the start-up samples, H apart */
        m->hist_t[j] = t0 - (double)j * m->H;
    st = point_events(m);
    if (st == COSA_OK)
        st = master_discrete(m);
    return st == COSA_OK ? master_notify(m, 0) : st;
}

cosa_status cosa_master_init_initial(cosa_master *m, double t0, const double *x0)
{
    if (!m)
        return COSA_EINVAL;
    if (cosa_combination_check(&m->s, m->comb | COSA_COMB_INITIAL, 0, NULL) != COSA_OK)
        return COSA_EUNSUPPORTED; /* no history to correct against; Taylor inputs */
    cosa_status st = cosa_master_init_loop(m, t0, x0);
    if (st == COSA_OK)
        m->nvalid = 1;
    return st;
}

cosa_status cosa_master_init_loop(cosa_master *m, double t0, const double *x0)
{
    if (!m || (m->nx && !x0))
        return COSA_EINVAL;
    for (size_t k = 0; k < m->ny; k++)
        m->vy[k] = 0.0;
    cosa_status st = cosa_unitset_loop_solve(m->set, t0, x0, m->vy);
    if (st != COSA_OK)
        return st;
    for (size_t j = 0; j < m->np; j++)
        memcpy(m->hist_new + j * m->ny, m->vy, m->ny * sizeof *m->vy);
    return cosa_master_init(m, t0, x0, m->hist_new, NULL);
}

/* ---- stages ---------------------------------------------------------------------- */

/* The history from the samples yhist (ny x np): ybar_n, ..., ybar_{n-p},
 * and y = ybar_n. */
void master_history_from(cosa_master *m, const double *yhist)
{
    memcpy(m->hist, yhist, m->ny * m->np * sizeof *yhist);
    memcpy(m->y, yhist, m->ny * sizeof *yhist);
}

/* ubar = L v + c + du for a stacked output vector v. */
void master_inputs_of(const cosa_master *m, const double *v, double *uout)
{
    if (!m->nu)
        return;
    cosa_unitset_couple(m->set, 0, m->nu, 1, v, m->ny ? m->ny : 1, uout, m->nu);
    for (size_t k = 0; k < m->nu; k++)
        uout[k] += m->du[k] + m->uoff[k];
}

/* Linearise every unit at (t, its state, input uin (stacked)) and store the
 * Jacobians in the stacked system (eq 7).  Only I - G_p L must be regular
 * (checked by the output correction), so the algebraic loop of the
 * Jacobians is not checked here. */
static cosa_status linearise(cosa_master *m, double t, const double *uin)
{
    if (m->fixed_jac || m->nsgain == m->nunits)
        return COSA_OK;
    for (size_t i = 0; i < m->nunits; i++) {
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        const size_t nx = u->nx, nu = u->nu, ny = u->ny;
        size_t ou;
        cosa_unitset_offsets(m->set, i, NULL, &ou, NULL);
        double *A = m->jA, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx;
        cosa_status st = COSA_OK;
        if (m->sgain && m->sgain[i]) /* G_p, G_0 from its steps (step_gains) */
            memset(A, 0, (nx * nx + nx * nu + ny * nx + ny * nu) * sizeof *A);
        else
            st = cosa_unit_jacobian(u, t, u->x, uin + ou, m->opt.force_fd, A, B, C, D);
        if (st == COSA_OK) {
            cosa_subsystem sub = {nx, nu, ny, A, B, C, D};
            st = cosa_system_store_subsystem(m->jsys, i, &sub);
        }
        if (st != COSA_OK) {
            m->failed = i;
            return st;
        }
    }
    return COSA_OK;
}

/* The outputs of unit i at T_n + H/2 under the input polynomial it has:
 * a half step from a snapshot, read, restore -- the step itself is then
 * taken from the unchanged state, so it is bitwise the one without. */
static cosa_status sample_mid(cosa_master *m, size_t i, cosa_unit *u, size_t oy)
{
    if (!m->msnaps && !(m->msnaps = calloc(m->nunits, sizeof *m->msnaps)))
        return COSA_ENOMEM;
    cosa_status st = cosa_unit_save(u, &m->msnaps[i]);
    if (st != COSA_OK)
        return st;
    st = cosa_unit_do_step(u, 0.5 * m->H);
    if (st == COSA_OK) {
        cosa_unit_counters_of(u)->defect_steps++;
        st = cosa_unit_get_output(u, m->ymid + oy);
    }
    if (st != COSA_OK && m->mid_lost == m->nunits)
        snprintf(m->mid_why, sizeof m->mid_why, "%s", cosa_unit_message(u));
    cosa_status rs = cosa_unit_restore(u, m->msnaps[i]);
    if (st != COSA_OK && rs == COSA_OK && m->opt.sample_mid == 2) {
        /* best effort: this step's sample is lost, the step goes on */
        if (m->mid_lost == m->nunits)
            m->mid_lost = i;
        m->mid_lost_now = 1;
        return COSA_OK;
    }
    return st != COSA_OK ? st : rs;
}

/* G_p and G_0 of unit i over the coming step from its snapshots
 * (cosa_unit_step_gains with w = w_p), into its blocks of sGp, sG0. */
static cosa_status step_gains(cosa_master *m, size_t i, cosa_unit *u, size_t ou, size_t oy)
{
    const size_t nui = u->nu, nyi = u->ny, blk = nui * nyi;
    cosa_status st = cosa_unit_step_gains(u, m->H, (int)m->np, m->w, m->gblk, m->gblk + blk,
                                          &m->gsnaps[i], m->gwork);
    if (st == COSA_OK) {
        dense_copy(nyi, nui, m->gblk, nyi, m->sGp + oy + ou * m->ny, m->ny);
        dense_copy(nyi, nui, m->gblk + blk, nyi, m->sG0 + oy + ou * m->ny, m->ny);
    }
    return st;
}

/* Unit i over the macro step: one step of H; with a rate K, K steps of
 * H / K (the step length computed, not accumulated); with held inputs,
 * before unit step j the input polynomial's value at s = j / K, held
 * constant over that step (energy paper, eq 9: the outputs at T_{n+1} then
 * see the input of the last step). */
static cosa_status unit_steps(cosa_master *m, size_t i, cosa_unit *u, size_t ou)
{
    const unsigned K = cosa_unitset_rate(m->set, i);
    const double h = m->H / (double)K;
    for (unsigned j = 0; j < K; j++) {
        cosa_status st;
        if (m->in->substep_input && (st = m->in->substep_input(m, u, ou, j, K)) != COSA_OK)
            return st;
        if ((st = cosa_unit_do_step(u, K == 1 ? m->H : h)) != COSA_OK)
            return st;
    }
    return COSA_OK;
}

/* Every unit gets its input polynomial, steps and reports y_{n+1}, in the
 * execution order; the input builder's hooks set the inputs and read what
 * it needs after the step, the scheme's after_unit hook updates the
 * polynomials. */
cosa_status master_advance(cosa_master *m)
{
    const size_t nu = m->nu, ny = m->ny, np = m->np;
    double fact[NP_MAX]; /* k! / H^k */
    fact[0] = 1.0;
    for (size_t k = 1; k < np; k++)
        fact[k] = fact[k - 1] * (double)k / m->H;
    for (size_t kk = 0; kk < m->nunits; kk++) {
        const size_t i = m->seq[kk];
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t ou, oy;
        cosa_unitset_offsets(m->set, i, NULL, &ou, &oy);
        const size_t nui = u->nu;
        if (nui) {
            cosa_unitset_couple(m->set, ou, nui, np, m->P, ny ? ny : 1, m->a + ou, nu);
            for (size_t r = 0; r < nui; r++)
                m->a[ou + r] += m->du[ou + r] + m->uoff[ou + r];
            /* d^k u/dt^k at T_n = k! a_k / H^k */
            for (size_t k = 0; k < np; k++)
                for (size_t r = 0; r < nui; r++)
                    m->der[r + k * nui] = m->a[ou + r + k * nu] * fact[k];
        }
        cosa_status st = m->in->unit_input ? m->in->unit_input(m, i, u, ou) : COSA_OK;
        if (st == COSA_OK && m->sgain && m->sgain[i])
            st = step_gains(m, i, u, ou, oy);
        if (st == COSA_OK && m->opt.sample_mid)
            st = sample_mid(m, i, u, oy);
        if (st != COSA_OK || (st = unit_steps(m, i, u, ou)) != COSA_OK ||
            (st = cosa_unit_get_output(u, m->y_new + oy)) != COSA_OK) {
            m->failed = i;
            return st;
        }
        if (m->in->after_step && (st = m->in->after_step(m, i, u, oy)) != COSA_OK) {
            m->failed = i;
            return st;
        }
        if (m->exec->after_unit)
            m->exec->after_unit(m, i);
    }
    return COSA_OK;
}

/* Output correction (eq 14): ybar = (I - G_p L)^{-1} (y - G_p L E_p - G_0 du). */
static cosa_status correct_outputs(cosa_master *m, double *ybar)
{
    /* the states of the Jacobians' system: the units', or a fixed model's */
    const size_t nx = cosa_system_nx(m->jsys), nu = m->nu, ny = m->ny, np = m->np;
    if (m->nsgain < m->nunits) {
        cosa_status st = cosa_disc_compute(m->jsys, m->p, m->H, m->dw);
        if (st != COSA_OK)
            return st;
        const double *Q = cosa_disc_Q(m->dw);
        const double *C = cosa_system_C(m->jsys), *D = cosa_system_D(m->jsys);
        /* QW = sum_m w_m Q_m, G_p = C QW + D, G_0 = C Q_0 + D */
        dense_zero(nx, nu, m->QW, nx);
        for (size_t k = 0; k < np; k++)
            for (size_t c = 0; c < nx * nu; c++)
                m->QW[c] += m->w[k] * Q[k * nx * nu + c];
        dense_copy(ny, nu, D, ny, m->Gp, ny);
        dense_copy(ny, nu, D, ny, m->G0, ny);
        if (nx) {
            dense_gemm('N', 'N', ny, nu, nx, 1.0, C, ny, m->QW, nx, 1.0, m->Gp, ny);
            dense_gemm('N', 'N', ny, nu, nx, 1.0, C, ny, Q, nx, 1.0, m->G0, ny);
        }
    } else {
        dense_zero(ny, nu, m->Gp, ny);
        dense_zero(ny, nu, m->G0, ny);
    }
    /* units with gains by steps: their blocks (their Jacobians were zero, and
     * G_p, G_0 are block diagonal) */
    for (size_t i = 0; m->nsgain && i < m->nunits; i++) {
        if (!m->sgain[i])
            continue;
        const cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t ou, oy;
        cosa_unitset_offsets(m->set, i, NULL, &ou, &oy);
        dense_copy(u->ny, u->nu, m->sGp + oy + ou * ny, ny, m->Gp + oy + ou * ny, ny);
        dense_copy(u->ny, u->nu, m->sG0 + oy + ou * ny, ny, m->G0 + oy + ou * ny, ny);
    }
    dense_identity(ny, m->IGL, ny);
    dense_gemm('N', 'N', ny, ny, nu, -1.0, m->Gp, ny, m->L, nu, 1.0, m->IGL, ny);
    if (!dense_isfinite(ny, ny, m->IGL, ny))
        return COSA_ENONFINITE;
    if (dense_lu(ny, m->IGL, ny, m->ipiv) != 0)
        return COSA_ECORRSINGULAR;
    memcpy(ybar, m->y_new, ny * sizeof *ybar);
    dense_gemv(nu, ny, 1.0, m->L, nu, m->Ep, 0.0, m->vu);
    dense_gemv(ny, nu, -1.0, m->Gp, ny, m->vu, 1.0, ybar);
    if (m->has_du)
        dense_gemv(ny, nu, -1.0, m->G0, ny, m->du, 1.0, ybar);
    dense_lu_solve(ny, 1, m->IGL, ny, m->ipiv, ybar, ny);
    return dense_isfinite(ny, 1, ybar, ny) ? COSA_OK : COSA_ENONFINITE;
}

/* The corrected outputs ybar_{n+1} into ybar: with output correction
 * linearised at the end of the step if asked, (x_{n+1}, u~(T_{n+1}) = L E_p + du_n). */
static cosa_status stage_correct_outputs(cosa_master *m, double *ybar)
{
    if (!(m->s.corr & COSA_CORR_OUTPUT)) {
        memcpy(ybar, m->y_new, m->ny * sizeof *ybar);
        return COSA_OK;
    }
    cosa_status st;
    if (m->opt.lin_at_end) {
        master_inputs_of(m, m->Ep, m->u0);
        if ((st = linearise(m, m->t + m->H, m->u0)) != COSA_OK)
            return st;
    }
    return correct_outputs(m, ybar);
}

/* State correction (eq 22) into du_new. */
static cosa_status stage_correct_state(cosa_master *m, const double *ybar)
{
    const size_t nu = m->nu, ny = m->ny;
    if (!m->has_du)
        return COSA_OK;
    for (size_t l = 0; l < ny; l++)
        m->vy[l] = ybar[l] - m->Ep[l];
    dense_gemv(nu, ny, 1.0, m->L, nu, m->vy, 0.0, m->du_new);
    for (size_t k = 0; k < nu; k++)
        m->du_new[k] = (1.0 - m->s.alpha) * m->du[k] + m->s.alpha * m->kappa * m->du_new[k];
    return dense_isfinite(nu, 1, m->du_new, nu) ? COSA_OK : COSA_ENONFINITE;
}

static cosa_status save_units(cosa_master *m)
{
    if (!m->snaps && !(m->snaps = calloc(m->nunits, sizeof *m->snaps)))
        return COSA_ENOMEM;
    for (size_t i = 0; i < m->nunits; i++) {
        cosa_status st = cosa_unit_save(cosa_unitset_unit(m->set, i), &m->snaps[i]);
        if (st != COSA_OK) {
            m->failed = i;
            return st;
        }
    }
    m->saved = 1;
    return COSA_OK;
}

cosa_status cosa_master_propose(cosa_master *m, int save)
{
    if (!m)
        return COSA_EINVAL;
    double *ybar = m->hist_new; /* slot 0 of the new history */
    cosa_status st;
    m->failed = m->nunits;
    m->proposed = 0;
    m->saved = 0;
    m->have_data = 0;
    m->mid_lost_now = 0;
    if (m->opt.events)
        return master_event_propose(m);
    if (save && (st = save_units(m)) != COSA_OK)
        return st;
    if (m->in->prepare && (st = m->in->prepare(m)) != COSA_OK)
        return st;
    /* linearisation at the start of the step: (x_n, u~(T_n) = L ybar_n + du_n) */
    if ((m->s.corr & COSA_CORR_OUTPUT) && !m->opt.lin_at_end) {
        master_inputs_of(m, m->hist, m->u0);
        if ((st = linearise(m, m->t, m->u0)) != COSA_OK)
            return st;
    }
    if ((st = m->in->advance(m)) != COSA_OK || (st = stage_correct_outputs(m, ybar)) != COSA_OK ||
        (st = stage_correct_state(m, ybar)) != COSA_OK)
        return st;
    m->H_prop = m->H;
    m->proposed = 1;
    m->have_data = 1;
    return COSA_OK;
}

cosa_status cosa_master_commit(cosa_master *m)
{
    if (!m || !m->proposed)
        return COSA_EINVAL;
    if (m->opt.events)
        return master_event_commit(m, m->t_reached);
    const size_t ny = m->ny, np = m->np;
    if (m->has_du)
        memcpy(m->du, m->du_new, m->nu * sizeof *m->du);
    memcpy(m->y, m->y_new, ny * sizeof *m->y);
    if (np > 1)
        memcpy(m->hist_new + ny, m->hist, (np - 1) * ny * sizeof *m->hist);
    memcpy(m->hist, m->hist_new, np * ny * sizeof *m->hist);
    if (m->nvalid < np)
        m->nvalid++;
    m->t = m->t_base + (double)(++m->nsince) * m->H; /* a step counter, not a sum */
    m->proposed = 0;
    m->saved = 0;
    cosa_status st = point_events(m);
    if (st == COSA_OK)
        st = master_discrete(m);
    return st == COSA_OK ? master_notify(m, 1) : st;
}

cosa_status cosa_master_reject(cosa_master *m)
{
    if (!m)
        return COSA_EINVAL;
    m->proposed = 0;
    if (!m->saved)
        return COSA_OK;
    for (size_t i = 0; i < m->nunits; i++) {
        if (m->opt.events && !m->ev_snap[i]) { /* no snapshot (master_event.c) */
            if (m->ev_done[i]) {
                m->failed = i;
                return COSA_EUNSUPPORTED;
            }
            continue;
        }
        cosa_status st = cosa_unit_restore(cosa_unitset_unit(m->set, i), m->snaps[i]);
        if (st != COSA_OK) {
            m->failed = i;
            return st;
        }
    }
    m->saved = 0;
    return COSA_OK;
}

cosa_status cosa_master_step(cosa_master *m)
{
    cosa_status st = cosa_master_propose(m, 0);
    return st == COSA_OK ? cosa_master_commit(m) : st;
}

/* ---- read-out ---------------------------------------------------------------------- */

cosa_status cosa_master_get(const cosa_master *m, double *t, double *x, double *u, double *y,
                            double *ybar, double *du)
{
    if (!m)
        return COSA_EINVAL;
    if (t)
        *t = m->t;
    for (size_t i = 0; x && i < m->nunits; i++) {
        size_t ox;
        cosa_unitset_offsets(m->set, i, &ox, NULL, NULL);
        cosa_unit_get_state(cosa_unitset_unit(m->set, i), NULL, x + ox);
    }
    if (u)
        master_inputs_of(m, m->hist, u);
    if (y)
        memcpy(y, m->y, m->ny * sizeof *y);
    if (ybar)
        memcpy(ybar, m->hist, m->ny * sizeof *ybar);
    if (du)
        memcpy(du, m->du, m->nu * sizeof *du);
    return COSA_OK;
}

cosa_status cosa_master_info(const cosa_master *m, double *z)
{
    if (!m || !z)
        return COSA_EINVAL;
    cosa_master_get(m, NULL, z, NULL, NULL, NULL, NULL);
    memcpy(z + m->nx, m->hist, m->ny * m->np * sizeof *z);
    if (m->has_du)
        memcpy(z + m->nx + m->ny * m->np, m->du, m->nu * sizeof *z);
    return COSA_OK;
}

size_t cosa_master_failed_unit(const cosa_master *m) { return m ? m->failed : 0; }

cosa_status cosa_master_set_step(cosa_master *m, double H)
{
    if (!m)
        return COSA_EINVAL;
    if (cosa_combination_check(&m->s, m->comb | COSA_COMB_STEP_CHANGE, 0, NULL) != COSA_OK)
        return COSA_EUNSUPPORTED; /* the history assumes equidistant macro points
                                     (with events it keeps its sample times) */
    if (!isfinite(H) || !(H > 0.0))
        return COSA_ERANGE;
    m->H = H;
    m->t_base = m->t; /* the counter restarts at the new step */
    m->nsince = 0;
    return COSA_OK;
}

cosa_status cosa_master_proposal_outputs(const cosa_master *m, double *y)
{
    if (!m || (m->ny && !y))
        return COSA_EINVAL;
    if (!m->proposed)
        return COSA_EINVAL;
    memcpy(y, m->y_new, m->ny * sizeof *y);
    return COSA_OK;
}

cosa_status cosa_master_set_inputs(cosa_master *m, int q, const double *uder)
{
    if (!m || (m->nu && !uder))
        return COSA_EINVAL;
    if (!(m->in->needs & COSA_INPUT_NEEDS_CALLER))
        return COSA_EUNSUPPORTED;
    if (q < 0 || q > COSA_UNIT_DEGMAX)
        return COSA_ERANGE;
    if (!dense_isfinite(m->nu, (size_t)q + 1, uder, m->nu))
        return COSA_ENONFINITE;
    m->q = q;
    if (m->nu)
        memcpy(m->uder, uder, m->nu * ((size_t)q + 1) * sizeof *uder);
    return COSA_OK;
}

cosa_status cosa_master_step_data(const cosa_master *m, double *H, int *q, const double **uder,
                                  int *n, const double **yder, const double **ymid)
{
    if (!m || !m->have_data)
        return COSA_EINVAL;
    if (H)
        *H = m->H_prop;
    if (q)
        *q = m->q;
    if (uder)
        *uder = m->uder;
    const int outder = (m->in->needs & COSA_INPUT_NEEDS_OUTPUT_DER) != 0;
    if (n)
        *n = outder ? m->nout : -1;
    if (yder)
        *yder = outder ? m->yend : NULL;
    if (ymid)
        *ymid = m->opt.sample_mid && !m->mid_lost_now ? m->ymid : NULL;
    return COSA_OK;
}

size_t cosa_master_mid_lost(const cosa_master *m, const char **why)
{
    if (why)
        *why = m ? m->mid_why : "";
    return m ? m->mid_lost : 0;
}
