/* cosa.c -- the `cosa` command: dispatch to subcommands. */
#include "config.h"
#include "argfile.h"
#include "cli.h"
#include "outfile.h"
#include "sweep_cli.h"
#include "wait_policy.h"

#include <stdio.h>
#include <string.h>
/* where make install puts the guide (Makefile.am passes $(docdir)) */
#ifndef COSA_DOCDIR
#define COSA_DOCDIR "/usr/local/share/doc/cosa"
#endif
#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
#include <cblas.h>
#endif

struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    {"demo", cmd_demo, "spectral radius of every scheme for the two-mass oscillator"},
    {"point", cmd_point, "stability (and accuracy) of one scheme at one parameter point"},
    {"limit", cmd_limit, "largest stable or accurate macro step (with stability windows)"},
    {"advise", cmd_advise, "which scheme with which macro step: every candidate ranked by cost"},
    {"converge", cmd_converge, "local/global error vs macro step and convergence orders"},
    {"table", cmd_table, "reproduce the tables of the MBCorr paper"},
    {"map", cmd_map, "stability/accuracy maps over two parameters (Figs 4, 6 of the paper)"},
    {"curve", cmd_curve, "a metric against dt or one parameter, per scheme (Figs 5, 7, 8)"},
    {"bench", cmd_bench, "time per point of rho and e_g sweeps, per scheme and thread count"},
    {"convert", cmd_convert, "map data files from text to binary (float64) and back"},
    {"fmu-info", cmd_fmu_info, "what cosa reads from an FMI 3.0/2.0 co-simulation FMU (states, inputs, outputs)"},
    {"linearize", cmd_linearize, "an FMU network of a model file as a linear model file (A, B, C, D)"},
    {"phi", cmd_phi, "print the propagation matrix Phi (or Phi*) with its block layout"},
    {"model-dump", cmd_model_dump, "write a model (built-in or file) as a model file"},
    {"models", cmd_models, "list the built-in models with parameters, defaults and units"},
    {"simulate", cmd_simulate, "time-domain co-simulation of a (nonlinear) model vs its reference"},
    {"estimate", cmd_estimate, "one macro step from the reference: local error vs its estimate"},
    {"defect", cmd_defect, "defect-controlled co-simulation: defects, errors, step sizes (defect paper)"},
};
#define NSUB (sizeof subcommands / sizeof subcommands[0])

static void usage(FILE *f)
{
    fprintf(f, "Usage: cosa [--help] [--version] SUBCOMMAND [OPTIONS]\n\n"
               "Stability and accuracy analysis of explicit co-simulation coupling schemes\n"
               "for linear coupled systems (propagation matrices Phi, Phi*).\n\n"
               "Subcommands:\n");
    for (size_t i = 0; i < NSUB; i++)
        fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(f, "\nRun 'cosa SUBCOMMAND --help' for the options of a subcommand, 'cosa SUBCOMMAND\n"
               "--list-options' for their names alone (one per line, every mode's, for shell\n"
               "completion).  Options can also come from a file: cosa SUBCOMMAND @FILE (one\n"
               "per line).\n"
               "\n"
               "Documentation: the user guide by task, doc/index.md in the sources (installed\n"
               "as %s/doc/index.md); the man pages cosa(1), cosa-SUBCOMMAND(1) (man\n"
               "cosa-map, ...) and cosa-model(5); from the build tree 'make man' tells how.\n",
            COSA_DOCDIR);
}

/* The subcommand (argv[1]) with MPI around it when mpirun/srun started us
 * (sweep_mpi.c): processes other than 0 compute their share of a sweep and
 * stay silent (their output would repeat process 0's). */
static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    cli_wait_policy_passive(argv); /* returns unless it re-executes cosa */
    if (scli_mpi_init(&argc, &argv) != 0) {
        cli_error(NULL, "MPI could not be initialised");
        return CLI_EFAIL;
    }
    if (scli_mpi_rank() > 0 && (!freopen("/dev/null", "w", stdout) ||
                                !freopen("/dev/null", "w", stderr)))
        return CLI_EFAIL;
    /* every file is written under a temporary name and renamed into place
     * when the command succeeds; a failure or a signal removes them */
    if (outfile_init() != 0) {
        cli_error(NULL, "cannot install the signal handlers");
        return CLI_EFAIL;
    }
    const char *cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    int rc = run(argc, argv);
    /* every write to stdout checked (its end decides, like the files') */
    const int out = outfile_close_stdout(cmd, rc == CLI_OK);
    if (rc == CLI_OK)
        rc = out;
    rc = outfile_finish(cmd, rc);
    scli_mpi_finalize();
    return rc;
}

static int run(int argc, char **argv)
{
#ifdef HAVE_OPENBLAS_SET_NUM_THREADS
    /* Our matrices are small and our sweeps parallelise over grid points:
     * BLAS itself must stay single-threaded. */
    openblas_set_num_threads(1);
#endif
    cli_blas_warm();
    if (argc < 2) {
        cli_error(NULL, "missing subcommand (see 'cosa --help')");
        return CLI_EUSAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("cosa %s\n", cosa_version());
        return CLI_OK;
    }
    for (size_t i = 0; i < NSUB; i++)
        if (strcmp(cmd, subcommands[i].name) == 0) {
            /* @FILE arguments expanded (argfile.c); always a copy, so that
             * every subcommand's argv carries the origin table */
            argfile af;
            int rc = argfile_expand(cmd, argc - 1, argv + 1, 1, &af);
            if (rc == CLI_OK)
                rc = subcommands[i].run(af.argc, af.argv);
            argfile_free(&af);
            return rc;
        }
    cli_error(NULL, "unknown subcommand '%s' (see 'cosa --help')", cmd);
    return CLI_EUSAGE;
}
