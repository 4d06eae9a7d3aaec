/* modelfile_fmu.c -- the statement `fmu NAME = PATH` of model files: a
 * subsystem backed by an FMI 3.0 / 2.0 co-simulation FMU, linearised at its
 * operating point (start time 0, start values; cosa_unit_fmu_linearize:
 * directional derivatives, else central differences) when the file is
 * read.  The subsystem's states, inputs and outputs are the FMU's
 * continuous states, inputs and outputs, named after its variables (other
 * characters than letters, digits and '_' become '_'); A, B, C, D are the
 * linearisation, x0 the states' start values.  PATH is relative to the
 * model file's directory.  The subsystem keeps the FMU open and its
 * capability summary (cosa_fmu_capability: input degree, Jacobians, FMU
 * state, fixed step), which cosa_model_file_fmu_capability exposes. */
#include "modelfile_impl.h"
#include "modelfile_cache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable name as a model-file identifier. */
char *mf_ident_of(const char *name)
{
    char *r = malloc(strlen(name) + 2);
    if (!r)
        return NULL;
    size_t n = 0;
    if (!mf_ident_start(name[0]))
        r[n++] = '_';
    for (const char *c = name; *c; c++)
        r[n++] = mf_ident_char(*c) ? *c : '_';
    r[n] = '\0';
    return r;
}

/* The subsystem s (name and line set) from the FMU: names, blocks A, B, C,
 * D and x0; nid states named xi1, xi2, ... (an identified model's
 * coordinates) when identified, else the FMU's states. */
cosa_status mf_fmu_fill(struct mf_sub *s, const cosa_fmu *fmu, int identified, size_t nid,
                        const double *A, const double *B, const double *C, const double *D,
                        const double *x0)
{
    const size_t n[3] = {identified ? nid : cosa_fmu_nstate(fmu), cosa_fmu_ninput(fmu),
                         cosa_fmu_noutput(fmu)};
    for (int d = 0; d < 3; d++) {
        s->n[d] = n[d];
        s->decl_line[d] = s->line;
        s->names[d] = calloc(n[d] + 1, sizeof(char *));
        if (!s->names[d])
            return COSA_ENOMEM;
        for (size_t i = 0; i < n[d]; i++) {
            if (identified && d == DECL_X) {
                char nm[32];
                snprintf(nm, sizeof nm, "xi%zu", i + 1);
                if (!(s->names[d][i] = mf_dup0(nm)))
                    return COSA_ENOMEM;
                continue;
            }
            const size_t v = d == DECL_X   ? cosa_fmu_state(fmu, i)
                             : d == DECL_U ? cosa_fmu_input(fmu, i)
                                           : cosa_fmu_output(fmu, i);
            if (!(s->names[d][i] = mf_ident_of(cosa_fmu_var_at(fmu, v)->name)))
                return COSA_ENOMEM;
        }
    }
    const double *src[5] = {A, B, C, D, x0};
    for (int k = 0; k < NBLK; k++) {
        size_t r, c;
        mf_block_dims(s, k, &r, &c);
        if (mf_alloc_block(&s->b[k], r, c, 0) != COSA_OK)
            return COSA_ENOMEM;
        s->b[k].given = 1;
        s->b[k].line = s->line;
        for (size_t i = 0; i < r * c; i++) {
            double v = src[k][i];
            s->b[k].e[i] = (mf_expr){v, 0, 0, (uint32_t)s->line};
        }
    }
    return COSA_OK;
}

/* Append the parameter "SUB.VAR" (default value, kind) to the model; the
 * name must be new.  0, or -1 after reporting. */
