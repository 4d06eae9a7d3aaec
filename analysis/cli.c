/* cli.c -- shared command-line helpers: the model options resolved, the
 * assumed model, the scheme, --dt, the Gauss-Seidel sequence. */
#include "cli.h"
#include "fmu_notes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char cli_scheme_help[] =
    "Schemes (case-insensitive):\n"
    "  zoh | foh | soh | p0 .. p8     extrapolation order p (ZOH = p0, FOH = p1, SOH = p2)\n"
    "  followed optionally by +mbcorr (output + state correction),\n"
    "  +ocorr (output correction only) or +ecorr (state/energy correction only).\n"
    "  Prefix gs: for Gauss-Seidel (sequential) execution, e.g. gs:foh (no corrections).\n"
    "  Prefix imp: (Jacobi) or gs-imp: (Gauss-Seidel) for iterative coupling, e.g.\n"
    "  imp:foh (no corrections; --iterations, --relax).  gs:, imp:, gs-imp: take\n"
    "  /Q, the interpolation degree Q = p or p+1 of the inputs (default p): gs:zoh/1.\n";

int cli_name_value(const char *opt, const char *arg, const char **names, double *values,
                   size_t *n, char *msg, size_t size)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(msg, size, "%s expects NAME=VALUE, got '%s'", opt, arg);
        return -1;
    }
    if (*n >= CLI_MAX_SETS) {
        snprintf(msg, size, "too many %s options (at most %d)", opt, CLI_MAX_SETS);
        return -1;
    }
    double v;
    const int rc = cli_parse_double(eq + 1, &v);
    if (rc != CLI_NUM_OK) {
        snprintf(msg, size, "%s %.*s: '%s' %s%s", opt, (int)(eq - arg), arg, eq + 1,
                 rc == CLI_NUM_SYNTAX ? "is " : "", cli_number_why(rc));
        return -1;
    }
    size_t len = (size_t)(eq - arg);
    char *name = malloc(len + 1);
    if (!name) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    memcpy(name, arg, len);
    name[len] = '\0';
    names[*n] = name;
    values[*n] = v;
    (*n)++;
    return 0;
}

/* The --assume values on a copy of the resolved par (m->apar, m->assumed). */
static int resolve_assume(cli_model *m, const char *cmd)
{
    const cosa_model *md = m->model;
    for (size_t i = 0; i < m->nassume; i++) {
        const int k = cosa_model_param_index(md, m->assume_name[i]);
        if (k < 0) {
            cli_error(cmd, "--assume: model '%s' has no parameter '%s'", md->name,
                      m->assume_name[i]);
            return CLI_EUSAGE;
        }
        if (md->params[k].kind == COSA_PARAM_INITIAL) {
            cli_error(cmd, "--assume %s: '%s' is an initial state, not part of the assumed "
                           "model (which only the output correction uses); use --set",
                      m->assume_name[i], m->assume_name[i]);
            return CLI_EUSAGE;
        }
        char msg[256], b[32];
        if (cosa_param_check(md, (size_t)k, NULL, m->assume_value[i], msg, sizeof msg) !=
            COSA_OK) {
            cli_error(cmd, "--assume %s=%s: %s", m->assume_name[i],
                      cosa_number_text(b, sizeof b, m->assume_value[i]), msg);
            return CLI_EUSAGE;
        }
    }
    if (m->nassume == 0)
        return CLI_OK;
    m->apar = malloc((md->nparam + 1) * sizeof(double));
    m->assumed = calloc(md->nparam + 1, 1);
    if (!m->apar || !m->assumed) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    memcpy(m->apar, m->par, md->nparam * sizeof(double));
    for (size_t i = 0; i < m->nassume; i++) {
        const int k = cosa_model_param_index(md, m->assume_name[i]);
        m->apar[k] = m->assume_value[i];
        m->assumed[k] = 1;
    }
    return CLI_OK;
}

