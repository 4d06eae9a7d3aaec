/* cmd_simulate_vo.c -- `cosa simulate --coupling explicit|implicit ...`: one
 * run of the variable-order engine (issue 11) through cosa_run on a model with
 * its coupling variables, against its monolithic reference; `name value`
 * lines, and with -o a per-step CSV and a gnuplot script (plots/varorder.gp:
 * H, k and the state error against t). */
#include "config.h"
#include "sweep_cli.h"
#include "csv_out.h"
#include "outfile.h"
#include "run_stats.h"
#include "sim_init.h"
#include "varorder_cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char cosa_plot_varorder[]; /* plots/varorder.gp */

static const char *const cmd = "simulate";

const char cmd_simulate_vo_usage[] =
    "Usage: cosa simulate --coupling explicit|implicit --model M [--set NAME=VALUE]...\n"
    "                     --scheme zoh|foh|soh|pK --dt H [--estimator E]\n"
    "                     [--control none|step|order] [options] [-o DIR] [--plot png]\n\n"
    "The variable-order co-simulation engine (variable-order paper, sect. 3-5): the\n"
    "coupling variables u (coupling forces of models with a force/force split such as\n"
    "twomass-ff and chain-ff; the inputs u = L y otherwise) are approximated by Lagrange\n"
    "polynomials of degree k through the last macro points; explicit coupling\n"
    "extrapolates and updates u at every macro point, implicit coupling iterates a\n"
    "predictor/corrector (Newton on u - phi(y) = 0).  --control step lets the\n"
    "estimator's error choose the macro step, --control order also the degree.  The\n"
    "run starts at t_s = (K+1) H on the monolithic reference (K = k, or kmax with\n"
    "--control order) and covers --tend (the model's horizon) after t_s.  --scheme\n"
    "zoh|foh|soh|pK is the (initial) polynomial degree k of u.  -o DIR writes NAME.csv\n"
    "(one row per attempted step: t, H, k, accepted, err_pos, err_vel, err_u, iters,\n"
    "err_state, the states and the reference at accepted points) and NAME.gp (H, k\n"
    "and the state error against t); --name NAME is the file stem (default\n"
    "MODEL_COUPLING_SCHEME), --plot also renders NAME.gp (gnuplot).\n"
    "FMU subsystems (linear FMUs only): an FMU's recommendedIntermediateInputSmoothness\n"
    "K >= 1 caps every input degree it gets at K -- the scheme's k, k+1 with exlocal,\n"
    "--kmax with --control order (the default kmax is capped, with a note); above it\n"
    "one line, exit 2.  FMUs whose feedthrough closes an algebraic loop are iterated\n"
    "in Initialization Mode at t = 0 first (init_iterations N, init_output SUB.NAME\n"
    "VALUE after 'integrator'; a loop without a fixed point: one line, exit 2).\n"
    "Black boxes (FMUs that declare no states) run where they can roll back: from\n"
    "t = 0 (--start initial: K+1 start-up steps of degree min(j, k), then t_s), the\n"
    "fine co-simulation as reference (--ref; errors over the declared states), the\n"
    "estimators exslocal and imslocal (the others compare states).\n\n";

const char cmd_simulate_vo_prints[] =
    "\nPrints 'name value' lines (after 'integrator': 'reference fine co-simulation S\n"
    "dt/K' or 'reference none' when not the monolithic one, 'start initial' when\n"
    "so): status (ok | hmin | diverged | max-steps), steps\n"
    "(accepted), rejected, corrector_iters, t_start, t_end, H_mean, H_min, H_max,\n"
    "k_hist (accepted steps per degree, K:N,...), k_changes, e36_coupling and e36_all\n"
    "(eq 36 over the accepted macro points after t_s: the coupling bodies' states /\n"
    "all states), e_end (max over the states of |z - z_ref| at the end divided by the\n"
    "state's largest |z_ref| over the macro points), cores (units + FD perturbations\n"
    "+ master: the cores a fully parallel run uses per macro step), seconds_cosim and\n"
    "seconds_reference (wall clock of the co-simulation and of the monolithic\n"
    "reference).  Long chains (more than 20000 states) keep only the coupling bodies'\n"
    "states: e36_all is nan.  A run that stops (H <= hmin, divergence) is a result:\n"
    "exit 0.  Divergence: a failed step, or a state beyond 1e6 x the largest\n"
    "reference magnitude over the horizon (status diverged at the first such point,\n"
    "the figures cut there, the errors inf).  Bad input: one line on stderr, exit 2.\n"
    "Last the common statistics: h_min, h_max (= H_min, H_max), rollbacks (rejected\n"
    "attempts retried, plus the implicit corrector's integrations), corrector_iterations\n"
    "and per unit 'unit NAME steps S restores R events E early_returns K'.\n";