static int add_param(struct mf_parser *p, const char *sub, const char *var, double value,
                     cosa_param_kind kind, size_t line)
{
    mf_t *mf = p->mf;
    char *id = mf_ident_of(var);
    size_t len = strlen(sub) + (id ? strlen(id) : 0) + 2;
    char *name = id ? malloc(len) : NULL;
    if (!name) {
        free(id);
        mf_nomem(p);
        return -1;
    }
    snprintf(name, len, "%s.%s", sub, id);
    free(id);
    for (size_t i = 0; i < mf->nparam; i++)
        if (strcmp(mf->params[i].name, name) == 0) {
            mf_perr(p, COSA_EFMU, line, "fmu %s: two FMU variables are both called %s here "
                    "(names outside letters, digits and _ are changed to _)", sub, name);
            free(name);
            return -1;
        }
    if (mf->nparam == mf->capparam) {
        size_t cap = mf->capparam ? 2 * mf->capparam : 8;
        cosa_param *np = realloc(mf->params, cap * sizeof *np);
        if (np)
            mf->params = np;
        size_t *pl = np ? realloc(mf->param_line, cap * sizeof *pl) : NULL;
        if (pl)
            mf->param_line = pl;
        if (!np || !pl) {
            free(name);
            mf_nomem(p);
            return -1;
        }
        mf->capparam = cap;
    }
    char *unit = mf_dup0(""), *doc = mf_dup0(kind == COSA_PARAM_INITIAL
                                                 ? "FMU state start value"
                                                 : "FMU parameter");
    if (!unit || !doc) {
        free(name);
        free(unit);
        free(doc);
        mf_nomem(p);
        return -1;
    }
    mf->params[mf->nparam] = (cosa_param){name, value, unit, doc, kind, {0}};
    mf->param_line[mf->nparam++] = line;
    return 0;
}

/* The FMU's parameters (Float64/Real, causality parameter, fixed or tunable,
 * with a start value) and its states' start values as model parameters
 * "SUB.VAR" of the subsystem s; keeps the FMU open in s. */
static void add_fmu_params(struct mf_parser *p, struct mf_sub *s, cosa_fmu *fmu, cosa_unit *u)
{
    const size_t nx = cosa_fmu_nstate(fmu), nv = cosa_fmu_nvar(fmu);
    size_t npar = 0;
    for (size_t v = 0; v < nv; v++) {
        const cosa_fmu_var *var = cosa_fmu_var_at(fmu, v);
        npar += var->causality == COSA_FMU_PARAMETER && var->has_start &&
                (var->variability == COSA_FMU_FIXED || var->variability == COSA_FMU_TUNABLE);
    }
    s->fvar = calloc(npar + 1, sizeof *s->fvar);
    s->fown = calloc(npar + 1, sizeof *s->fown);
    if (!s->fvar || !s->fown) {
        mf_nomem(p);
        return;
    }
    s->fpar0 = p->mf->nparam;
    size_t k = 0;
    for (size_t v = 0; v < nv && p->st == COSA_OK; v++) {
        const cosa_fmu_var *var = cosa_fmu_var_at(fmu, v);
        if (!(var->causality == COSA_FMU_PARAMETER && var->has_start &&
              (var->variability == COSA_FMU_FIXED || var->variability == COSA_FMU_TUNABLE)))
            continue;
        if (!(s->fvar[k] = mf_dup0(var->name))) {
            mf_nomem(p);
            return;
        }
        s->fown[k] = var->start;
        k++;
        s->nfpar = k; /* what mf_free releases */
        add_param(p, s->name, var->name, var->start, COSA_PARAM_MODEL, s->line);
    }
    for (size_t i = 0; i < nx && p->st == COSA_OK; i++)
        if (add_param(p, s->name, cosa_fmu_var_at(fmu, cosa_fmu_state(fmu, i))->name,
                      cosa_unit_state(u)[i], COSA_PARAM_INITIAL, s->line) == 0)
            s->nfpar = npar + i + 1;
}

int mf_fmu_moved(const mf_t *mf, const struct mf_sub *s, const double *par)
{
    for (size_t k = 0; k < s->nfpar; k++)
        if (memcmp(&par[s->fpar0 + k], &mf->params[s->fpar0 + k].value, sizeof *par) != 0)
            return 1;
    return 0;
}

/* A unit of subsystem s's FMU at parameter values par: the FMU
 * parameters that differ from their defaults as start values, the OSP
 * InitialValues of other types as text, the states' start values as its
 * state at t = 0. */
cosa_status mf_fmu_unit_at(const mf_t *mf, const struct mf_sub *s, const double *par,
                           cosa_unit **out)
{
    const size_t nx = s->fnx, np = s->nfpar - nx;
    cosa_unit *u = NULL;
    cosa_status st = cosa_unit_fmu_create(s->fh, s->name, &u);
    (void)mf;
    for (size_t k = 0; k < s->ntext && st == COSA_OK; k++)
        st = cosa_unit_fmu_set_start_text(u, s->tname[k], s->tval[k]);
    for (size_t k = 0; k < np && st == COSA_OK; k++) /* where they differ from the FMU's own */
        if (memcmp(&par[s->fpar0 + k], &s->fown[k], sizeof *par) != 0)
            st = cosa_unit_fmu_set_start(u, s->fvar[k], par[s->fpar0 + k]);
    if (st == COSA_OK && nx &&
        memcmp(par + s->fpar0 + np, cosa_unit_state(u), nx * sizeof *par) != 0)
        st = cosa_unit_set_state(u, 0.0, par + s->fpar0 + np);
    *out = u;
    return st;
}