int cli_model_resolve(cli_model *m, const char *cmd)
{
    if (m->name && m->file) {
        cli_error(cmd, "give either --model or --model-file, not both");
        return CLI_EUSAGE;
    }
    if (m->file) {
        char err[512] = "";
        if (m->linearization && strcmp(m->linearization, "identify") != 0 &&
            strcmp(m->linearization, "declared") != 0) {
            cli_error(cmd, "--linearization must be identify or declared, got '%s'",
                      m->linearization);
            return CLI_EUSAGE;
        }
        if (m->linearization)
            m->load_flags |= m->linearization[0] == 'i' ? COSA_MODEL_FILE_FMU_IDENTIFY
                                                        : COSA_MODEL_FILE_FMU_DECLARED;
        double probe = 0.0;
        if (m->probe_step && cli_positive(cmd, "--probe-step", m->probe_step, &probe) != CLI_OK)
            return CLI_EUSAGE;
        cosa_status st = cosa_model_file_load_probe(m->file, m->load_flags, probe, &m->owned,
                                                    err, sizeof err);
        if (st != COSA_OK) {
            cli_error(cmd, "%s", err[0] ? err : cosa_strerror(st));
            return st == COSA_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
        }
        m->model = m->owned;
        for (size_t i = 0; !m->ident_optional && i < cosa_model_file_nsub(m->model); i++)
            if (cosa_model_file_ident_error(m->model, i)) {
                cli_error(cmd, "%s", cosa_model_file_ident_error(m->model, i));
                return CLI_EUSAGE;
            }
        fmu_ident_notes(cmd, m->model, 1);
        /* u = L y + c: simulate runs c, model-dump writes it; Phi ignores it */
        if (cosa_model_file_input_offset(m->model) && strcmp(cmd, "simulate") != 0 &&
            strcmp(cmd, "model-dump") != 0 && strcmp(cmd, "defect") != 0)
            fprintf(stderr, "cosa: %s: note: the connections' offsets (u = L y + c) shift the "
                            "operating point only: Phi, about deviations from it, is the same "
                            "without them\n", cmd);
        /* inputs held constant (u = c: `hold`, an SSP's open inputs): named once */
        if (cosa_model_file_held_inputs(m->model))
            fprintf(stderr, "cosa: %s: note: inputs held constant for the whole run (no "
                            "connection feeds them): %s\n", cmd,
                    cosa_model_file_held_inputs(m->model));
    } else {
        const char *name = m->name ? m->name : "twomass";
        m->model = cosa_model_find(name);
        if (!m->model) {
            cli_error(cmd, "unknown model '%s' (see 'cosa models')", name);
            return CLI_EUSAGE;
        }
    }
    m->par = calloc(m->model->nparam + 1, sizeof(double));
    if (!m->par) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cosa_model_defaults(m->model, m->par);
    for (size_t i = 0; i < m->nset; i++) {
        cosa_status st = cosa_model_set(m->model, m->par, m->set_name[i], m->set_value[i]);
        if (st != COSA_OK && cosa_model_file_is_let(m->model, m->set_name[i])) {
            cli_error(cmd, "--set %s: '%s' is derived (let), not settable", m->set_name[i],
                      m->set_name[i]);
            return CLI_EUSAGE;
        }
        if (st != COSA_OK) {
            cli_error(cmd, "model '%s' has no parameter '%s'", m->model->name, m->set_name[i]);
            return CLI_EUSAGE;
        }
        /* the value's own rules now; bounds by other parameters once all
         * are set (cli_model_check) */
        char msg[256], b[32];
        const int k = cosa_model_param_index(m->model, m->set_name[i]);
        if (cosa_param_check(m->model, (size_t)k, NULL, m->set_value[i], msg, sizeof msg) !=
            COSA_OK) {
            cli_error(cmd, "--set %s=%s: %s", m->set_name[i],
                      cosa_number_text(b, sizeof b, m->set_value[i]), msg);
            return CLI_EUSAGE;
        }
    }
    return resolve_assume(m, cmd);
}

/* An OSP network whose FMUs declare no states has no linear form: one line. */
static int osp_stateless(const cli_model *m, const char *cmd)
{
    const cosa_osp_info *osp = cosa_model_file_osp(m->model);
    if (!osp || osp->nx != 0)
        return CLI_OK;
    cli_error(cmd, "model '%s': the FMUs of this OSP system declare no states: it has no "
                   "linear form (Phi); run it with cosa simulate --algorithm fixedStep|ecco",
              m->model->name);
    return CLI_EUSAGE;
}

int cli_model_linear(const cli_model *m, const char *cmd, const char *why)
{
    if (osp_stateless(m, cmd) != CLI_OK)
        return CLI_EUSAGE;
    if (cosa_model_is_linear(m->model))
        return CLI_OK;
    cli_error(cmd, "model %s is nonlinear: %s", m->model->name,
              why ? why : "Phi analysis needs a linear model (use cosa simulate)");
    return CLI_EUSAGE;
}

