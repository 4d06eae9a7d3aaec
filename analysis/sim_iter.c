/* sim_iter.c -- the options and output lines of `cosa simulate` with the
 * iterative schemes (README "Iterative coupling", time domain). */
#include "sim_iter.h"

#include <math.h>
#include <string.h>

int sim_iter_options(const char *cmd, const cli_case *cs, const cosa_scheme *s, const char *itol,
                     const char *conflict, const char *needs, cosa_iter_opts *io)
{
    char nm[64];
    cosa_scheme_name(s, nm, sizeof nm);
    if (conflict) {
        cli_error(cmd, "%s: scheme %s %s", conflict, nm, needs);
        return CLI_EUSAGE;
    }
    if (itol && !s->implicit) {
        cli_error(cmd, "--iter-tol applies to iterative schemes (imp:, gs-imp:) only, got %s", nm);
        return CLI_EUSAGE;
    }
    /* the tolerance: the default of the scheme's iteration entry (lib/core/
     * iteration.c: fixed-point for imp:/gs-imp:, one-sweep for gs:P/Q);
     * a scheme that does not iterate is measured as the fixed point is */
    const cosa_iteration_type *it = cosa_iteration_of(s);
    *io = (cosa_iter_opts){.iterations = s->iterations,
                           .tol = it->iterates ? it->tol : cosa_iteration_fixed_point.tol,
                           .aitken = cli_iter_aitken(cs)};
    if (itol && (cli_parse_double(itol, &io->tol) != 0 || !(io->tol > 0.0) || io->tol >= 1.0)) {
        cli_error(cmd, "--iter-tol must be a number in (0, 1), got '%s'", itol);
        return CLI_EUSAGE;
    }
    /* --iterations K alone: K sweeps; otherwise to the tolerance, K the most */
    io->converge = s->implicit && (itol || s->iterations == 0);
    if (io->converge && io->iterations == 0)
        io->iterations = COSA_ITER_MAX_DEFAULT;
    return CLI_OK;
}

void sim_iter_print(const cosa_scheme *s, const cosa_iter_opts *io,
                    const cosa_cosim_result *r)
{
    if (!r->iterative)
        return;
    const cosa_iter_stats *it = &r->iter;
    char b[32];
    if (!s->implicit)
        printf("iterations 1\n");
    else if (io->converge)
        printf("iterations inf\niterations_limit %u\n", io->iterations);
    else
        printf("iterations %u\n", io->iterations);
    if (io->aitken)
        printf("relax aitken\nrelax_initial %s\nrelax_last %.17g\n",
               cosa_number_text(b, sizeof b, s->relax), it->relax_last);
    else
        printf("relax %s\n", cosa_number_text(b, sizeof b, s->implicit ? s->relax : 1.0));
    printf("iter_tol %s\n", cosa_number_text(b, sizeof b, io->tol));
    printf("iterations_mean %.17g\niterations_max %u\nwindows_not_converged %zu\n",
           it->windows ? (double)it->sweeps / (double)it->windows : NAN, it->sweeps_max,
           it->not_converged);
    if (isnan(it->contraction))
        printf("contraction none\n");
    else
        printf("contraction %.17g\n", it->contraction);
}
