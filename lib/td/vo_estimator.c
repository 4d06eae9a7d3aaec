/* vo_estimator.c -- the five error estimators of the variable-order paper
 * (sect. 4) as entries of a table of public descriptors (cosa_vo_estimator;
 * a user's descriptor plugs in the same way).  The engine (vo_run.c)
 * integrates the step (and, for the explicit Local/Milne estimators, the
 * comparative solution; for the implicit ones it keeps the predictor) and
 * calls vo_estimate, which hands the entry's estimate() a view of the step
 * and gets the error vector: v->epsx (states) or v->epsu (coupling
 * variables).  The scaled norms (eqs 25-27) are the engine's.  Notation:
 * x1 = z_{N+1} of the step, xh = the comparative
 * (explicit) or predictor (implicit) states, c1 = u_{N+1} (updated or
 * corrected), cpred = P^k(T_{N+1}) (u^ext, u^pre); cpos/cvel = C^k, C^{k+1}
 * of eqs 17/20 on the step's nodes. */
#include "td/vo.h"
#include "td/control_impl.h"

#include <math.h>
#include <strings.h>

/* eps_i = f_i |x1_i - xh_i|, f by position / velocity */
static void state_difference(const cosa_vo_step_view *s, double fpos, double fvel, double *eps)
{
    for (size_t i = 0; i < s->nx; i++)
        eps[i] = (s->is_vel[i] ? fvel : fpos) * fabs(s->x1[i] - s->xh[i]);
}

/* eq 15 */
static cosa_status est_exlocal(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)user_data;
    state_difference(s, 1.0, 1.0, eps);
    return COSA_OK;
}

/* eqs 19, 20: (C^{k+1} / C^k) |z - z^| */
static cosa_status est_exmilne(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)user_data;
    state_difference(s, s->cpos[1] / s->cpos[0], s->cvel[1] / s->cvel[0], eps);
    return COSA_OK;
}

/* eq 21 and eq 24: |P^k(T_{N+1}) - u_{N+1}| */
static cosa_status est_slocal(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)user_data;
    for (size_t i = 0; i < s->nc; i++)
        eps[i] = fabs(s->cpred[i] - s->c1[i]);
    return COSA_OK;
}

/* eqs 22, 23: (1 - C^{k+1} / C^k) |z^pre - z| */
static cosa_status est_immilne(const cosa_vo_step_view *s, double *eps, void *user_data)
{
    (void)user_data;
    state_difference(s, 1.0 - s->cpos[1] / s->cpos[0], 1.0 - s->cvel[1] / s->cvel[0], eps);
    return COSA_OK;
}

static const cosa_vo_estimator table[] = {
    {"exlocal", 0, 1, 1, est_exlocal, NULL},
    {"exmilne", 0, 1, 2, est_exmilne, NULL},
    {"exslocal", 0, 0, 0, est_slocal, NULL},
    {"immilne", 1, 1, 0, est_immilne, NULL},
    {"imslocal", 1, 0, 0, est_slocal, NULL},
};

void vo_estimate(struct vo *v)
{
    const cosa_vo_estimator *e = v->o.estimator;
    const cosa_vo_step_view s = {
        .nx = v->nx, .nc = v->nc, .k = v->k, .H = v->H, .x1 = v->x1,
        .xh = e->implicit || e->comparative ? v->xh : NULL, .c1 = v->c1, .cpred = v->cpred,
        .is_vel = v->is_vel, .cpos = {v->cpos[0], v->cpos[1]}, .cvel = {v->cvel[0], v->cvel[1]}};
    double *eps = e->on_states ? v->epsx : v->epsu;
    const size_t n = e->on_states ? v->nx : v->nc;
    if (!e->estimate || e->estimate(&s, eps, e->user_data) != COSA_OK)
        for (size_t i = 0; i < n; i++)
            eps[i] = INFINITY;
}

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
