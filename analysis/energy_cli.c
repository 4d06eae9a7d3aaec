/* energy_cli.c -- the energy paper on the command line: --rate, the
 * energy's quadratic form, and `cosa point --energy` (Phi route). */
#include "energy_cli.h"
#include "table_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ecli_rates(const char *cmd, const char *const *text, size_t n, const cosa_model *m,
               const double *par, size_t nsub, unsigned *rate)
{
    for (size_t i = 0; i < nsub; i++)
        rate[i] = 1;
    for (size_t k = 0; k < n; k++) {
        const char *eq = strchr(text[k], '=');
        size_t idx = (size_t)-1, v;
        if (!eq) {
            cli_error(cmd, "--rate expects NAME=K, got '%s'", text[k]);
            return CLI_EUSAGE;
        }
        const size_t len = (size_t)(eq - text[k]);
        for (size_t i = 0; i < nsub && m->sub_name; i++) {
            const char *nm = m->sub_name(m, par, i);
            if (nm && strlen(nm) == len && strncmp(nm, text[k], len) == 0)
                idx = i;
        }
        char num[32];
        if (idx == (size_t)-1 && len < sizeof num) {
            memcpy(num, text[k], len);
            num[len] = 0;
            if (cli_parse_size(num, &v) == 0 && v >= 1 && v <= nsub)
                idx = v - 1;
        }
        if (idx == (size_t)-1) {
            cli_error(cmd, "--rate: '%.*s' is not a subsystem name or index 1..%zu", (int)len,
                      text[k], nsub);
            return CLI_EUSAGE;
        }
        if (cli_parse_size(eq + 1, &v) != 0 || v < 1 || v > 1000000) {
            cli_error(cmd, "--rate %s: K must be an integer 1..1000000 (unit steps per macro "
                           "step)", text[k]);
            return CLI_EUSAGE;
        }
        rate[idx] = (unsigned)v;
    }
    return CLI_OK;
}

const char *const ecli_start_names[] = {"reference", "initial", NULL};
const char *const ecli_integrator_names[] = {
    [COSA_MR_EXACT] = "exact", [COSA_MR_SYMPLECTIC_EULER] = "symplectic-euler",
    [COSA_MR_EULER] = "euler", [COSA_MR_EULER + 1] = NULL};