cosa_status mf_fmu_linearize(const mf_t *mf, const struct mf_sub *s, const double *par,
                             double *A, double *B, double *C, double *D, double *x0)
{
    cosa_unit *u = NULL;
    cosa_status st = mf_fmu_unit_at(mf, s, par, &u);
    if (st == COSA_OK && s->identified) {
        /* the same order and probe step as at the defaults (the subsystem
         * keeps its shape), once per FMU and parameter set */
        st = mf_icache_identify(mf, s, par, u, A, B, C, D, x0);
    } else if (st == COSA_OK) {
        st = cosa_unit_fmu_linearize(u, s->ffd, A, B, C, D);
        if (st == COSA_OK && x0) /* declared: the states' start values */
            memcpy(x0, par + s->fpar0 + s->nfpar - s->fnx, s->fnx * sizeof *x0);
    }
    cosa_unit_free(u);
    return st;
}

cosa_status mf_fmu_linearity(const mf_t *mf, const struct mf_sub *s, const double *par,
                             cosa_linearity *out)
{
    if (s->identified) { /* the identification's own two-amplitude figure */
        memset(out, 0, sizeof *out);
        out->nonlinear = s->idinfo.nonlin;
        out->is_nonlinear = s->idinfo.nonlinear;
        return COSA_OK;
    }
    const size_t nx = s->fnx, nu = s->n[DECL_U], ny = s->n[DECL_Y];
    double *M = calloc(nx * nx + nx * nu + ny * nx + ny * nu + nu + 1, sizeof *M);
    if (!M)
        return COSA_ENOMEM;
    double *A = M, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx, *u0 = D + ny * nu;
    /* the operating point of cosa_unit_fmu_linearize: inputs at their start
     * values (0 without one) */
    for (size_t j = 0; j < nu; j++) {
        const cosa_fmu_var *v = cosa_fmu_var_at(s->fh, cosa_fmu_input(s->fh, j));
        u0[j] = v && v->has_start ? v->start : 0.0;
    }
    cosa_unit *u = NULL;
    cosa_status st = mf_fmu_unit_at(mf, s, par, &u);
    if (st == COSA_OK)
        st = cosa_unit_fmu_linearize(u, s->ffd, A, B, C, D);
    if (st == COSA_OK)
        st = cosa_unit_linearity(u, cosa_unit_time(u), cosa_unit_state(u), u0, A, B, C, D, out);
    cosa_unit_free(u);
    free(M);
    return st;
}

cosa_status mf_fmu_rebind(struct mf_parser *p, struct mf_sub *s)
{
    const mf_t *mf = p->mf;
    const size_t nx = s->n[DECL_X], nu = s->n[DECL_U], ny = s->n[DECL_Y];
    double *par = malloc((mf->nparam + 1) * sizeof *par);
    double *M = calloc(nx * nx + nx * nu + ny * nx + ny * nu + nx + 1, sizeof *M);
    cosa_status st = par && M ? COSA_OK : COSA_ENOMEM;
    for (size_t i = 0; st == COSA_OK && i < mf->nparam; i++)
        par[i] = mf->params[i].value;
    double *A = M, *B = A + nx * nx, *C = B + nx * nu, *D = C + ny * nx, *x0 = D + ny * nu;
    if (st == COSA_OK)
        st = mf_fmu_linearize(mf, s, par, A, B, C, D, x0);
    if (st == COSA_OK) {
        /* identified: x0 of the identification at these values */
        const double *src[NBLK] = {A, B, C, D, x0};
        for (int k = 0; k < NBLK; k++) {
            size_t r, c;
            mf_block_dims(s, k, &r, &c);
            for (size_t i = 0; i < r * c; i++)
                s->b[k].e[i].value = src[k][i];
        }
    } else if (st == COSA_ENOMEM)
        mf_nomem(p);
    else
        mf_perr(p, COSA_EFMU, s->line, "fmu %s: cannot linearise at the parameter values "
                "given: %s", s->name, cosa_strerror(st));
    free(par);
    free(M);
    return st;
}

