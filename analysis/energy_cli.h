/* energy_cli.h -- command-line pieces of the energy paper shared by `cosa
 * simulate` and `cosa point` (analysis/energy_cli.c): --rate NAME=K, the
 * energy's quadratic form, and `cosa point --energy` (the Phi route). */
#ifndef COSA_ENERGY_CLI_H
#define COSA_ENERGY_CLI_H

#include "cli.h"

#define ECLI_MAX_RATES 16

/* --rate NAME=K texts (subsystem name or 1-based index, K a positive
 * integer) into rate (nsub entries, 1 where not given).  CLI_OK or one line
 * and CLI_EUSAGE. */
int ecli_rates(const char *cmd, const char *const *text, size_t n, const cosa_model *m,
               const double *par, size_t nsub, unsigned *rate);

/* `cosa point --energy`: the energy figures of the energy paper's coupling
 * (held inputs, rates, start, one integrator step per unit step) from the
 * Phi route, printed as 'name value' lines. */
typedef struct ecli_point {
    const char *const *rate;
    size_t nrate;
    int start;      /* index of ecli_start_names (-1: not given, reference) */
    int integrator; /* cosa_mr_integrator, its name in ecli_integrator_names (-1: exact) */
} ecli_point;
/* The names of --start and --integrator (NULL-terminated, in the order of
 * cosa_mr_integrator), for the option rows. */
extern const char *const ecli_start_names[], *const ecli_integrator_names[];
int ecli_point_energy(const char *cmd, const cli_case *cs, const cosa_scheme *s,
                      const cosa_system *sys, const double *x0, double dt, double tend,
                      const ecli_point *o, struct tw *w);

/* Eqs 20-21: mu for two units at the step ratio R = h_df / h_ndf (0: single
 * rate) with extrapolation order p, given mu_SR: ZOH mu_SR (1.5 - 0.5 / R)
 * for R > 1, FOH and up mu_SR R for R < 1, else mu_SR. */
double ecli_mu_eq(double mu_sr, double R, int p);

/* `cosa table --paper energy --table mu` (Figs 11-12): twomass-fd at cs's
 * parameters (--set), H = dt, the paper's setting, for R = 1/10 .. 20 and
 * ZOH, FOH, SOH: eqs 20-21, mu_measured at 1 s and 10 s (Phi route) and the
 * fastest mode's mu: the table (markdown or CSV, as w's style; csv: the
 * columns and numbers of the CSV form) and, in markdown, its caption on
 * the table writer w. */
int ecli_table_mu(const char *cmd, cli_case *cs, double dt, struct tw *w, int csv);

#endif
