/* cmd_point.c -- `cosa point`: one scheme at one parameter point. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>

static void help(void)
{
    printf("Usage: cosa point [--model NAME] [--set NAME=VALUE]... --scheme SCHEME --dt DT\n"
           "                  [--alpha A] [--order LIST]\n\n"
           "Stability of one coupling scheme for one coupled system and macro step.\n"
           "Prints one 'name value' pair per line (numbers with %%.17g):\n"
           "  model, scheme, dt, dim     the case and the length of the information vector\n"
           "  rho                        spectral radius of Phi (stable when <= 1)\n"
           "  rho_ref                    spectral radius of the exact reference Phi*\n"
           "  stable                     yes | no  (rho <= 1)\n\n"
           "%s\n%s\nOptions:\n%s",
           cli_model_help, cli_scheme_help, cli_case_help);
}

int cmd_point(int argc, char **argv)
{
    const char *cmd = "point";
    cli_case cs = {0};
    cosa_system *sys = NULL;
    cosa_phi_workspace *pw = NULL;
    cosa_eig_workspace *ew = NULL;
    double *Phi = NULL;
    cosa_scheme scheme;
    double dt;
    int rc = cli_parse(cmd, argc, argv, NULL, NULL, NULL, help, &cs);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK || (rc = cli_case_scheme(cmd, &cs, &scheme)) != CLI_OK ||
        (rc = cli_case_dt(cmd, cs.dt_text, &dt)) != CLI_OK ||
        (rc = cli_case_system(cmd, &cs, &scheme, &sys)) != CLI_OK)
        goto out;

    cosa_layout lay;
    cosa_status st = cosa_layout_get(sys, &scheme, &lay);
    if (st != COSA_OK) {
        cli_error(cmd, "scheme '%s': %s", cs.scheme_text, cosa_strerror(st));
        rc = CLI_EUSAGE;
        goto out;
    }
    pw = cosa_phi_workspace_alloc(sys, scheme.order);
    ew = cosa_eig_workspace_alloc(lay.dim);
    Phi = malloc(lay.dim * lay.dim * sizeof(double));
    if (!pw || !ew || !Phi) {
        cli_error(cmd, "out of memory");
        rc = CLI_EFAIL;
        goto out;
    }
    double rho = NAN, rho_ref = NAN;
    st = cosa_phi_build(sys, &scheme, dt, Phi, lay.dim, pw);
    if (st == COSA_OK)
        st = cosa_spectral_radius(lay.dim, Phi, lay.dim, &rho, ew);
    if (st == COSA_OK)
        st = cosa_phi_ref_build(sys, &scheme, dt, Phi, lay.dim, pw);
    /* Phi* is block lower triangular with eig(Phi*) = eig(A*_d) u {0}: take
     * rho from its state block (same value, independent of the layout). */
    if (st == COSA_OK)
        st = cosa_spectral_radius(lay.nx, Phi, lay.dim, &rho_ref, ew);
    if (st != COSA_OK) {
        cli_error(cmd, "%s", cosa_strerror(st));
        rc = CLI_EFAIL;
        goto out;
    }
    char name[64];
    cosa_scheme_name(&scheme, name, sizeof name);
    printf("model %s\nscheme %s\ndt %.17g\ndim %zu\n", cs.mod.model->name, name, dt, lay.dim);
    printf("rho %.17g\nrho_ref %.17g\nstable %s\n", rho, rho_ref, rho <= 1.0 ? "yes" : "no");
out:
    free(Phi);
    cosa_eig_workspace_free(ew);
    cosa_phi_workspace_free(pw);
    cosa_system_free(sys);
    cli_case_free(&cs);
    return rc;
}