int ecli_point_energy(const char *cmd, const cli_case *cs, const cosa_scheme *s,
                      const cosa_system *sys, const double *x0, double dt, double tend,
                      const ecli_point *o, tw *w)
{
    const cosa_model *m = cs->mod.model;
    const double *par = cs->mod.par;
    const size_t nsub = cosa_system_nsub(sys), nx = cosa_system_nx(sys),
                 ny = cosa_system_ny(sys), nu = cosa_system_nu(sys);
    if (!m->energy || !m->energy_port) {
        cli_error(cmd, "--energy: model '%s' declares no mechanical energy and power port "
                       "(models with them: twomass-fd, multi-fd)", m->name);
        return CLI_EUSAGE;
    }
    cosa_combination_refusal why;
    if (cosa_combination_check(s, COSA_COMB_ENERGY_PHI, 1, &why) != COSA_OK) {
        char sname[64];
        cosa_scheme_name(s, sname, sizeof sname);
        cli_error(cmd, "--energy: the energy paper's coupling is %s, got %s", why.needs, sname);
        return CLI_EUSAGE;
    }
    cosa_mr_scheme ms = {.p = s->order, .integrator = COSA_MR_EXACT};
    if (o->integrator >= 0)
        ms.integrator = (cosa_mr_integrator)o->integrator;
    ms.start_initial = o->start == 1;
    int rc = CLI_EFAIL;
    unsigned *rate = calloc(nsub + 1, sizeof *rate);
    double *W = calloc(nx * nx + 1, sizeof *W), omega[64], mu[64];
    size_t *idx = calloc(2 * ny + nu + 2, sizeof *idx);
    unsigned char *kicks = calloc(nx + 1, 1);
    if (!rate || !W || !idx || !kicks) {
        cli_error(cmd, "out of memory");
        goto done;
    }
    if ((rc = ecli_rates(cmd, o->rate, o->nrate, m, par, nsub, rate)) != CLI_OK)
        goto done;
    rc = CLI_EFAIL;
    ms.rate = rate;
    cosa_energy_port port;
    cosa_status st = m->energy_port(m, par, &port, idx, 2 * ny + nu + 2);
    if (st == COSA_OK)
        st = cosa_model_energy_form(m, par, nx, W);
    if (st == COSA_OK && ms.integrator == COSA_MR_SYMPLECTIC_EULER) {
        /* the kicked states: as the time-domain units take them */
        if (cosa_system_kick_flags(sys, kicks) == 0) {
            cli_error(cmd, "--integrator symplectic-euler: model '%s' has no position/velocity "
                           "split of its states", m->name);
            rc = CLI_EUSAGE;
            goto done;
        }
        ms.kick = kicks;
    }
    const double nst = nearbyint(tend / dt);
    cosa_mr_energy e;
    if (st == COSA_OK)
        st = cosa_mr_energy_eval(sys, &ms, dt, (size_t)nst, x0, W, &port, 0, &e);
    size_t nm = sizeof omega / sizeof omega[0];
    if (st == COSA_OK)
        st = cosa_mr_energy_modes(sys, &ms, dt, W, &port, &nm, omega, mu);
    if (st != COSA_OK) {
        cli_error(cmd, "--energy: %s", cosa_strerror(st));
        goto done;
    }
    char name[64], b1[32], b2[32];
    cosa_scheme_name(s, name, sizeof name);
    tw_field(w, "model", "%s", m->name);
    tw_field(w, "scheme", "%s", name);
    tw_field(w, "dt", "%s", cosa_number_text(b1, sizeof b1, dt));
    tw_field(w, "tend", "%s", cosa_number_text(b2, sizeof b2, tend));
    tw_field(w, "nsteps", "%.0f", nst);
    if (o->nrate) { /* 'rate SUB=K ...', every subsystem */
        char *rates = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&rates, &len);
        for (size_t i = 0; mem && i < nsub; i++)
            fprintf(mem, "%s%s=%u", i ? " " : "", m->sub_name ? m->sub_name(m, par, i) : "?",
                    rate[i]);
        if (!mem || fclose(mem) != 0) {
            free(rates);
            cli_error(cmd, "out of memory");
            goto done;
        }
        tw_field(w, "rate", "%s", rates);
        free(rates);
    }
    tw_field(w, "integrator", "%s", ecli_integrator_names[ms.integrator]);
    tw_field(w, "start", "%s", ecli_start_names[ms.start_initial]);
    const char *fn[] = {"rho", "E0", "E_end", "E_ref_end", "E_ratio", "dE_end", "varsigma_end",
                        "mu_measured"};
    const double fv[] = {e.rho, e.E0, e.E_end, e.E_ref_end, e.E_end / e.E_ref_end, e.dE_end,
                         e.varsigma_end, e.mu_measured};
    for (size_t k = 0; k < sizeof fv / sizeof fv[0]; k++)
        tw_field(w, fn[k], "%.17g", fv[k]);
    for (size_t k = 0; k < nm && k < sizeof omega / sizeof omega[0]; k++)
        tw_field(w, "mu_mode", "%.17g %.17g", omega[k], mu[k]);
    rc = CLI_OK;
done:
    free(rate);
    free(W);
    free(idx);
    free(kicks);
    return rc;
}

double ecli_mu_eq(double mu_sr, double R, int p)
{
    if (R > 1.0 && p == 0)
        return mu_sr * (1.5 - 0.5 / R);
    if (R > 0.0 && R < 1.0 && p > 0)
        return mu_sr * R;
    return mu_sr;
}

/* A row of the mu table: CSV with %.17g (and the fastest mode's omega),
 * markdown with the digits of the paper's figures. */
static void mu_row(tw *w, int csv, const char *R, const char *scheme, double eq, double m1,
                   double m10, double mode, double omega)
{
    char b[5][32];
    if (csv) {
        const double v[5] = {eq, m1, m10, mode, omega};
        for (int k = 0; k < 5; k++)
            snprintf(b[k], sizeof b[k], "%.17g", v[k]);
        const char *const cells[7] = {R, scheme, b[0], b[1], b[2], b[3], b[4]};
        tw_row_words(w, cells, 7);
        return;
    }
    snprintf(b[0], sizeof b[0], "%.4g", eq);
    snprintf(b[1], sizeof b[1], "%.4f", m1);
    snprintf(b[2], sizeof b[2], "%.4f", m10);
    snprintf(b[3], sizeof b[3], "%.4f", mode);
    const char *const cells[6] = {R, scheme, b[0], b[1], b[2], b[3]};
    tw_row_words(w, cells, 6);
}

