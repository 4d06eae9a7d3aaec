/* master_event.c -- the master's macro step with events (cosa_master_opts.events;
 * FMI 3.0 co-simulation concepts, "Early Return" and "Handling Early Return
 * and Events"; README "Events").
 *
 * A proposal T_n -> T_n + H ends at the first event of any unit with events
 * (an early return at t' < T_n + H, or Event Mode pending at the end): the
 * units with events step first, each to the earliest end seen so far; one
 * that ends earlier still makes that the end, and those already past it
 * are restored from their snapshots (taken before the step) and stepped
 * again to it with the same input polynomials; then the other units step
 * once to the end.  The commit at t' runs Event Mode on the units where it
 * is pending, reads every unit's outputs again (they may jump there) and
 * restarts the extrapolation's history at t': the input polynomials do not
 * extrapolate across an event, their degree builds up again as at the
 * start, on the Lagrange basis of the samples' actual times. */
#include "td/master_impl.h"
#include "td/unitset_impl.h"
#include "td/stepping_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cosa_status master_event_alloc(cosa_master *m)
{
    const size_t n = m->nunits;
    m->hist_t = calloc(m->np, sizeof *m->hist_t);
    m->ev_pend = calloc(3 * n + 1, 1);
    m->ev_seq = calloc(n + 1, sizeof *m->ev_seq);
    m->ev_reach = calloc(n + 1, sizeof *m->ev_reach);
    if (!m->snaps)
        m->snaps = calloc(n + 1, sizeof *m->snaps);
    if (!m->hist_t || !m->ev_pend || !m->ev_seq || !m->ev_reach || !m->snaps)
        return COSA_ENOMEM;
    m->ev_done = m->ev_pend + n;
    m->ev_snap = m->ev_done + n;
    return COSA_OK;
}

void master_event_free(cosa_master *m)
{
    free(m->hist_t);
    free(m->ev_pend);
    free(m->ev_seq);
    free(m->ev_reach);
}

/* P(s), s = (t - T_n)/H, through the nq = min(nvalid, p+1) newest samples
 * at their actual times s_j = (t_j - T_n)/H (the Lagrange basis on these
 * nodes; uniform nodes give the tables of the run without events). */
static void extrapolate(cosa_master *m)
{
    const size_t ny = m->ny, np = m->np;
    const size_t nq = m->nvalid < np ? m->nvalid : np;
    double s[NP_MAX], lag[NP_MAX * NP_MAX];
    for (size_t j = 0; j < nq; j++)
        s[j] = (m->hist_t[j] - m->t) / m->H;
    cosa_lagrange_nodes((int)nq - 1, s, lag);
    for (size_t l = 0; l < ny; l++)
        for (size_t k = 0; k < np; k++) {
            double c = 0.0;
            for (size_t j = 0; k < nq && j < nq; j++)
                c += lag[j * nq + k] * m->hist[l + j * ny];
            m->P[l + k * ny] = c;
        }
}

/* Unit i's input polynomial of the proposal: u~(s) = L P(s) + offset, as
 * derivatives at T_n (d^k u/dt^k = k! a_k / H^k), recorded in uder. */
static cosa_status set_inputs(cosa_master *m, size_t i)
{
    cosa_unit *u = cosa_unitset_unit(m->set, i);
    const size_t nu = m->nu, np = m->np, nui = u->nu;
    size_t ou;
    cosa_unitset_offsets(m->set, i, NULL, &ou, NULL);
    double fact = 1.0; /* k! / H^k */
    for (size_t k = 0; k < np; k++) {
        if (k)
            fact *= (double)k / m->H;
        for (size_t r = 0; r < nui; r++)
            m->uder[ou + r + k * nu] = m->der[r + k * nui] = m->a[ou + r + k * nu] * fact;
    }
    return cosa_unit_set_input(u, m->p, m->der);
}

/* One line for a unit with events that is past t and has no snapshot. */
static cosa_status cannot_roll_back(cosa_master *m, size_t i, double t)
{
    cosa_unit *u = cosa_unitset_unit(m->set, i);
    const char *fmu = cosa_unit_fmu_name(u);
    m->failed = i;
    if (fmu)
        cosa_unit_fail(u, "FMU %s stepped past the event at t = %.17g and cannot be rolled "
                          "back to it: it cannot get and set its state (canGetAndSetFMUState)",
                       fmu, t);
    else
        cosa_unit_fail(u, "unit %zu stepped past the event at t = %.17g and cannot be rolled "
                          "back to it: it cannot save its state", i, t);
    return COSA_EFMU;
}