/* "model 'NAME': message" for a status of a model callback; for a model
 * file that became non-finite, the entry and the --set values, e.g.
 * "model 'M': A[2,1] of subsystem 'I' is not finite (inf) (with m1 = 0)". */
static int model_failed(const cli_model *m, const char *cmd, cosa_status st)
{
    char what[256];
    if (osp_stateless(m, cmd) != CLI_OK) /* no linear form without states */
        return CLI_EUSAGE;
    if (st == COSA_ENONFINITE &&
        cosa_model_file_nonfinite(m->model, m->par, what, sizeof what) == COSA_ENONFINITE) {
        char with[512];
        cosa_set_text(with, sizeof with, m->set_name, m->set_value, m->nset);
        cli_error(cmd, "model '%s': %s%s", m->model->name, what, with);
    } else
        cli_error(cmd, "model '%s': %s", m->model->name, cosa_strerror(st));
    /* bad input: parameters the model rejects, and a coupled system whose
     * algebraic loop is singular at them (exit 2); anything else failed (1) */
    return st == COSA_EPARAM || st == COSA_ENONFINITE || st == COSA_EALGLOOP ? CLI_EUSAGE
                                                                              : CLI_EFAIL;
}

int cli_need_outputs(const cli_model *m, const char *cmd, size_t ny)
{
    if (ny > 0)
        return CLI_OK;
    cli_error(cmd, "model '%s' has no outputs: accuracy (NRMSE) and time-domain runs are "
                   "undefined (stability: cosa point, limit --criterion stable, map, curve)",
              m->model->name);
    return CLI_EUSAGE;
}

int cli_model_check(const cli_model *m, const char *cmd, const double *par)
{
    char msg[256], b[32];
    size_t k;
    if (cosa_model_check(m->model, par, &k, msg, sizeof msg) == COSA_OK)
        return CLI_OK;
    /* name the --set that gave the value (or the bound it is compared
     * with), else the model */
    const cosa_param *p = &m->model->params[k];
    const char *names[3] = {p->name, p->range.lo_param, p->range.hi_param};
    for (int j = 0; j < 3; j++)
        for (size_t i = m->nset; names[j] && i-- > 0;)
            if (strcmp(m->set_name[i], names[j]) == 0) {
                cli_error(cmd, "--set %s=%s: %s", names[j],
                          cosa_number_text(b, sizeof b, m->set_value[i]), msg);
                return CLI_EUSAGE;
            }
    cli_error(cmd, "model '%s': %s", m->model->name, msg);
    return CLI_EUSAGE;
}

int cli_model_system(cli_model *m, const char *cmd, cosa_system **sys)
{
    int rc = cli_model_linear(m, cmd, NULL);
    if (rc == CLI_OK)
        rc = cli_model_check(m, cmd, m->par);
    if (rc != CLI_OK)
        return rc;
    cosa_status st = m->model->create(m->model, m->par, sys);
    return st == COSA_OK ? CLI_OK : model_failed(m, cmd, st);
}

int cli_model_odesys(cli_model *m, const char *cmd, cosa_odesys **os)
{
    int rc = cli_model_check(m, cmd, m->par);
    if (rc != CLI_OK)
        return rc;
    cosa_status st = m->model->create_ode(m->model, m->par, os);
    return st == COSA_OK ? CLI_OK : model_failed(m, cmd, st);
}

int cli_model_x0(cli_model *m, const char *cmd, size_t nx, double **x0)
{
    *x0 = calloc(nx + 1, sizeof(double));
    if (!*x0) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cosa_status st = m->model->initial_state(m->model, m->par, *x0);
    char what[8];
    if (st == COSA_ENONFINITE &&
        cosa_model_file_nonfinite(m->model, m->par, what, sizeof what) == COSA_ENONFINITE)
        return model_failed(m, cmd, st); /* names the entry and the --set values */
    if (st != COSA_OK) {
        cli_error(cmd, "model '%s': initial state: %s", m->model->name, cosa_strerror(st));
        return CLI_EFAIL;
    }
    return CLI_OK;
}

void cli_model_free(cli_model *m)
{
    for (size_t i = 0; i < m->nset; i++)
        free((char *)m->set_name[i]);
    for (size_t i = 0; i < m->nassume; i++)
        free((char *)m->assume_name[i]);
    free(m->par);
    free(m->apar);
    free(m->assumed);
    m->par = m->apar = NULL;
    m->assumed = NULL;
    m->nset = m->nassume = 0;
    cosa_model_free(m->owned);
    m->owned = NULL;
    m->model = NULL;
}

