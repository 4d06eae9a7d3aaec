/* cmd_simulate_osp.c -- `cosa simulate` on an OSP system structure with
 * libcosim's own algorithms (doc/osp.md): fixedStep (every simulator at
 * BaseStepSize, or --dt) or ecco (lib/td/ecco.c), as the file's Algorithm
 * says or --algorithm chooses.  Plain Jacobi with inputs held over the step
 * and the time in integer nanoseconds, as libcosim runs them; no reference
 * (the FMUs of an OSP system often declare no states).  Prints the run's
 * statistics as every run does, the first steps and where the step first
 * reached its maximum, and with -o the communication points as NAME.csv. */
#include "cli.h"
#include "csv_out.h"
#include "outfile.h"
#include "run_stats.h"
#include "sim_fmu.h"
#include "sweep_cli.h"
#include "cmd_simulate_osp.h"
#include "sim_blackbox.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The trajectory as NAME.csv in the output directory (atomically). */
static int write_csv(const char *cmd, const scli_out *out, const char *name,
                     const cosa_model *m, const double *par, const cosa_ecco_result *r)
{
    char path[1024];
    int rc = scli_out_path(cmd, out, name, path, sizeof path);
    if (rc != CLI_OK)
        return rc;
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0)
        return CLI_EFAIL;
    tw_comment(&c.w, "cosa %s simulate: OSP system structure %s", cosa_version(), m->name);
    csv_out_name(&c, "t");
    csv_out_name(&c, "h");
    csv_out_name(&c, "err");
    for (size_t k = 0; k < r->ny; k++)
        csv_out_name(&c, "%s", m->output_name ? m->output_name(m, par, k) : "y");
    if (csv_out_columns(&c) == 0)
        for (size_t n = 0; n <= r->n; n++) {
            c.rec[0] = r->t[n];
            c.rec[1] = n < r->n ? r->h[n] : NAN;
            c.rec[2] = n < r->n ? r->err[n] : NAN;
            for (size_t k = 0; k < r->ny; k++)
                c.rec[3 + k] = r->y[k + n * r->ny];
            csv_out_record(&c);
        }
    if ((rc = csv_out_close(&c, CLI_OK)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    return CLI_OK;
}

/* The algorithm's parameters: the file's ECCO configuration, or fixed
 * steps of dt as the same law with the step clamped to dt. */
static int params_of(const char *cmd, const cosa_osp_info *info, int ecco, double dt,
                     cosa_ecco_params *p)
{
    if (ecco) {
        if (!info->params) {
            cli_error(cmd, "--algorithm ecco: the OSP file has no EccoConfiguration");
            return CLI_EUSAGE;
        }
        if (info->nbond == 0) {
            cli_error(cmd, "--algorithm ecco: the OSP file has no power bonds "
                           "(VariableConnection powerBond=\"NAME\")");
            return CLI_EUSAGE;
        }
        *p = *info->params;
        return CLI_OK;
    }
    *p = (cosa_ecco_params){.h0 = dt, .hmin = dt, .hmax = dt, .safety = 1.0, .rate_min = 1.0,
                            .rate_max = 1.0, .rtol = 0.0, .atol = 1.0};
    cosa_ecco_state s;
    if (cosa_ecco_reset(p, &s) != COSA_OK) {
        cli_error(cmd, "fixedStep: the step %g s is not a positive whole number of nanoseconds",
                  dt);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

/* fixedStep: each simulator's decimation factor k = stepSize / dt into k
 * (nunits; 1 without a stepSize), *any = 1 if a stepSize was given.  A
 * stepSize that is not a whole multiple of dt is one line (exit 2); under
 * ECCO (libcosim's ecco ignores stepSize: every simulator takes ECCO's
 * step) a note. */
static int decimation(const char *cmd, const cosa_model *m, const double *par,
                      const cosa_osp_info *info, int ecco, double dt, unsigned *k, int *any)
{
    const long long dn = llround(dt * 1e9);
    *any = 0;
    for (size_t i = 0; i < info->nsub; i++) {
        const double h = info->step ? info->step[i] : 0.0;
        const long long hn = llround(h * 1e9);
        const char *name = m->sub_name ? m->sub_name(m, par, i) : "?";
        k[i] = 1;
        if (h == 0.0)
            continue;
        if (ecco) {
            fprintf(stderr, "cosa: %s: note: Simulator '%s' stepSize=%g: ECCO steps every simulator "
                    "at its own step (libcosim's ecco ignores stepSize)\n", cmd, name, h);
            continue;
        }
        if (dn <= 0 || hn < dn || hn % dn != 0 || hn / dn > 1000000000LL) {
            cli_error(cmd, "Simulator '%s' stepSize=%g: not a whole multiple of the base step "
                           "%g", name, h, dt);
            return CLI_EUSAGE;
        }
        k[i] = (unsigned)(hn / dn);
        *any = 1;
    }
    return CLI_OK;
}

/* The lines of the run. */
static void print_run(const cosa_model *m, const double *par, const cosa_model_units *mu,
                      const cosa_osp_info *info, int ecco, const cosa_ecco_params *p,
                      const unsigned *dec, double tend, cosa_unitset *set,
                      const cosa_ecco_result *r)
{
    char b1[32], b2[32];
    cosa_fmu *const *fmus = cosa_model_units_fmus(mu);
    printf("model %s\n", m->name);
    for (size_t i = 0; i < cosa_model_units_count(mu); i++)
        if (fmus[i])
            printf("fmu %s fmi %d.0\n", m->sub_name ? m->sub_name(m, par, i) : "?",
                   cosa_fmu_version(fmus[i]));
    printf("algorithm %s\n", ecco ? "ecco" : "fixedStep");
    if (ecco) {
        for (size_t b = 0; b < info->nbond; b++)
            printf("bond %s\n", info->bond_names[b]);
        printf("ecco h0 %s hmin %g hmax %g safety %g rate %g..%g kp %g ki %g rtol %g atol %g\n",
               cosa_number_text(b1, sizeof b1, p->h0), p->hmin, p->hmax, p->safety, p->rate_min,
               p->rate_max, p->kp, p->ki, p->rtol, p->atol);
    } else {
        printf("dt %s\n", cosa_number_text(b1, sizeof b1, p->h0));
        for (size_t i = 0; dec && i < cosa_model_units_count(mu); i++)
            if (dec[i] > 1) /* libcosim's decimation */
                printf("decimation %s %u\n", m->sub_name ? m->sub_name(m, par, i) : "?", dec[i]);
    }
    printf("tend %s\ntime integer_ns\n", cosa_number_text(b2, sizeof b2, tend));
    run_stats_view v;
    run_stats_view_of(&v, &r->run, set);
    /* terminated: an FMU asked to end the simulation there (exit 0) */
    v.status = r->failed ? "failed" : r->terminated ? "terminated" : "ok";
    v.t = r->failed || r->terminated ? r->run.t_end : NAN;
    v.reason = r->failed || r->terminated ? r->reason : NULL;
    run_stats_print(stdout, &v, RUN_STATS_STATUS | RUN_STATS_STEPS);
    printf("first_steps_ns"); /* the steps as libcosim keeps them */
    for (size_t k = 0; k < r->n && k < 8; k++)
        printf(" %lld", (long long)llround(r->t[k + 1] * 1e9) - (long long)llround(r->t[k] * 1e9));
    printf("\nh_mean %.17g\n", r->run.h_mean);
    if (ecco)
        printf("t_hmax %.17g\n", r->t_hmax);
    printf("t_end %.17g\n", r->n ? r->t[r->n] : 0.0);
    run_stats_print(stdout, &v, RUN_STATS_REJECTED | RUN_STATS_H_MIN | RUN_STATS_H_MAX |
                                    RUN_STATS_NEW);
}

/* The units' initial state: the model's x0 where the layouts agree; a black
 * box (an FMU that declares no states, identified with states: its
 * subsystem's states are not the unit's) runs without states
 * (sim_blackbox_x0). */
static int osp_x0(const char *cmd, cli_case *cs, const cosa_unitset *set, double **x0)
{
    const cosa_model *m = cs->mod.model;
    /* only an identified model with states makes the layouts differ (a failed
     * identification leaves the FMU's declared reading, without states) */
    int differ = 0;
    for (size_t i = 0; i < cosa_unitset_count(set); i++) {
        cosa_model_file_ident info;
        differ |= cosa_model_file_identified(m, i, &info) && info.order > 0;
    }
    if (!differ) {
        *x0 = calloc(cosa_unitset_nx(set) + 1, sizeof **x0);
        cosa_status st = *x0 ? m->initial_state(m, cs->mod.par, *x0) : COSA_ENOMEM;
        if (st != COSA_OK)
            cli_error(cmd, "the initial state: %s", cosa_strerror(st));
        return st == COSA_OK ? CLI_OK : CLI_EFAIL;
    }
    cosa_system *sys = NULL;
    int rc = cli_model_system(&cs->mod, cmd, &sys);
    if (rc == CLI_OK)
        rc = cli_model_x0(&cs->mod, cmd, cosa_system_nx(sys), x0);
    if (rc == CLI_OK)
        rc = sim_blackbox_x0(cmd, sys, set, x0, NULL);
    cosa_system_free(sys);
    return rc;
}

/* The run itself (k: the decimation factors, or NULL: cosa_ecco_run). */
static int osp_run(const char *cmd, cli_case *cs, const cosa_osp_info *info, int ecco,
                   const cosa_ecco_params *p, const unsigned *k, double tend,
                   const char *output, const char *name, int fmu_log)
{
    const cosa_model *m = cs->mod.model;
    const double *par = cs->mod.par;
    int rc;
    if (isnan(tend))
        tend = m->tend;
    scli_out out = {.dir = output ? output : ".", .explicit_dir = output != NULL};
    char csv[300];
    snprintf(csv, sizeof csv, "%s.csv", name ? name : ecco ? "osp_ecco" : "osp_fixedstep");
    if (output && ((rc = scli_out_prepare(cmd, &out)) != CLI_OK ||
                   (rc = scli_out_path(cmd, &out, csv, (char[1024]){0}, 1024)) != CLI_OK))
        return rc;
    const cosa_integrator integ = {.kind = COSA_INTEGRATOR_EXACT}; /* (FMUs integrate) */
    const cosa_model_units_opts uo = {.integ = &integ, .log = fmu_log ? sim_fmu_log : NULL,
                                      .log_user = (void *)cmd};
    cosa_model_units *mu = NULL;
    cosa_model_units_error ue = {0};
    cosa_status st = cosa_model_units_create(m, par, &uo, &mu, &ue);
    if (st != COSA_OK) {
        cli_error(cmd, "%s", ue.msg[0] ? ue.msg : cosa_strerror(st));
        cosa_model_units_free(mu);
        return st == COSA_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
    }
    cosa_unitset *set = cosa_model_units_set(mu);
    double *x0 = NULL;
    if ((rc = osp_x0(cmd, cs, set, &x0)) != CLI_OK) {
        cosa_model_units_free(mu);
        return rc;
    }
    cosa_ecco_result *r = NULL;
    if (k && cosa_unitset_count(set) != info->nsub)
        st = COSA_EINVAL; /* (a unit per simulator) */
    else if (k)
        st = cosa_osp_fixed_run(set, x0, p->h0, k, tend, &r);
    else
        st = cosa_ecco_run(set, x0, p, ecco ? info->bonds : NULL, ecco ? info->nbond : 0, tend,
                           &r);
    free(x0);
    if (st != COSA_OK) {
        cli_error(cmd, "%s run: %s", ecco ? "ECCO" : "fixedStep", cosa_strerror(st));
        cosa_model_units_free(mu);
        return CLI_EFAIL;
    }
    print_run(m, par, mu, info, ecco, p, k, tend, set, r);
    sim_fmu_warnings(cmd, cosa_model_units_units(mu), cosa_model_units_fmus(mu),
                     cosa_model_units_count(mu));
    rc = output ? write_csv(cmd, &out, csv, m, par, r) : CLI_OK; /* a failed unit: a result */
    cosa_ecco_result_free(r);
    cosa_model_units_free(mu);
    return rc;
}

int cmd_simulate_osp(const char *cmd, cli_case *cs, const char *algorithm, double tend,
                     const char *output, const char *name, int fmu_log)
{
    cs->mod.ident_optional = 1; /* a black box runs without its identified model */
    int rc = cli_model_resolve(&cs->mod, cmd);
    if (rc != CLI_OK)
        return rc;
    const cosa_model *m = cs->mod.model;
    const double *par = cs->mod.par;
    const cosa_osp_info *info = cosa_model_file_osp(m);
    if (!info) {
        cli_error(cmd, "--algorithm: libcosim's algorithms run OSP system structures "
                       "(--model-file *.xml)");
        return CLI_EUSAGE;
    }
    if (name && (rc = cli_file_stem(cmd, "--name", name)) != CLI_OK)
        return rc;
    const int ecco = algorithm ? strcmp(algorithm, "ecco") == 0 : info->ecco;
    double dt = info->base_step;
    if (cs->dt_text && (rc = cli_case_dt(cmd, cs->dt_text, &dt)) != CLI_OK)
        return rc;
    if (ecco && cs->dt_text) {
        cli_error(cmd, "--dt: ECCO chooses its steps (EccoConfiguration StepSize is the first)");
        return CLI_EUSAGE;
    }
    if (cs->scheme_text && strcasecmp(cs->scheme_text, "zoh") != 0) {
        cli_error(cmd, "--scheme %s: libcosim's algorithms couple by plain Jacobi with held "
                       "inputs (zoh)", cs->scheme_text);
        return CLI_EUSAGE;
    }
    cosa_ecco_params p;
    if ((rc = params_of(cmd, info, ecco, dt, &p)) != CLI_OK)
        return rc;
    unsigned *k = calloc(info->nsub + 1, sizeof *k);
    int decim = 0;
    if (!k) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    if ((rc = decimation(cmd, m, par, info, ecco, dt, k, &decim)) != CLI_OK) {
        free(k);
        return rc;
    }
    rc = osp_run(cmd, cs, info, ecco, &p, decim ? k : NULL, tend, output, name, fmu_log);
    free(k);
    return rc;
}