/* the names of cosa_vo_control, in its order (the "control" line) */
static const char *control_name(const cosa_vo_opts *vo)
{
    static const char *const names[] = {"none", "step", "order"};
    return (size_t)vo->control < sizeof names / sizeof names[0] ? names[vo->control] : "?";
}

static void col(csv_out *c, const char *prefix, const char *name, size_t k)
{
    if (name)
        csv_out_name(c, "%s%s", prefix, name);
    else
        csv_out_name(c, "%sx%zu", prefix, k + 1);
}

/* the scaled state error of accepted point n: max_i |x - xref| / max_j |xref_i|
 * (nan when no state has a reference scale: --ref none, black boxes alone) */
static double state_error(const cosa_vo_result *r, const double *scale, size_t n)
{
    double e = 0.0;
    int any = 0;
    for (size_t i = 0; i < r->nx; i++)
        if (scale[i] > 0.0) {
            e = fmax(e, fabs(r->x[i + n * r->nx] - r->xref[i + n * r->nx]) / scale[i]);
            any = 1;
        }
    return any ? e : NAN;
}

/* The states at accepted point n, then the reference's (2 nx values at v);
 * nan for an attempt that was rejected (n SIZE_MAX). */
static void states_at(const cosa_vo_result *r, size_t n, double *v)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->nx; i++)
            *v++ = n == (size_t)-1 ? NAN : (pass ? r->xref : r->x)[i + n * r->nx];
}

static int write_csv(const char *path, const struct vo_cli *v, const cosa_vo_result *r)
{
    double *scale = calloc(r->nx + 1, sizeof *scale);
    if (!scale) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    csv_out c;
    if (csv_out_open(&c, cmd, path) != 0) {
        free(scale);
        return CLI_EFAIL;
    }
    for (size_t i = 0; i < r->nx; i++)
        for (size_t n = 0; n <= r->steps; n++)
            scale[i] = fmax(scale[i], fabs(r->xref[i + n * r->nx]));
    static const char *const head[] = {"t",      "H",     "k",     "accepted", "err_pos",
                                       "err_vel", "err_u", "iters", "err_state"};
    for (size_t k = 0; k < 9; k++)
        csv_out_name(&c, "%s", head[k]);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->nx; i++)
            col(&c, pass ? "ref." : "", v->m->state_name ? v->m->state_name(v->m, v->par, i) : NULL,
                i);
    if (csv_out_columns(&c) != 0) {
        free(scale);
        return csv_out_close(&c, CLI_OK);
    }
    /* the start point, then every attempt */
    double *x = c.rec;
    x[0] = r->t[0], x[1] = x[2] = NAN, x[3] = 1, x[4] = x[5] = x[6] = NAN, x[7] = 0;
    x[8] = state_error(r, scale, 0);
    states_at(r, 0, x + 9);
    csv_out_record(&c);
    size_t n = 0;
    for (size_t a = 0; a < r->nattempts; a++) {
        x[0] = r->at[a], x[1] = r->aH[a], x[2] = r->ak[a], x[3] = r->aacc[a];
        x[4] = r->aerr_pos[a], x[5] = r->aerr_vel[a], x[6] = r->aerr_u[a], x[7] = r->aiters[a];
        const int point = r->aacc[a] && n < r->steps;
        n += point;
        x[8] = point ? state_error(r, scale, n) : NAN;
        states_at(r, point ? n : (size_t)-1, x + 9);
        csv_out_record(&c);
    }
    free(scale);
    return csv_out_close(&c, CLI_OK);
}

/* The output files' names (MODEL_COUPLING_SCHEME or --name), checked
 * before anything runs. */
struct vo_files {
    scli_out out;
    char base[256], csv[300], gp[300];
};

static int vo_files_prepare(const struct vo_cli_opts *o, const struct vo_cli *v,
                            const char *sname, struct vo_files *f)
{
    char slug[64], path[1024];
    scli_slug(sname, slug, sizeof slug);
    f->out.dir = o->output;
    if (!o->output && !o->plot)
        return CLI_OK;
    if (o->name)
        snprintf(f->base, sizeof f->base, "%s", o->name);
    else
        snprintf(f->base, sizeof f->base, "%s_%s_%s", v->m->name, o->coupling, slug);
    snprintf(f->csv, sizeof f->csv, "%s.csv", f->base);
    snprintf(f->gp, sizeof f->gp, "%s.gp", f->base);
    int rc;
    if ((rc = scli_out_prepare(cmd, &f->out)) != CLI_OK ||
        (rc = scli_out_path(cmd, &f->out, f->csv, path, sizeof path)) != CLI_OK ||
        (rc = scli_out_path(cmd, &f->out, f->gp, path, sizeof path)) != CLI_OK)
        return rc;
    return CLI_OK;
}