int cli_assume_given(const cli_model *m)
{
    return m->apar != NULL;
}

void cli_assume_par(const cli_model *m, const double *par, double *apar)
{
    const size_t np = m->model->nparam;
    for (size_t k = 0; k < np; k++)
        apar[k] = m->assumed && m->assumed[k] ? m->apar[k] : par[k];
}

int cli_assume_note(const char *cmd, const cosa_scheme *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].corr & COSA_CORR_OUTPUT)
            return 1;
    fprintf(stderr, "cosa: %s: note: --assume has no effect on ", cmd);
    for (size_t i = 0; i < n; i++) {
        char name[64];
        cosa_scheme_name(&s[i], name, sizeof name);
        fprintf(stderr, "%s%s", i ? ", " : "", name);
    }
    fprintf(stderr, " (no output correction)\n");
    return 0;
}

int cli_assume_system(const cli_model *m, const char *cmd, const double *par,
                      const cosa_system *sys, cosa_scheme *s, size_t n, cosa_system **model)
{
    *model = NULL;
    int corrected = 0;
    for (size_t i = 0; i < n; i++)
        corrected |= (s[i].corr & COSA_CORR_OUTPUT) != 0;
    if (!cli_assume_given(m) || !corrected)
        return CLI_OK;
    const cosa_model *md = m->model;
    double *apar = malloc((md->nparam + 1) * sizeof(double));
    if (!apar) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cli_assume_par(m, par, apar);
    const int same = memcmp(apar, par, md->nparam * sizeof(double)) == 0;
    cosa_status st = same ? COSA_OK : md->create(md, apar, model);
    free(apar);
    if (st != COSA_OK) {
        cli_error(cmd, "model '%s' (assumed): %s", md->name, cosa_strerror(st));
        return st == COSA_EPARAM || st == COSA_ENONFINITE ? CLI_EUSAGE : CLI_EFAIL;
    }
    if (same) /* the true system: the correction as without --assume */
        return CLI_OK;
    for (size_t i = 0; i < n; i++)
        if (s[i].corr & COSA_CORR_OUTPUT) {
            s[i].model = *model;
            if (cosa_scheme_check(&s[i], sys) == COSA_EMODELSHAPE) {
                cli_error(cmd, "--assume: %s", cosa_strerror(COSA_EMODELSHAPE));
                return CLI_EUSAGE;
            }
        }
    return CLI_OK;
}

void cli_assume_print(FILE *f, const char *prefix, const cli_model *m)
{
    if (!cli_assume_given(m))
        return;
    char b[32];
    for (size_t k = 0; k < m->model->nparam; k++)
        if (m->assumed[k])
            fprintf(f, "%sassume %s %s\n", prefix, m->model->params[k].name,
                    cosa_number_text(b, sizeof b, m->apar[k]));
}