void mf_fmu_rebind_moved(struct mf_parser *p)
{
    mf_t *mf = p->mf;
    for (size_t i = 0; i < mf->nsub && p->st == COSA_OK; i++) {
        struct mf_sub *sub = &mf->subs[i];
        /* an identified FMU's blocks hold the identified model: no declared x0 */
        const size_t nx = sub->identified ? 0 : sub->fnx, np = sub->nfpar - sub->fnx;
        int moved = 0;
        for (size_t k = 0; k < np; k++)
            moved |= mf->params[sub->fpar0 + k].value != sub->fown[k];
        for (size_t j = 0; j < nx; j++)
            moved |= mf->params[sub->fpar0 + np + j].value != sub->b[BX0].e[j].value;
        if (moved)
            mf_fmu_rebind(p, sub);
    }
}

long mf_fmu_param(const struct mf_sub *sub, const char *var)
{
    const size_t nx = sub->fnx, np = sub->nfpar - nx;
    for (size_t k = 0; k < np; k++)
        if (strcmp(sub->fvar[k], var) == 0)
            return (long)(sub->fpar0 + k);
    for (size_t i = 0; i < nx; i++)
        if (strcmp(cosa_fmu_var_at(sub->fh, cosa_fmu_state(sub->fh, i))->name, var) == 0)
            return (long)(sub->fpar0 + np + i);
    return -1;
}

/* Without a 'tend' line (so far: a later one overrides), the horizon is the
 * smallest DefaultExperiment stopTime of the FMUs that give one (cosa starts
 * every unit at t = 0). */
static void default_tend(struct mf_parser *p)
{
    if (p->tend_line)
        return;
    double tend = 0.0;
    for (size_t i = 0; i < p->mf->nsub; i++) {
        const double stop = p->mf->subs[i].fh ? cosa_fmu_stop_time(p->mf->subs[i].fh) : NAN;
        if (stop > 0.0 && (tend == 0.0 || stop < tend))
            tend = stop;
    }
    if (tend > 0.0)
        p->mf->tend = tend;
}

void mf_st_fmu(struct mf_parser *p, const char *name, size_t line, const char *path)
{
    /* PATH relative to the model file's directory */
    char full[4096];
    const char *slash = strrchr(p->fname, '/');
    if (path[0] != '/' && slash && p->fname[0] != '<')
        snprintf(full, sizeof full, "%.*s/%s", (int)(slash - p->fname), p->fname, path);
    else
        snprintf(full, sizeof full, "%s", path);
    mf_fmu_add(p, name, line, full, path);
}