/* The run description of the command's engine options: the degree is the
 * scheme's, --control order / step the controller of that name. */
static void run_description(const cosa_vo_opts *vo, cosa_run_opts *ro)
{
    ro->kind = COSA_RUN_VO;
    cosa_scheme_parse("zoh", &ro->scheme);
    ro->scheme.order = vo->k;
    ro->H = vo->H;
    ro->tend = vo->tend;
    ro->controller = vo->control == COSA_VO_CONTROL_NONE ? NULL
                     : vo->controller                   ? vo->controller
                     : cosa_controller_lookup(vo->control == COSA_VO_CONTROL_ORDER ? "order"
                                                                                   : "step");
    ro->tol = vo->rtol;
    ro->safety = vo->sf;
    ro->rmin = vo->rmin;
    ro->rmax = vo->rmax;
    ro->hmin = vo->hmin;
    ro->max_attempts = vo->max_attempts;
    ro->estimator = vo->estimator;
    ro->start_initial = vo->start_initial;
    ro->observers = vo->observers;
    ro->nobservers = vo->nobservers;
    ro->vo = (cosa_run_vo_opts){.coupling = vo->coupling, .kmax = vo->kmax,
                                .atol_x = vo->atol_x, .atol_v = vo->atol_v,
                                .atol_u = vo->atol_u, .rtol_u = vo->rtol_u,
                                .ctl_coupling = vo->ctl_coupling, .jacobian = vo->jacobian,
                                .corr_tol = vo->corr_tol, .corr_max = vo->corr_max,
                                .is_vel = vo->is_vel, .store_max = vo->store_max};
}

/* One line for a run that returned an error (cosa_run: no result then); the
 * exit code. */
static int vo_run_error(const struct vo_cli *v, cosa_status st)
{
    /* an error of a unit (a broken FMU, README "Failures"): its own line */
    const char *why = "";
    for (size_t i = 0; i < cosa_unitset_count(v->set) && !why[0]; i++)
        why = cosa_unit_message(cosa_unitset_unit(v->set, i));
    if (why[0])
        cli_error(cmd, "co-simulation failed: %s", why);
    else
        cli_error(cmd, "the run failed: %s", cosa_strerror(st));
    return st == COSA_ERANGE || st == COSA_EUNSUPPORTED ? CLI_EUSAGE : CLI_EFAIL;
}

/* The errors of the outputs at the accepted points against the fine
 * reference (a black box's are measured there; nan without one): eq 36 over
 * the outputs (each against its mean over the points 1..N) and the largest
 * |y - y_ref| at the end over the output's largest |y_ref|. */
static void output_errors(const struct vo_cli *v, const cosa_vo_result *r, double *e36,
                          double *eend)
{
    *e36 = *eend = NAN;
    const size_t ny = r->ny, N = r->steps;
    if (v->refmode != VO_REF_FINE || !ny || !N || !r->y || !isfinite(r->e_end))
        return;
    double e2 = 0.0, em = 0.0;
    int used = 0, scaled = 0;
    for (size_t i = 0; i < ny; i++) {
        double mean = 0.0, scale = 0.0, num = 0.0, den = 0.0;
        for (size_t j = 1; j <= N; j++)
            mean += vo_cli_fine_at(v->fine, 1, i, r->t[j]) / (double)N;
        for (size_t j = 0; j <= N; j++) {
            const double yr = vo_cli_fine_at(v->fine, 1, i, r->t[j]);
            const double d = r->y[i + j * ny] - yr;
            scale = fmax(scale, fabs(yr));
            if (j > 0) {
                num += d * d;
                den += (yr - mean) * (yr - mean);
            }
        }
        if (den > 0.0) {
            e2 += num / den;
            used = 1;
        }
        if (scale > 0.0) {
            const double d = r->y[i + N * ny] - vo_cli_fine_at(v->fine, 1, i, r->t[N]);
            em = fmax(em, fabs(d) / scale);
            scaled = 1;
        }
    }
    *e36 = used ? sqrt(e2) : NAN;
    *eend = scaled ? em : NAN;
}