int cli_scheme(const char *cmd, const char *text, cosa_scheme *s)
{
    if (cosa_scheme_parse(text, s) != COSA_OK) {
        cli_error(cmd, "unknown scheme '%s' (expected [gs:|imp:|gs-imp:]zoh|foh|soh|p0..p%d, "
                       "/Q = p or p+1 after gs:, imp:, gs-imp:, optional +mbcorr|+ocorr|+ecorr)",
                  text, COSA_ORDER_MAX);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int cli_case_dt(const char *cmd, const char *text, double *dt)
{
    if (!text) {
        cli_error(cmd, "--dt is required (see 'cosa %s --help')", cmd);
        return CLI_EUSAGE;
    }
    return cli_positive(cmd, "--dt", text, dt);
}

int cli_case_scheme(const char *cmd, const cli_case *cs, cosa_scheme *s)
{
    if (!cs->scheme_text) {
        cli_error(cmd, "--scheme is required (see 'cosa %s --help')", cmd);
        return CLI_EUSAGE;
    }
    int rc = cli_scheme(cmd, cs->scheme_text, s);
    if (rc == CLI_OK)
        s->alpha = cs->alpha;
    return rc == CLI_OK ? cli_iter_apply(cmd, cs, s, 1) : rc;
}

/* Parse "--sequence II,I" or "--sequence 2,1" into a permutation. */
static int parse_sequence(const char *cmd, const char *text, const cosa_model *m, const double *par,
                       size_t nsub, size_t *seq)
{
    char buf[1024];
    if (strlen(text) >= sizeof buf) {
        cli_error(cmd, "--sequence list too long");
        return CLI_EUSAGE;
    }
    strcpy(buf, text);
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t idx = (size_t)-1;
        for (size_t k = 0; k < nsub && m->sub_name; k++) {
            const char *nm = m->sub_name(m, par, k);
            if (nm && strcmp(nm, tok) == 0)
                idx = k;
        }
        size_t v;
        if (idx == (size_t)-1 && cli_parse_size(tok, &v) == 0 && v <= nsub)
            idx = v - 1;
        if (idx == (size_t)-1) {
            cli_error(cmd, "--sequence: '%s' is not a subsystem name or index 1..%zu", tok, nsub);
            return CLI_EUSAGE;
        }
        if (n == nsub) {
            cli_error(cmd, "--sequence lists more than the %zu subsystems", nsub);
            return CLI_EUSAGE;
        }
        for (size_t k = 0; k < n; k++)
            if (seq[k] == idx) {
                cli_error(cmd, "--sequence names subsystem '%s' twice", tok);
                return CLI_EUSAGE;
            }
        seq[n++] = idx;
    }
    if (n != nsub) {
        cli_error(cmd, "--sequence must list all %zu subsystems, got %zu", nsub, n);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int cli_case_system(const char *cmd, cli_case *cs, cosa_scheme *s, cosa_system **sys)
{
    int rc = cli_model_resolve(&cs->mod, cmd);
    if (rc == CLI_OK)
        rc = cli_model_system(&cs->mod, cmd, sys);
    if (rc != CLI_OK)
        return rc;
    return cli_case_sequence(cmd, cs, s, cosa_system_nsub(*sys), *sys);
}

int cli_case_sequence(const char *cmd, cli_case *cs, cosa_scheme *s, size_t nsub,
                   const cosa_system *sys)
{
    int rc;
    if (cs->seq_text) {
        if (s->exec != COSA_GAUSS_SEIDEL) {
            cli_error(cmd, "--sequence applies to Gauss-Seidel schemes only (prefix 'gs:')");
            return CLI_EUSAGE;
        }
        cs->seq = calloc(nsub, sizeof(size_t));
        if (!cs->seq) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        if ((rc = parse_sequence(cmd, cs->seq_text, cs->mod.model, cs->mod.par, nsub, cs->seq)) !=
            CLI_OK)
            return rc;
        s->seq = cs->seq;
        if (cs->seq_deprecated)
            fprintf(stderr, "cosa: %s: note: --order is deprecated for the Gauss-Seidel "
                            "execution sequence; use --sequence\n", cmd);
    }
    cosa_status st = cosa_scheme_check(s, sys);
    if (st == COSA_EUNSUPPORTED) {
        cli_error(cmd, "scheme '%s': corrections are defined for explicit Jacobi schemes only",
                  cs->scheme_text ? cs->scheme_text : "?");
        return CLI_EUSAGE;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "scheme '%s': %s", cs->scheme_text ? cs->scheme_text : "?",
                  cosa_strerror(st));
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

void cli_case_free(cli_case *cs)
{
    cli_model_free(&cs->mod);
    free(cs->seq);
    cs->seq = NULL;
}

int cli_file_stem(const char *cmd, const char *opt, const char *name)
{
    const size_t n = strlen(name);
    if (n == 0 || n > 100 || name[0] == '.' || name[0] == '-' ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") != n) {
        cli_error(cmd, "%s '%s': a plain file stem is expected (letters, digits, '.', '_', '+', "
                       "'-'; no directory, not starting with '.' or '-')",
                  opt, name);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int cli_dt_fits(const char *cmd, const char *opt, double dt, const cosa_system *sys)
{
    /* the discretisation exponentiates the Van Loan matrix whose top block
     * row is dt [A B] (doc/method.md): its infinity norm must stay well inside
     * the double range (1e300 leaves room for the sums of the exponential's
     * scaling and squaring) */
    const double norm = cosa_system_norm_AB(sys);
    if (!(dt * norm > CLI_DT_NORM_MAX))
        return CLI_OK;
    char b[32];
    cli_error(cmd, "%s %s is too large: dt x |[A B]| = %.3g overflows the discretisation "
                   "(|[A B]| = %.3g, largest row sum; bound 1e300): at most %.3g",
              opt, cosa_number_text(b, sizeof b, dt), dt * norm, norm, CLI_DT_NORM_MAX / norm);
    return CLI_EUSAGE;
}
