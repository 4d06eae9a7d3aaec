/* cmd_model_dump.c -- `cosa model-dump`: write a model as a model file, and
 * `cosa linearize`: the same for a model file with FMUs, their linearisation
 * chosen by --jacobian. */
#include "cli.h"
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(void)
{
    printf("Usage: cosa model-dump [--model NAME | --model-file PATH] [--set NAME=VALUE]...\n"
           "                       [-o FILE]\n\n"
           "Write the model, with the parameter values given, as a model file (format:\n"
           "cosa-model(5)) to stdout, or to FILE with -o.  Loading the file gives\n"
           "the same A, B, C, D, L and initial state to the last bit, hence the same Phi.\n"
           "Built-in models keep their parameter expressions where cosa knows them, so\n"
           "--set and map axes work on the dumped file too.\n\n"
           "%s\nOptions:\n"
           "  -o, --output FILE    write to FILE (replaced only when the dump succeeded)\n"
           "  -h, --help           this help\n",
           cli_model_help);
}

static void help_linearize(void)
{
    printf("Usage: cosa linearize --model-file PATH [--jacobian dd|fd] [-o OUT.cosa]\n\n"
           "Linearise the FMUs of a model file ('fmu NAME = PATH' subsystems; README 'FMU\n"
           "import') at their operating point -- instantiated at t = 0 with their start\n"
           "values -- and write the network as an ordinary model file of numbers, to\n"
           "stdout or OUT.cosa: A, B, C, D of every FMU, its states' start values, the\n"
           "connections; matrix subsystems keep their expressions.  Every Phi command\n"
           "reads the result (and reads the FMU file itself the same way).\n\n"
           "Options:\n"
           "  --jacobian dd|fd     dd: the FMUs' directional derivatives (an error for an\n"
           "                       FMU without them); fd: central differences, the states\n"
           "                       perturbed through fresh instances (their start values;\n"
           "                       no doStep), the inputs through the model's evaluation;\n"
           "                       default: dd where the FMU provides it, else fd\n"
           "  -o, --output FILE    write to FILE (replaced only when it succeeded)\n"
           "  -h, --help           this help\n");
}

struct dump_opts {
    const char *outpath, *jacobian;
};

static int extra(void *ctx, int opt, const char *arg)
{
    struct dump_opts *o = ctx;
    if (opt == 'o')
        o->outpath = arg;
    else if (opt == 'J')
        o->jacobian = arg;
    else
        return 1;
    return 0;
}

static int dump_main(const char *cmd, int argc, char **argv, int linearize)
{
    static const struct option more[] = {{"output", required_argument, NULL, 'o'},
                                         {0, 0, 0, 0}};
    static const struct option more_lin[] = {{"output", required_argument, NULL, 'o'},
                                             {"jacobian", required_argument, NULL, 'J'},
                                             {0, 0, 0, 0}};
    struct dump_opts o = {0};
    cli_case cs = {0};
    outfile of = {NULL, -1, NULL};
    FILE *f = NULL;
    int rc = cli_parse(cmd, argc, argv, linearize ? more_lin : more, extra, &o,
                       linearize ? help_linearize : help, &cs);
    const char *outpath = o.outpath;
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (linearize) {
        if (!cs.mod.file) {
            cli_error(cmd, "--model-file is required (a model file with fmu subsystems)");
            rc = CLI_EUSAGE;
            goto out;
        }
        if (o.jacobian && strcmp(o.jacobian, "dd") && strcmp(o.jacobian, "fd")) {
            cli_error(cmd, "--jacobian must be dd or fd, got '%s'", o.jacobian);
            rc = CLI_EUSAGE;
            goto out;
        }
        cs.mod.load_flags = !o.jacobian ? 0u
                            : o.jacobian[0] == 'd' ? COSA_MODEL_FILE_FMU_DD
                                                   : COSA_MODEL_FILE_FMU_FD;
    }
    if (cs.scheme_text || cs.dt_text || cs.seq_text) {
        cli_error(cmd, "--scheme, --dt and --sequence do not apply to %s", cmd);
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_model_resolve(&cs.mod, cmd)) != CLI_OK ||
        (rc = cli_model_linear(&cs.mod, cmd, "model files describe linear models only")) !=
            CLI_OK)
        goto out;
    /* -o: a temporary next to FILE, renamed into place when the command
     * succeeds (outfile.h) */
    if (outpath && !(f = outfile_open(&of, outpath, 0))) {
        cli_error(cmd, "cannot write '%s': %s", outpath, strerror(errno));
        rc = CLI_EFAIL;
        goto out;
    }
    cosa_status st = cosa_model_dump(f ? f : stdout, cs.mod.model, cs.mod.par);
    if (st == COSA_EIO && outpath) { /* the stream's error again, with its reason */
        f = NULL;
        errno = EIO;
        outfile_commit(&of);
        cli_error(cmd, "cannot write '%s': %s", outpath, strerror(errno));
        rc = CLI_EFAIL;
        goto out;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "model '%s': %s", cs.mod.model->name,
                  st == COSA_EUNSUPPORTED ? "coupling is not a 0/1 selection matrix"
                                          : cosa_strerror(st));
        rc = st == COSA_EIO ? CLI_EFAIL : CLI_EUSAGE;
        goto out;
    }
    f = NULL;
    if (outpath && outfile_commit(&of) != 0) {
        cli_error(cmd, "cannot write '%s': %s", outpath, strerror(errno));
        rc = CLI_EFAIL;
    }
out:
    outfile_abandon(&of);
    cli_case_free(&cs);
    return rc;
}

int cmd_model_dump(int argc, char **argv) { return dump_main("model-dump", argc, argv, 0); }

int cmd_linearize(int argc, char **argv) { return dump_main("linearize", argc, argv, 1); }