/* The 'name value' lines of a run. */
static void vo_print(const struct vo_cli_opts *o, const struct vo_cli *v, const char *sname,
                     const cosa_vo_result *r, double wall, const sim_init *init)
{
    printf("model %s\ncoupling %s\nscheme %s\nestimator %s\ncontrol %s\nintegrator %s\n",
           v->m->name, o->coupling, sname,
           v->vo.estimator ? cosa_vo_estimator_name(v->vo.estimator) : "none",
           control_name(&v->vo), v->iname);
    /* the defaults (the monolithic reference, the start on it) print nothing */
    if (v->refdesc[0])
        printf("reference %s\n", v->refdesc);
    if (v->vo.start_initial)
        printf("start initial\n");
    sim_init_print(v->m, v->par, v->set, init);
    /* the statistics every time-domain run prints (issue 23, run_stats.h);
     * h_min and h_max are H_min and H_max again under the common names */
    run_stats_view sv;
    run_stats_view_of(&sv, &r->run, v->set);
    sv.status = cosa_vo_status_name(r->status);
    /* a unit that stopped the run (an FMU's Discard) is "failed" at the end
     * of the step it refused, as in the fixed-step runs (README "Failures"):
     * nothing diverged */
    if (r->status == COSA_VO_DIVERGED && r->run.end == COSA_RUN_FAILED &&
        r->run.fail_unit != (size_t)-1) {
        sv.status = "failed";
        sv.t = r->run.t_fail;
    }
    sv.reason = r->status == COSA_VO_OK ? NULL : r->reason;
    sv.steps = r->steps;
    sv.rejected = r->rejected;
    sv.h_min = r->H_min;
    sv.h_max = r->H_max;
    run_stats_print(stdout, &sv, RUN_STATS_STATUS | RUN_STATS_STEPS | RUN_STATS_REJECTED);
    printf("corrector_iters %zu\n", r->corrector_iters);
    printf("t_start %.17g\nt_end %.17g\nH_mean %.17g\nH_min %.17g\nH_max %.17g\n", r->t_start,
           r->t_end, r->H_mean, r->H_min, r->H_max);
    printf("k_hist ");
    for (int k = 0, first = 1; k <= COSA_VO_KMAX; k++)
        if (r->k_hist[k]) {
            printf("%s%d:%zu", first ? "" : ",", k, r->k_hist[k]);
            first = 0;
        }
    printf("%s\nk_changes %zu\n", r->steps ? "" : "none", r->k_changes);
    printf("e36_coupling %.17g\ne36_all %.17g\ne_end %.17g\n", r->e36_coupling, r->e36_all,
           r->e_end);
    if (v->refmode != VO_REF_MONOLITHIC) { /* the outputs: a black box has no states */
        double e36o, eendo;
        output_errors(v, r, &e36o, &eendo);
        printf("e36_outputs %.17g\ne_end_outputs %.17g\n", e36o, eendo);
    }
    /* the cores a fully parallel run would use per macro step (sect. 6.4):
     * every unit, the FD perturbations (one per unit input), the master */
    size_t cores = v->nsub + 1;
    if (v->vo.coupling == COSA_VO_IMPLICIT && v->vo.jacobian == COSA_VO_JAC_FD)
        for (size_t i = 0; i < v->nsub; i++)
            cores += cosa_unit_nu(v->units[i]);
    printf("cores %zu\nseconds_cosim %.6g\nseconds_reference %.6g\n", cores,
           wall - (v->ref_seconds - v->fine_seconds), v->ref_seconds);
    run_stats_print(stdout, &sv, RUN_STATS_H_MIN | RUN_STATS_H_MAX | RUN_STATS_NEW);
    fflush(stdout);
}

