/* driver.c -- one time-domain co-simulation run with the conventions of
 * METHOD.md: start on the reference at t = p H (state and the p+1 history
 * outputs from it), N macro steps, the global NRMSE of the corrected outputs
 * at the N new macro points, and divergence as a result ("diverged at t").
 * The result arrays are filled by an observer of the master (recorder), the
 * divergence test reads what it recorded. */
#include "cosa/td.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIVERGE_FACTOR 1e6

void cosa_cosim_result_free(cosa_cosim_result *r)
{
    if (!r)
        return;
    free(r->t);
    free(r);
}

static cosa_status result_alloc(size_t nx, size_t nu, size_t ny, size_t N,
                                cosa_cosim_result **out)
{
    cosa_cosim_result *r = calloc(1, sizeof *r);
    if (!r)
        return COSA_ENOMEM;
    const size_t nc = N + 1, total = nc * (1 + nx + 2 * nu + 3 * ny);
    r->t = malloc(total * sizeof(double));
    if (!r->t) {
        free(r);
        return COSA_ENOMEM;
    }
    for (size_t k = 0; k < total; k++)
        r->t[k] = NAN;
    r->x = r->t + nc;
    r->u = r->x + nx * nc;
    r->du = r->u + nu * nc;
    r->y = r->du + nu * nc;
    r->ybar = r->y + ny * nc;
    r->yref = r->ybar + ny * nc;
    r->nx = nx;
    r->nu = nu;
    r->ny = ny;
    r->nsteps = N;
    r->e_global = NAN;
    *out = r;
    return COSA_OK;
}

/* Numerical failures of a step that mean the co-simulation blew up. */
static int is_divergence(cosa_status st)
{
    return st == COSA_ENOTCONVERGED || st == COSA_ENONFINITE || st == COSA_ECORRSINGULAR ||
           st == COSA_EALGLOOP || st == COSA_ELAPACK;
}

/* The recording observer: column n of the result after init (n = 0) and after
 * every committed step, and the divergence test on what it recorded. */
struct recorder {
    cosa_cosim_result *r;
    const cosa_reftraj *ref;
    size_t p, n;          /* next column */
    double factor, bound;
};

static cosa_status record(const cosa_master *m, void *user_data)
{
    struct recorder *rec = user_data;
    cosa_cosim_result *r = rec->r;
    const size_t n = rec->n++, nx = r->nx, nu = r->nu, ny = r->ny;
    r->t[n] = (double)(rec->p + n) * rec->ref->H;
    cosa_master_get(m, NULL, r->x + n * nx, r->u + n * nu, r->y + n * ny, r->ybar + n * ny,
                    r->du + n * nu);
    memcpy(r->yref + n * ny, rec->ref->y + (rec->p + n) * ny, ny * sizeof(double));
    for (size_t k = 0; k < ny && n > 0; k++) {
        double a = fmax(fabs(r->y[k + n * ny]), fabs(r->ybar[k + n * ny]));
        if (!(a <= rec->bound)) { /* also NaN */
            r->diverged = 1;
            r->t_diverged = r->t[n];
            snprintf(r->reason, sizeof r->reason,
                     "output %zu = %.3g exceeds %.3g x the largest reference output %.3g", k, a,
                     rec->factor, r->yref_max);
            break;
        }
    }
    return COSA_OK;
}

cosa_status cosa_cosim_run(cosa_unitset *set, const cosa_scheme *s, const cosa_reftraj *ref,
                           const cosa_cosim_opts *opt, cosa_cosim_result **out)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!set || !s || !ref || !opt || (opt->nobservers && !opt->observers))
        return COSA_EINVAL;
    const size_t nx = cosa_unitset_nx(set), nu = cosa_unitset_nu(set),
                 ny = cosa_unitset_ny(set);
    const size_t N = opt->nsteps;
    if (ref->nx != nx || ref->ny != ny || ny == 0)
        return COSA_EINVAL;
    if (N == 0 || s->order < 0 || s->order > COSA_ORDER_MAX ||
        ref->nsamples < (size_t)s->order + N + 1 || opt->nobservers >= COSA_MASTER_OBSERVERS)
        return COSA_ERANGE;
    const size_t p = (size_t)s->order, np = p + 1;
    const double H = ref->H;
    double factor = opt->diverge_factor > 0.0 ? opt->diverge_factor : DIVERGE_FACTOR;

    cosa_master *m = NULL;
    cosa_cosim_result *r = NULL;
    double *yhist = NULL;
    cosa_status st = cosa_master_create(set, s, H, &opt->master, &m);
    if (st != COSA_OK)
        return st;
    if ((st = result_alloc(nx, nu, ny, N, &r)) != COSA_OK)
        goto fail;
    yhist = malloc(ny * np * sizeof *yhist);
    if (!yhist) {
        st = COSA_ENOMEM;
        goto fail;
    }
    /* start-up: x = x_ref(pH), ybar_{-j} = y_ref((p-j)H) */
    double ymax = 0.0;
    for (size_t k = 0; k < ny * (p + N + 1); k++)
        ymax = fmax(ymax, fabs(ref->y[k]));
    r->yref_max = ymax;
    struct recorder rec = {.r = r, .ref = ref, .p = p, .factor = factor, .bound = factor * ymax};
    const cosa_observer recorder = {.initialized = record, .step_complete = record,
                                    .user_data = &rec};
    cosa_master_add_observer(m, &recorder);
    for (size_t k = 0; k < opt->nobservers; k++)
        cosa_master_add_observer(m, &opt->observers[k]);
    for (size_t j = 0; j < np; j++)
        memcpy(yhist + j * ny, ref->y + (p - j) * ny, ny * sizeof *yhist);
    if ((st = cosa_master_init(m, (double)p * H, ref->x + p * nx, yhist, NULL)) != COSA_OK)
        goto fail;
    size_t n = 0;
    while (!r->diverged && n < N) {
        st = cosa_master_step(m);
        if (st != COSA_OK) {
            if (!is_divergence(st))
                goto fail;
            /* the step to t_{n+1} failed: nothing is recorded for it */
            size_t iu = cosa_master_failed_unit(m);
            cosa_unit *un = cosa_unitset_unit(set, iu);
            r->diverged = 1;
            r->t_diverged = (double)(p + n + 1) * H;
            if (un && cosa_unit_message(un)[0])
                snprintf(r->reason, sizeof r->reason, "unit %zu: %s", iu,
                         cosa_unit_message(un));
            else
                snprintf(r->reason, sizeof r->reason, "%s", cosa_strerror(st));
            break;
        }
        n++;
    }
    r->ndone = n;
    if (r->diverged)
        r->e_global = INFINITY;
    else if ((st = cosa_traj_nrmse(ny, N, r->ybar + ny, ny, r->yref + ny, ny, &r->e_global,
                                   &r->ncomp)) != COSA_OK)
        goto fail;
    free(yhist);
    cosa_master_free(m);
    *out = r;
    return COSA_OK;
fail:
    free(yhist);
    cosa_master_free(m);
    cosa_cosim_result_free(r);
    return st;
}
