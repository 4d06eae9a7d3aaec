/* unitset_build.c -- the units of a model and their unit set
 * (cosa_model_units_create): FMU units for a model file's `fmu`
 * subsystems, linear units of the linear form (exact integration) or ODE
 * units with an integrator for the others, the capabilities a method
 * needs of an FMU checked once, here, for every command, and a model
 * file's clock connections linked (`connect clock`). */
#include "cosa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cosa_model_units {
    size_t nsub, nfmu;
    cosa_unit **units;
    cosa_fmu **fmus;
    unsigned char *sgain;  /* 1: the FMU's MBCorr gains come from its steps */
    cosa_system *own_sys;  /* forms built here (NULL: the caller's)        */
    cosa_odesys *own_os;
    const cosa_system *sys;
    const cosa_odesys *os;
    cosa_unitset *set;
    const double *bareL;   /* a stateless OSP network: the file's L (no form) */
};

void cosa_model_units_free(cosa_model_units *mu)
{
    if (!mu)
        return;
    cosa_unitset_free(mu->set);
    for (size_t i = 0; mu->units && i < mu->nsub; i++)
        cosa_unit_free(mu->units[i]);
    for (size_t i = 0; mu->fmus && i < mu->nsub; i++)
        cosa_fmu_close(mu->fmus[i]);
    free(mu->units);
    free(mu->fmus);
    free(mu->sgain);
    cosa_odesys_free(mu->own_os);
    cosa_system_free(mu->own_sys);
    free(mu);
}

cosa_unitset *cosa_model_units_set(const cosa_model_units *mu) { return mu ? mu->set : NULL; }
size_t cosa_model_units_count(const cosa_model_units *mu) { return mu ? mu->nsub : 0; }
cosa_unit *const *cosa_model_units_units(const cosa_model_units *mu)
{
    return mu ? mu->units : NULL;
}
cosa_fmu *const *cosa_model_units_fmus(const cosa_model_units *mu) { return mu ? mu->fmus : NULL; }
size_t cosa_model_units_nfmu(const cosa_model_units *mu) { return mu ? mu->nfmu : 0; }
const unsigned char *cosa_model_units_step_gains(const cosa_model_units *mu)
{
    return mu ? mu->sgain : NULL;
}
const cosa_odesys *cosa_model_units_odesys(const cosa_model_units *mu)
{
    return mu ? mu->os : NULL;
}

/* The FMU's parameters as the model sets them (--set NAME.VAR=VALUE, or a
 * default that differs from the FMU's own start value, e.g. from an SSP's
 * parameter bindings), as the linearisation sets them: a value equal to
 * the FMU's own stays the FMU's (which may have read it from its
 * resources); the states' start values come with the start of the run. */
static cosa_status fmu_params(const cosa_model *m, const double *par, size_t i, cosa_unit *u)
{
    const char *pv;
    size_t pi;
    cosa_status st = COSA_OK;
    for (size_t k = 0; st == COSA_OK && (pv = cosa_model_file_fmu_param(m, i, k, &pi)) != NULL;
         k++) {
        const double own = cosa_model_file_fmu_param_own(m, i, k);
        if (memcmp(&own, &par[pi], sizeof own) != 0)
            st = cosa_unit_fmu_set_start(u, pv, par[pi]);
    }
    const char *tn, *tv; /* OSP InitialValues of other types */
    for (size_t k = 0; st == COSA_OK && cosa_model_file_fmu_text_start(m, i, k, &tn, &tv); k++)
        st = cosa_unit_fmu_set_start_text(u, tn, tv);
    return st;
}

/* The capability of o->need that an FMU with caps (COSA_FMU_CAP_*) lacks,
 * or 0.  Jacobians come from directional
 * derivatives, or (without them, or with force_fd) from finite
 * differences through the FMU's state. */
static unsigned fmu_missing(const cosa_model_units_opts *o, unsigned caps)
{
    const int dd = (caps & COSA_FMU_CAP_DIRECTIONAL) != 0;
    /* (a Model Exchange FMU's state is its continuous states: snapshots
     * always; doc/model-exchange.md) */
    const int state = (caps & (COSA_FMU_CAP_GET_SET_STATE | COSA_FMU_CAP_MODEL_EXCHANGE)) != 0;
    if ((o->need & COSA_MODEL_UNITS_NEED_DIRECTIONAL) && !dd)
        return COSA_MODEL_UNITS_NEED_DIRECTIONAL;
    if ((o->need & COSA_MODEL_UNITS_NEED_JACOBIAN) && (!dd || o->force_fd) && !state)
        return COSA_MODEL_UNITS_NEED_JACOBIAN;
    if ((o->need & COSA_MODEL_UNITS_NEED_STATE) && !state)
        return COSA_MODEL_UNITS_NEED_STATE;
    return 0;
}