/* Unit i from T_n to t_stop (restored first if it has stepped already). */
static cosa_status step_to(cosa_master *m, size_t i, double t_stop)
{
    cosa_unit *u = cosa_unitset_unit(m->set, i);
    cosa_status st;
    if (m->ev_done[i]) {
        if (!m->ev_snap[i])
            return cannot_roll_back(m, i, t_stop);
        if ((st = cosa_unit_restore(u, m->snaps[i])) != COSA_OK) {
            m->failed = i;
            return st;
        }
    }
    const double h = t_stop - m->t;
    double hd;
    int ev;
    if ((st = set_inputs(m, i)) != COSA_OK || (st = cosa_unit_do_step_event(u, h, &hd, &ev)) != COSA_OK) {
        m->failed = i;
        return st;
    }
    m->ev_done[i] = 1;
    m->ev_pend[i] = (unsigned char)ev;
    m->ev_reach[i] = hd < h ? m->t + hd : t_stop;
    return COSA_OK;
}

/* The units with events, each to the earliest end seen, again until none
 * ends earlier (the end only decreases); *t_stop the common end.  Two ends
 * closer than 16 eps |t| are the same time. */
static cosa_status step_event_units(cosa_master *m, size_t nev, double *t_stop)
{
    for (size_t pass = 0; pass <= 4 * nev + 4; pass++) {
        int changed = 0;
        for (size_t k = 0; k < nev; k++) {
            const size_t i = m->ev_seq[k];
            const double tol = 16.0 * DBL_EPSILON * fabs(*t_stop);
            if (m->ev_done[i] && m->ev_reach[i] <= *t_stop + tol)
                continue;
            cosa_status st = step_to(m, i, *t_stop);
            if (st != COSA_OK)
                return st;
            if (m->ev_reach[i] < *t_stop - tol) {
                *t_stop = m->ev_reach[i];
                changed = 1;
            }
        }
        if (!changed)
            return COSA_OK;
    }
    return COSA_ENOTCONVERGED; /* (the ends decrease strictly: not reached) */
}

/* Snapshots of the units with events that can save their state; the order:
 * those first.  Returns their count. */
static cosa_status prepare(cosa_master *m, size_t *nev)
{
    size_t k = 0;
    memset(m->ev_pend, 0, 3 * m->nunits);
    for (size_t i = 0; i < m->nunits; i++) {
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        if (!cosa_unit_has_events(u))
            continue;
        m->ev_seq[k++] = i;
        if (!(u->type->caps & COSA_UNIT_CAN_SAVE_STATE))
            continue;
        cosa_status st = cosa_unit_save(u, &m->snaps[i]);
        if (st != COSA_OK) {
            m->failed = i;
            return st;
        }
        m->ev_snap[i] = 1;
    }
    *nev = k;
    for (size_t i = 0; i < m->nunits; i++)
        if (!cosa_unit_has_events(cosa_unitset_unit(m->set, i)))
            m->ev_seq[k++] = i;
    m->saved = 1;
    return COSA_OK;
}

cosa_status master_event_propose(cosa_master *m)
{
    size_t nev;
    cosa_status st = prepare(m, &nev);
    if (st != COSA_OK)
        return st;
    extrapolate(m);
    const size_t nu = m->nu, ny = m->ny, np = m->np;
    if (nu) { /* every unit's input polynomial in s: a = L P + offset */
        cosa_unitset_couple(m->set, 0, nu, np, m->P, ny ? ny : 1, m->a, nu);
        for (size_t r = 0; r < nu; r++)
            m->a[r] += m->uoff[r];
    }
    double t_stop = m->t + m->H;
    if ((st = step_event_units(m, nev, &t_stop)) != COSA_OK)
        return st;
    for (size_t k = nev; k < m->nunits; k++)
        if ((st = step_to(m, m->ev_seq[k], t_stop)) != COSA_OK)
            return st;
    m->ev_end = 0;
    for (size_t i = 0; i < m->nunits; i++) {
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        size_t oy;
        cosa_unitset_offsets(m->set, i, NULL, NULL, &oy);
        if (u->ny && (st = cosa_unit_get_output(u, m->y_new + oy)) != COSA_OK) {
            m->failed = i;
            return st;
        }
        m->ev_end |= m->ev_pend[i];
    }
    memcpy(m->hist_new, m->y_new, ny * sizeof *m->y_new); /* no correction */
    m->t_reached = t_stop;
    m->H_prop = t_stop - m->t;
    m->proposed = 1;
    m->have_data = 1;
    return COSA_OK;
}