/* NAME.csv, NAME.gp (plots/varorder.gp) and the rendered plot. */
static int vo_write_files(const cli_case *cs, const struct vo_cli_opts *o,
                          const struct vo_cli *v, const char *sname, const cosa_vo_result *r,
                          struct vo_files *f)
{
    char path[1024];
    int rc;
    scli_remove_pictures(&f->out, f->base); /* -o DIR: an earlier run's, before the data */
    if ((rc = scli_out_path(cmd, &f->out, f->csv, path, sizeof path)) != CLI_OK ||
        (rc = write_csv(path, v, r)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    char title[512], comment[1024], sets[384];
    scli_title_sets(&cs->mod, NULL, 0, sets, sizeof sets);
    snprintf(title, sizeof title, "%s, %s %s, %s, control %s%s", v->m->name, o->coupling, sname,
             v->vo.estimator ? cosa_vo_estimator_name(v->vo.estimator) : "no estimator",
             control_name(&v->vo), sets);
    snprintf(comment, sizeof comment, "# cosa %s simulate --coupling: model %s\n# data: %s",
             cosa_version(), v->m->name, f->csv);
    const char *tt = v->vo.estimator ? cosa_vo_estimator_name(v->vo.estimator) : o->coupling;
    const char *keys[] = {"COMMENT", "SCRIPT", "OUTBASE", "FILES", "TITLES", "TITLE"};
    const char *vals[] = {comment, f->gp, f->base, f->csv, tt, title};
    if ((rc = scli_out_path(cmd, &f->out, f->gp, path, sizeof path)) != CLI_OK ||
        (rc = scli_write_script(cmd, path, cosa_plot_varorder, 6, keys, vals)) != CLI_OK)
        return rc;
    printf("file %s\n", path);
    fflush(stdout);
    if (o->plot) {
        if ((rc = scli_gnuplot(cmd, f->out.dir, f->gp, o->plot)) != CLI_OK)
            return rc;
        printf("file %s/%s.%s\n", f->out.dir, f->base, o->plot);
    }
    return CLI_OK;
}

int cmd_simulate_vo(cli_case *cs, struct vo_cli_opts *o)
{
    struct vo_cli v = {0};
    cosa_run_result *run = NULL;
    sim_init init = {0};
    int rc;
    if (o->name && (rc = cli_file_stem(cmd, "--name", o->name)) != CLI_OK)
        goto out;
    if (o->plot && (rc = scli_plot_format(cmd, o->plot)) != CLI_OK)
        goto out;
    /* --dt H is the macro step (--control none) or the first one: no default */
    if (!cs->dt_text) {
        cli_error(cmd, "--dt is required (see 'cosa %s --help')", cmd);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = vo_cli_setup(cmd, cs, o, cs->dt_text, &v)) != CLI_OK)
        goto out;
    if (v.vo.control == COSA_VO_CONTROL_NONE &&
        (rc = sim_steps_check(cmd, cs, v.vo.tend / v.vo.H)) != CLI_OK)
        goto out;
    /* FMUs in an algebraic loop: iterated in Initialization Mode at t = 0
     * first, as the fixed-step run does (README "FMU import") */
    if (cosa_model_units_nfmu(v.mu) &&
        (rc = sim_init_run(cmd, v.m, v.par, v.set, v.x0, &init)) != CLI_OK)
        goto out;
    /* and again where the engine instantiates them, at t_s (as the fixed-step run) */
    const cosa_observer init_obs = {sim_init_observe, NULL, &init};
    if (init.res.loop) {
        v.vo.observers = &init_obs;
        v.vo.nobservers = 1;
    }
    char sname[64];
    cosa_scheme_name(&v.scheme, sname, sizeof sname);
    struct vo_files f;
    memset(&f, 0, sizeof f);
    if ((rc = vo_files_prepare(o, &v, sname, &f)) != CLI_OK)
        goto out;
    if ((rc = vo_cli_fine(cmd, &v)) != CLI_OK)
        goto out;
    /* the one entry point (issue 23): the run description validated once,
     * by the library */
    cosa_run_opts ro;
    cosa_run_opts_default(&ro);
    run_description(&v.vo, &ro);
    const cosa_run_ref ref = {.fn = vo_cli_ref, .ctx = &v};
    const double wall0 = vo_cli_now();
    cosa_status st = cosa_run(v.set, &ro, &ref, &run);
    const double wall = vo_cli_now() - wall0;
    if (st != COSA_OK) {
        rc = vo_run_error(&v, st);
        goto out;
    }
    const cosa_vo_result *r = run->vo; /* the engine's figures (owned by run) */
    if (r->status == COSA_VO_NOREF && v.vo.start_initial) {
        cli_error(cmd, "the start from t = 0 failed: %s", r->reason);
        rc = CLI_EFAIL;
        goto out;
    }
    if (r->status == COSA_VO_NOREF) {
        cli_error(cmd, "model '%s': the monolithic reference failed: %s (try --ref-rtol, or "
                       "check the model's parameters)", v.m->name, r->reason);
        rc = CLI_EFAIL;
        goto out;
    }
    vo_cli_notes(cmd, o, &v);
    vo_print(o, &v, sname, r, wall, &init);
    rc = o->output || o->plot ? vo_write_files(cs, o, &v, sname, r, &f) : CLI_OK;
out:
    cosa_run_result_free(run);
    sim_init_free(&init);
    vo_cli_free(&v);
    return rc;
}