/* The FMU unit of subsystem i (path fpath). */
static cosa_status fmu_unit(const cosa_model *m, const double *par, const cosa_model_units_opts *o,
                            size_t i, const char *fpath, cosa_model_units *mu,
                            cosa_model_units_error *err)
{
    const char *sub = m->sub_name ? m->sub_name(m, par, i) : NULL;
    /* an OSP system's FMUs exchange their discrete Reals too (doc/osp.md);
     * 'fmu NAME cs|me = PATH' chooses the interface */
    const unsigned fl = (cosa_model_file_osp(m) ? COSA_FMU_OPEN_DISCRETE_IO : 0u) |
                        COSA_FMU_OPEN_IFACE(cosa_model_file_fmu_iface(m, i));
    cosa_status st = cosa_fmu_open_flags(fpath, fl, &mu->fmus[i], err->msg, sizeof err->msg);
    if (st == COSA_OK)
        st = cosa_unit_fmu_create(mu->fmus[i], sub, &mu->units[i]);
    /* a Model Exchange FMU takes the run's integrator (exact: its own CVODE) */
    if (st == COSA_OK && o->integ->kind != COSA_INTEGRATOR_EXACT)
        st = cosa_unit_fmu_set_integrator(mu->units[i], o->integ);
    if (st == COSA_OK && o->log) /* loggingOn, messages to the logger */
        st = cosa_unit_fmu_set_logger(mu->units[i], o->log, o->log_user);
    if (st == COSA_OK)
        st = fmu_params(m, par, i, mu->units[i]);
    if (st != COSA_OK) {
        if (mu->fmus[i] && mu->units[i])
            snprintf(err->msg, sizeof err->msg, "%s", cosa_unit_message(mu->units[i]));
        return st;
    }
    const unsigned caps = cosa_fmu_caps(mu->fmus[i]);
    err->caps = caps;
    if ((err->missing = fmu_missing(o, caps)) != 0)
        return COSA_EUNSUPPORTED;
    /* without directional derivatives (or with force_fd), MBCorr's G_p and
     * G_0 come from central differences through the FMU's state over the
     * step itself (cosa_unit_step_gains) */
    mu->sgain[i] = !(caps & COSA_FMU_CAP_DIRECTIONAL) || o->force_fd;
    mu->nfmu++;
    return COSA_OK;
}

/* The forms the units need: the linear system for exact units, the ODE
 * form for ODE units and coupling variables (the model's nonlinear form,
 * else made from the linear one). */
static cosa_status forms(const cosa_model *m, const double *par, const cosa_model_units_opts *o,
                         cosa_model_units *mu)
{
    const int exact = o->integ->kind == COSA_INTEGRATOR_EXACT;
    mu->sys = o->sys;
    mu->os = o->os;
    cosa_status st = COSA_OK;
    if (!mu->sys && (exact || (!mu->os && !m->create_ode)) && cosa_model_is_linear(m)) {
        if ((st = m->create(m, par, &mu->own_sys)) != COSA_OK)
            return st;
        mu->sys = mu->own_sys;
    }
    if (exact && !mu->sys)
        return COSA_EINVAL;
    if (!mu->os && (!exact || o->coupling)) {
        st = m->create_ode ? m->create_ode(m, par, &mu->own_os)
                           : cosa_odesys_from_linear(mu->sys, &mu->own_os);
        mu->os = mu->own_os;
    }
    return st;
}

/* A model file's clock connections (`connect clock`, README "Clocks")
 * between the FMU units: an output clock drives a triggered input clock.
 * Without FMU units (fmu_linearized) there are no clocks to link. */
static cosa_status clock_links(const cosa_model *m, cosa_model_units *mu,
                               cosa_model_units_error *err)
{
    for (size_t k = 0; k < cosa_model_file_nclock_link(m); k++) {
        size_t a, b;
        const char *out, *in;
        cosa_status st = cosa_model_file_clock_link(m, k, &a, &out, &b, &in);
        if (st != COSA_OK || a >= mu->nsub || b >= mu->nsub)
            return COSA_EINVAL;
        if (!mu->fmus[a] || !mu->fmus[b])
            continue;
        if ((st = cosa_unit_fmu_clock_link(mu->units[a], out, mu->units[b], in)) != COSA_OK) {
            err->sub = b;
            snprintf(err->msg, sizeof err->msg, "clock %s of %s -> clock %s of %s: %s", out,
                     cosa_unit_fmu_name(mu->units[a]), in, cosa_unit_fmu_name(mu->units[b]),
                     cosa_strerror(st));
            return st;
        }
    }
    return COSA_OK;
}

/* A model file's discrete connections (SSP, OSP: Integer, Boolean and
 * Enumeration signals, held between communication points) on the set.
 * Without FMU units (fmu_linearized) there are none to copy. */