/* One pass of Event Mode at t' over the units that need it (pass 0: where
 * it is pending; later passes: a unit whose next event is t', asked for by
 * a clock link in an earlier Event Mode, README "Clocks"), with the inputs
 * at t' (u = L y(t') + offset from the outputs as they are now: an input
 * clock's tick samples them); *any = 1 if a unit ran. */
static cosa_status events_pass(cosa_master *m, size_t pass, int *any)
{
    *any = 0;
    if (m->nu) {
        cosa_unitset_couple(m->set, 0, m->nu, 1, m->y, m->ny ? m->ny : 1, m->u0, m->nu);
        for (size_t k = 0; k < m->nu; k++)
            m->u0[k] += m->uoff[k];
    }
    const double tol = 1e-9 * m->H + 4.0 * DBL_EPSILON * fabs(m->t);
    for (size_t i = 0; i < m->nunits; i++) {
        cosa_unit *u = cosa_unitset_unit(m->set, i);
        const int due = pass == 0 ? m->ev_pend[i] != 0
                                  : cosa_unit_has_events(u) &&
                                        cosa_unit_next_event(u) <= m->t + tol;
        if (!due)
            continue;
        *any = 1;
        size_t ou;
        cosa_unitset_offsets(m->set, i, NULL, &ou, NULL);
        cosa_status st = cosa_unit_set_input(u, 0, m->u0 + ou);
        if (st == COSA_OK)
            st = cosa_unit_event_update(u, NULL);
        if (st != COSA_OK) {
            m->failed = i;
            return st;
        }
    }
    return COSA_OK;
}

/* Event Mode where it is pending (then where clock links ask for it, until
 * no unit does), the outputs read again after each pass, the history
 * restarted at the event. */
static cosa_status handle_events(cosa_master *m)
{
    int any = 1;
    for (size_t pass = 0; any && pass <= m->nunits; pass++) {
        cosa_status st = events_pass(m, pass, &any);
        for (size_t i = 0; st == COSA_OK && any && i < m->nunits; i++) {
            cosa_unit *u = cosa_unitset_unit(m->set, i);
            size_t oy;
            cosa_unitset_offsets(m->set, i, NULL, NULL, &oy);
            st = u->ny ? cosa_unit_get_output(u, m->y + oy) : COSA_OK;
            if (st != COSA_OK)
                m->failed = i;
        }
        if (st != COSA_OK)
            return st;
    }
    memcpy(m->hist, m->y, m->ny * sizeof *m->y);
    m->nvalid = 1;
    m->at_event = 1;
    return COSA_OK;
}

cosa_status master_event_commit(cosa_master *m, double t)
{
    const size_t ny = m->ny, np = m->np;
    memcpy(m->y, m->y_new, ny * sizeof *m->y);
    if (np > 1) {
        memcpy(m->hist_new + ny, m->hist, (np - 1) * ny * sizeof *m->hist);
        memmove(m->hist_t + 1, m->hist_t, (np - 1) * sizeof *m->hist_t);
    }
    memcpy(m->hist, m->hist_new, np * ny * sizeof *m->hist);
    m->hist_t[0] = t;
    if (m->nvalid < np)
        m->nvalid++;
    m->t = t;
    m->proposed = 0;
    m->saved = 0;
    m->at_event = 0;
    cosa_status st = m->ev_end ? handle_events(m) : COSA_OK;
    if (st == COSA_OK)
        st = master_discrete(m);
    if (st != COSA_OK)
        return st;
    return master_notify(m, 1);
}

int cosa_master_reached(const cosa_master *m, double *t, int *event)
{
    if (!m || !m->opt.events || !m->proposed)
        return 0;
    if (t)
        *t = m->t_reached;
    if (event)
        *event = m->ev_end;
    return m->t_reached < m->t + m->H;
}

double cosa_master_next_event(const cosa_master *m)
{
    double t = INFINITY;
    for (size_t i = 0; m && m->opt.events && i < m->nunits; i++)
        t = fmin(t, cosa_unit_next_event(cosa_unitset_unit(m->set, i)));
    return t;
}

int cosa_master_at_event(const cosa_master *m) { return m ? m->at_event : 0; }
int cosa_master_has_events(const cosa_master *m) { return m ? m->opt.events : 0; }

cosa_status cosa_master_commit_at(cosa_master *m, double t)
{
    if (!m || !m->proposed)
        return COSA_EINVAL;
    if (!m->opt.events)
        return cosa_master_commit(m);
    if (!isfinite(t))
        return COSA_ENONFINITE;
    return master_event_commit(m, t);
}
