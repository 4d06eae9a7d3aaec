/* vo_estimator.c -- the five error estimators of the variable-order paper
 * (sect. 4) as entries of a table.  The engine (vo_run.c) integrates the
 * step (and, for the explicit Local/Milne estimators, the comparative
 * solution; for the implicit ones it keeps the predictor) and calls the
 * entry's estimate(), which writes the error vector: v->epsx (states) or
 * v->epsu (coupling variables).  The scaled norms (eqs 25-27) are the
 * engine's.  Notation: x1 = z_{N+1} of the step, xh = the comparative
 * (explicit) or predictor (implicit) states, c1 = u_{N+1} (updated or
 * corrected), cpred = P^k(T_{N+1}) (u^ext, u^pre); cpos/cvel = C^k, C^{k+1}
 * of eqs 17/20 on the step's nodes. */
#include "td/vo.h"

#include <math.h>
#include <strings.h>

/* eps_i = f_i |x1_i - xh_i|, f by position / velocity */
static void state_difference(struct vo *v, double fpos, double fvel)
{
    for (size_t i = 0; i < v->nx; i++)
        v->epsx[i] = (v->is_vel[i] ? fvel : fpos) * fabs(v->x1[i] - v->xh[i]);
}

static void coupling_difference(struct vo *v)
{
    for (size_t i = 0; i < v->nc; i++)
        v->epsu[i] = fabs(v->cpred[i] - v->c1[i]);
}

/* eq 15 */
static void est_exlocal(struct vo *v) { state_difference(v, 1.0, 1.0); }

/* eqs 19, 20: (C^{k+1} / C^k) |z - z^| */
static void est_exmilne(struct vo *v)
{
    state_difference(v, v->cpos[1] / v->cpos[0], v->cvel[1] / v->cvel[0]);
}

/* eq 21 and eq 24: |P^k(T_{N+1}) - u_{N+1}| */
static void est_slocal(struct vo *v) { coupling_difference(v); }

/* eqs 22, 23: (1 - C^{k+1} / C^k) |z^pre - z| */
static void est_immilne(struct vo *v)
{
    state_difference(v, 1.0 - v->cpos[1] / v->cpos[0], 1.0 - v->cvel[1] / v->cvel[0]);
}

static const struct cosa_vo_estimator table[] = {
    {"exlocal", 0, 1, 1, est_exlocal},
    {"exmilne", 0, 1, 2, est_exmilne},
    {"exslocal", 0, 0, 0, est_slocal},
    {"immilne", 1, 1, 0, est_immilne},
    {"imslocal", 1, 0, 0, est_slocal},
};

size_t cosa_vo_estimator_count(void) { return sizeof table / sizeof table[0]; }

const cosa_vo_estimator *cosa_vo_estimator_at(size_t i)
{
    return i < cosa_vo_estimator_count() ? &table[i] : NULL;
}

const cosa_vo_estimator *cosa_vo_estimator_lookup(const char *name)
{
    for (size_t i = 0; name && i < cosa_vo_estimator_count(); i++)
        if (!strcasecmp(name, table[i].name))
            return &table[i];
    return NULL;
}

const char *cosa_vo_estimator_name(const cosa_vo_estimator *e) { return e ? e->name : "?"; }
int cosa_vo_estimator_implicit(const cosa_vo_estimator *e) { return e ? e->implicit : 0; }
int cosa_vo_estimator_on_states(const cosa_vo_estimator *e) { return e ? e->on_states : 0; }