static cosa_status discrete_links(const cosa_model *m, cosa_model_units *mu,
                                  cosa_model_units_error *err)
{
    for (size_t k = 0; k < cosa_model_file_ndiscrete(m); k++) {
        size_t a, b;
        const char *out, *in;
        double gain, offset;
        cosa_status st = cosa_model_file_discrete(m, k, &a, &out, &b, &in);
        if (st == COSA_OK)
            st = cosa_model_file_discrete_map(m, k, &gain, &offset);
        if (st != COSA_OK || a >= mu->nsub || b >= mu->nsub)
            return COSA_EINVAL;
        if (!mu->fmus[a] || !mu->fmus[b])
            continue;
        char why[sizeof err->msg];
        if ((st = cosa_unitset_discrete_link_affine(mu->set, a, out, b, in, gain, offset, why,
                                                    sizeof why)) != COSA_OK) {
            err->sub = b;
            snprintf(err->msg, sizeof err->msg, "%s", why);
            return st;
        }
    }
    return COSA_OK;
}

/* The unit set over the units: u = L y of the linear form (else the ODE
 * form's), with the ODE form's coupling variables and band if asked. */
static cosa_status make_set(const cosa_model *m, const cosa_model_units_opts *o,
                            cosa_model_units *mu)
{
    const double *L = mu->bareL ? mu->bareL
                      : mu->sys   ? cosa_system_L(mu->sys)
                                  : cosa_odesys_L(mu->os);
    if (o->coupling && mu->os)
        L = cosa_odesys_L(mu->os);
    cosa_status st = cosa_unitset_create(mu->nsub, mu->units, L, NULL, &mu->set);
    if (st == COSA_OK) /* u = L y + c: the file's connection offsets (none: NULL) */
        st = cosa_unitset_set_input_offset(mu->set, cosa_model_file_input_offset(m));
    if (st != COSA_OK || !o->coupling || !mu->os)
        return st;
    const cosa_coupling *cp = cosa_odesys_coupling(mu->os);
    if (cp && (st = cosa_unitset_set_coupling(mu->set, cp)) != COSA_OK)
        return st;
    size_t blo, bup;
    if (cosa_odesys_band(mu->os, &blo, &bup))
        st = cosa_unitset_set_band(mu->set, blo, bup);
    return st;
}

/* The subsystems' names on the set: what run results call the units. */
static cosa_status set_names(const cosa_model *m, const double *par, cosa_model_units *mu)
{
    const char **names = calloc(mu->nsub + 1, sizeof *names);
    if (!names)
        return COSA_ENOMEM;
    for (size_t i = 0; i < mu->nsub; i++) {
        names[i] = m->sub_name(m, par, i);
        if (!names[i]) { /* a model without a name for it: none at all */
            free(names);
            return COSA_OK;
        }
    }
    cosa_status st = cosa_unitset_set_names(mu->set, names);
    free(names);
    return st;
}

cosa_status cosa_model_units_create(const cosa_model *m, const double *par,
                                    const cosa_model_units_opts *opts, cosa_model_units **out,
                                    cosa_model_units_error *err)
{
    cosa_model_units_error dummy;
    if (!err)
        err = &dummy;
    memset(err, 0, sizeof *err);
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (!m || !par || !opts || !opts->integ)
        return COSA_EINVAL;
    cosa_model_units *mu = calloc(1, sizeof *mu);
    if (!mu)
        return COSA_ENOMEM;
    /* an OSP network whose FMUs declare no states has no linear form (a
     * system needs states): FMU units over the file's L */
    const cosa_osp_info *osp = cosa_model_file_osp(m);
    mu->bareL = osp && osp->nx == 0 ? osp->L : NULL;
    cosa_status st = mu->bareL ? COSA_OK : forms(m, par, opts, mu);
    if (st == COSA_OK) {
        mu->nsub = mu->bareL ? osp->nsub
                   : mu->sys ? cosa_system_nsub(mu->sys) : cosa_odesys_nsub(mu->os);
        mu->units = calloc(mu->nsub + 1, sizeof *mu->units);
        mu->fmus = calloc(mu->nsub + 1, sizeof *mu->fmus);
        mu->sgain = calloc(mu->nsub + 1, 1);
        if (!mu->units || !mu->fmus || !mu->sgain)
            st = COSA_ENOMEM;
    }
    err->sub = mu->nsub;
    for (size_t i = 0; i < mu->nsub && st == COSA_OK; i++) {
        const char *fpath = opts->fmu_linearized ? NULL : cosa_model_file_fmu(m, i);
        err->sub = i;
        if (fpath) {
            err->fmu = fpath;
            st = fmu_unit(m, par, opts, i, fpath, mu, err);
        } else if (opts->integ->kind == COSA_INTEGRATOR_EXACT) {
            st = cosa_unit_linear_from_system(mu->sys, i, &mu->units[i]);
        } else {
            st = cosa_unit_ode_create(cosa_odesys_sub(mu->os, i), opts->integ, &mu->units[i]);
        }
    }
    if (st == COSA_OK) {
        err->sub = mu->nsub;
        err->fmu = NULL;
        st = clock_links(m, mu, err);
    }
    if (st == COSA_OK)
        st = make_set(m, opts, mu);
    if (st == COSA_OK)
        st = discrete_links(m, mu, err);
    if (st == COSA_OK && m->sub_name)
        st = set_names(m, par, mu);
    if (st != COSA_OK) {
        cosa_model_units_free(mu);
        return st;
    }
    *out = mu;
    return COSA_OK;
}