void mf_fmu_add(struct mf_parser *p, const char *name, size_t line, const char *full,
                const char *path)
{
    mf_t *mf = p->mf;
    char err[512];
    cosa_fmu *fmu = NULL;
    cosa_unit *u = NULL;
    const unsigned fl = (p->mf->osp ? COSA_FMU_OPEN_DISCRETE_IO : 0u) |
                        COSA_FMU_OPEN_IFACE(p->fmu_iface);
    cosa_status st = cosa_fmu_open_flags(full, fl, &fmu, err, sizeof err);
    if (st != COSA_OK) {
        mf_perr(p, st == COSA_ENOMEM ? COSA_ENOMEM : COSA_EFMU, line, "fmu %s: %s: %s", name,
                path, err);
        return;
    }
    st = cosa_unit_fmu_create(fmu, name, &u);
    size_t nx = cosa_fmu_nstate(fmu);
    const size_t fnx = nx, nu = cosa_fmu_ninput(fmu), ny = cosa_fmu_noutput(fmu);
    /* black boxes: identified unless --linearization declared, and every
     * FMU with --linearization identify */
    cosa_fmu_capability cap;
    cosa_fmu_capability_get(fmu, &cap);
    /* by default not FMUs with events or clocks: their steps need Event Mode,
     * which the experiments do not run (Phi sees them between events) */
    const int asked = (p->flags & COSA_MODEL_FILE_FMU_IDENTIFY) != 0;
    int identify = asked || (!(p->flags & COSA_MODEL_FILE_FMU_DECLARED) && nx == 0 &&
                             !cap.event_mode && !cap.clocks);
    double *M = NULL;
    cosa_ident id = {0};
    char iwhy[480] = "", *deferred = NULL;
    if (st == COSA_OK && identify) {
        st = mf_ident_unit(fmu, &cap, u, -1, p->probe, &id, &M, iwhy, sizeof iwhy);
        nx = id.n;
        if (st != COSA_OK && st != COSA_ENOMEM && asked) {
            mf_perr(p, COSA_EFMU, line, "fmu %s: %s: %s", name, path, iwhy);
            st = COSA_EFMU;
        } else if (st != COSA_OK && st != COSA_ENOMEM) {
            /* by default: the failure is kept for the Phi commands to
             * report (cosa_model_file_ident_error); the FMU stays its
             * declared reading meanwhile (cosa simulate runs it anyway) */
            size_t len = strlen(p->fname) + strlen(name) + strlen(path) + strlen(iwhy) + 64;
            if ((deferred = malloc(len)))
                snprintf(deferred, len, "%s:%zu: fmu %s: %s: %s", p->fname, line, name, path,
                         iwhy);
            st = deferred ? COSA_OK : COSA_ENOMEM;
            identify = 0;
            nx = fnx;
            cosa_ident_free(&id);
            free(M);
            M = NULL;
        }
    }
    if (st == COSA_OK && !identify) {
        M = calloc(nx * nx + nx * nu + ny * nx + ny * nu + nx + 1, sizeof *M);
        if (!M)
            st = COSA_ENOMEM;
        else
            memcpy(M + nx * nx + nx * nu + ny * nx + ny * nu, cosa_unit_state(u), nx * sizeof *M);
    }
    double *A = M, *B = A ? A + nx * nx : NULL, *C = B ? B + nx * nu : NULL,
           *D = C ? C + ny * nx : NULL, *X0 = D ? D + ny * nu : NULL;
    if (!identify && st == COSA_OK && (p->flags & COSA_MODEL_FILE_FMU_DD) &&
        !(cosa_fmu_caps(fmu) & COSA_FMU_CAP_DIRECTIONAL)) {
        mf_perr(p, COSA_EFMU, line, "fmu %s: %s: --jacobian dd: the FMU provides no directional "
                "derivatives", name, path);
        st = COSA_EFMU;
        u = (cosa_unit_free(u), NULL);
    } else if (!identify && st == COSA_OK)
        st = cosa_unit_fmu_linearize(u, (p->flags & COSA_MODEL_FILE_FMU_FD) != 0, A, B, C, D);
    if (st != COSA_OK) {
        if (p->st == COSA_OK) /* else already reported */
            mf_perr(p, st == COSA_ENOMEM ? COSA_ENOMEM : COSA_EFMU, line, "fmu %s: %s: %s", name,
                    path, u && cosa_unit_message(u)[0] ? cosa_unit_message(u)
                                                       : cosa_strerror(st));
    } else {
        struct mf_sub *subs = realloc(mf->subs, (mf->nsub + 1) * sizeof *subs);
        if (!subs) {
            mf_nomem(p);
        } else {
            mf->subs = subs;
            mf->capsub = mf->nsub + 1;
            struct mf_sub *s = &mf->subs[mf->nsub++];
            memset(s, 0, sizeof *s);
            s->name = mf_dup0(name);
            s->fmu = mf_dup0(full);
            s->iface = p->fmu_iface;
            s->line = line;
            s->ffd = (p->flags & COSA_MODEL_FILE_FMU_FD) != 0;
            s->fnx = fnx;
            s->ident_error = deferred;
            deferred = NULL;
            if (!s->name || !s->fmu || mf_fmu_fill(s, fmu, identify, nx, A, B, C, D, X0) != COSA_OK)
                mf_nomem(p);
            else {
                s->fh = fmu; /* kept for linearising at other parameter values */
                s->cap = cap;
                if (identify)
                    mf_ident_info(s, &id);
                if (identify && !mf->icache && !(mf->icache = mf_icache_new()))
                    mf_nomem(p);
                fmu = NULL;
                add_fmu_params(p, s, s->fh, u);
                default_tend(p);
            }
        }
    }
    free(M);
    free(deferred);
    cosa_ident_free(&id);
    cosa_unit_free(u);
    cosa_fmu_close(fmu);
}