int ecli_table_mu(const char *cmd, cli_case *cs, double dt, tw *w, int csv)
{
    int rc = cli_model_resolve(&cs->mod, cmd);
    if (rc != CLI_OK)
        return rc;
    const cosa_model *m = cs->mod.model;
    const double *par = cs->mod.par;
    cosa_system *sys = NULL;
    double x0[4], W[16];
    size_t idx[8];
    unsigned char kick[4];
    cosa_energy_port port;
    cosa_status st = m->create(m, par, &sys);
    if (st == COSA_OK)
        st = m->initial_state(m, par, x0);
    if (st == COSA_OK)
        st = cosa_model_energy_form(m, par, 4, W);
    if (st == COSA_OK)
        st = m->energy_port(m, par, &port, idx, 8);
    if (st == COSA_OK && cosa_system_kick_flags(sys, kick) == 0)
        st = COSA_EUNSUPPORTED;
    if (st != COSA_OK) {
        cli_error(cmd, "twomass-fd: %s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto done;
    }
    static const double Rs[] = {0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0};
    static const char *const Rt[] = {"1/10", "1/5", "1/2", "1", "2", "5", "10", "20"};
    static const char *const nm[] = {"ZOH", "FOH", "SOH"};
    static const char *const csv_names[] = {"R",          "scheme",          "mu_eq",
                                            "mu_measured_1s", "mu_measured_10s", "mu_mode",
                                            "omega_mode"};
    static const char *const md_names[] = {"R",
                                           "scheme",
                                           "eqs 20-21",
                                           "mu_measured 1 s",
                                           "mu_measured 10 s",
                                           "mu_mode (fastest)"};
    char b1[32];
    tw_table(w, csv ? csv_names : md_names, csv ? 7 : 6);
    for (int p = 0; p <= 2; p++)
        for (size_t k = 0; k < sizeof Rs / sizeof Rs[0]; k++) {
            /* R > 1: II (no feedthrough) is R times faster; R < 1: I is 1/R times */
            unsigned rate[2] = {1, 1};
            if (Rs[k] > 1.0)
                rate[1] = (unsigned)Rs[k];
            else if (Rs[k] < 1.0)
                rate[0] = (unsigned)lround(1.0 / Rs[k]);
            cosa_mr_scheme s = {.p = p, .integrator = COSA_MR_SYMPLECTIC_EULER, .rate = rate,
                                .kick = kick, .start_initial = 1};
            cosa_mr_energy e1, e10;
            double om[16], mu[16];
            size_t nmode = 16;
            st = cosa_mr_energy_eval(sys, &s, dt, (size_t)lround(1.0 / dt), x0, W, &port, 0, &e1);
            if (st == COSA_OK)
                st = cosa_mr_energy_eval(sys, &s, dt, (size_t)lround(10.0 / dt), x0, W, &port, 0,
                                         &e10);
            if (st == COSA_OK)
                st = cosa_mr_energy_modes(sys, &s, dt, W, &port, &nmode, om, mu);
            if (st != COSA_OK) {
                cli_error(cmd, "R = %s, %s: %s", Rt[k], nm[p], cosa_strerror(st));
                rc = CLI_EFAIL;
                goto done;
            }
            const double eq = ecli_mu_eq(0.5, Rs[k], p);
            mu_row(w, csv, csv ? cosa_number_text(b1, sizeof b1, Rs[k]) : Rt[k], nm[p], eq,
                   e1.mu_measured, e10.mu_measured, nmode ? mu[0] : NAN, nmode ? om[0] : NAN);
        }
    if (!csv)
        tw_prose(w, "\ntwomass-fd (energy paper case 1 unless --set), H = %s s, symplectic "
                    "Euler, one step per unit step, held inputs, start from the initial state; "
                    "R = h_df/h_ndf (R > 1: II takes R steps per macro step, R < 1: I takes "
                    "1/R); mu_measured = varsigma/dE at T (Phi route); mu_mode of the fastest "
                    "mode of Phi.\n",
                 cosa_number_text(b1, sizeof b1, dt));
    rc = CLI_OK;
done:
    cosa_system_free(sys);
    return rc;
}
