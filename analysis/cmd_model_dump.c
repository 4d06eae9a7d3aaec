/* cmd_model_dump.c -- `cosa model-dump`: write a model as a model file, and
 * `cosa linearize`: the same for a model file with FMUs, their linearisation
 * chosen by --jacobian. */
#include "cli.h"
#include "outfile.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_dump[] =
    "Usage: cosa model-dump [--model NAME | --model-file PATH] [--set NAME=VALUE]...\n"
    "                       [-o FILE]\n\n"
    "Write the model, with the parameter values given, as a model file (format:\n"
    "cosa-model(5)) to stdout, or to FILE with -o.  Loading the file gives\n"
    "the same A, B, C, D, L and initial state to the last bit, hence the same Phi.\n"
    "Built-in models keep their parameter expressions where cosa knows them, so\n"
    "--set and map axes work on the dumped file too.\n\n";

static const char usage_linearize[] =
    "Usage: cosa linearize --model-file PATH [--linearization identify|declared]\n"
    "                      [--jacobian dd|fd] [-o OUT.cosa]\n\n"
    "Linearise the FMUs of a model file ('fmu NAME = PATH' subsystems;\n"
    "doc/fmu.md) at their operating point -- instantiated at t = 0 with their start\n"
    "values -- and write the network as an ordinary model file of numbers, to\n"
    "stdout or OUT.cosa: A, B, C, D of every FMU, its states' start values, the\n"
    "connections; matrix subsystems keep their expressions.  Every Phi command\n"
    "reads the result (and reads the FMU file itself the same way).  FMUs that\n"
    "declare no states are identified from their inputs and outputs (black\n"
    "boxes, doc/black-box.md): written with states xi1, xi2, ...\n\n";

struct dump_opts {
    cli_model mod;
    const char *outpath;
    int jacobian; /* -1: not given, else an index of jacobians[] */
};

static const char *const jacobians[] = {"dd", "fd", NULL};

static const opt_row rows_dump[] = {
    {.kind = OPTK_TEXT, .help = "Model:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_model_rows, .off = offsetof(struct dump_opts, mod)},
    {.kind = OPTK_TEXT, .help = "\nOptions:\n"},
    {.kind = OPTK_PATH, .name = "output", .short_name = 'o',
     .off = offsetof(struct dump_opts, outpath), .arg = "FILE",
     .help = "write to FILE (replaced only when the dump succeeded)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

static const opt_row rows_linearize[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_PATH, .name = "model-file", .off = offsetof(struct dump_opts, mod.file),
     .arg = "PATH", .flags = OPTF_REQUIRED,
     .help = "the model file with fmu subsystems (required)"},
    {.kind = OPTK_INCLUDE, .sub = cli_set_rows, .off = offsetof(struct dump_opts, mod)},
    {.kind = OPTK_STRING, .name = "linearization",
     .off = offsetof(struct dump_opts, mod.linearization), .arg = "identify|declared",
     .help = "identify: every FMU from its inputs and outputs (black\n"
             "boxes, doc/black-box.md); declared: from its declared\n"
             "states (default: identify the FMUs that declare no states)"},
    {.kind = OPTK_STRING, .name = "probe-step", .off = offsetof(struct dump_opts, mod.probe_step),
     .arg = "H",
     .help = "identification's probe step in seconds for FMUs without\n"
             "a fixed internal step (default: DefaultExperiment stepSize,\n"
             "else 1e-3)"},
    {.kind = OPTK_ENUM, .name = "jacobian", .off = offsetof(struct dump_opts, jacobian),
     .arg = "dd|fd", .names = jacobians,
     .help = "dd: the FMUs' directional derivatives (an error for an\n"
             "FMU without them); fd: central differences, the states\n"
             "perturbed through fresh instances (their start values;\n"
             "no doStep), the inputs through the model's evaluation;\n"
             "default: dd where the FMU provides it, else fd"},
    {.kind = OPTK_PATH, .name = "output", .short_name = 'o',
     .off = offsetof(struct dump_opts, outpath), .arg = "FILE",
     .help = "write to FILE (replaced only when it succeeded)"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

static int dump_main(const char *cmd, int argc, char **argv, int linearize)
{
    struct dump_opts o = {.jacobian = -1};
    outfile of = {NULL, -1, NULL, NULL};
    FILE *f = NULL;
    int rc = cli_parse_rows(cmd, linearize ? rows_linearize : rows_dump, &o, NULL, argc, argv,
                            linearize ? usage_linearize : usage_dump);
    const char *outpath = o.outpath;
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    o.mod.load_flags = o.jacobian < 0 ? 0u
                       : o.jacobian == 0 ? COSA_MODEL_FILE_FMU_DD
                                         : COSA_MODEL_FILE_FMU_FD;
    /* -o before any work (linearize loads FMUs): a temporary next to FILE,
     * renamed into place when the command succeeds (outfile.h); a target
     * that cannot be created is bad input, exit 2, like the -o probe of the
     * other commands */
    if (outpath && !(f = outfile_open(&of, outpath, 0))) {
        cli_error(cmd, "cannot write '%s': %s", outpath, strerror(errno));
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_model_resolve(&o.mod, cmd)) != CLI_OK ||
        (rc = cli_model_linear(&o.mod, cmd, "model files describe linear models only")) !=
            CLI_OK)
        goto out;
    cosa_status st = cosa_model_dump(f ? f : stdout, o.mod.model, o.mod.par);
    if (st == COSA_EIO && outpath) { /* the stream's error again, with its reason */
        f = NULL;
        errno = EIO;
        outfile_commit(&of);
        cli_error(cmd, "cannot write '%s': %s", outpath, strerror(errno));
        rc = CLI_EFAIL;
        goto out;
    }
    if (st == COSA_EIO && !outpath) {
        /* stdout's error stays on the stream: the end of the command
         * reports it (outfile_close_stdout), exit 1 */
        rc = CLI_OK;
        goto out;
    }
    if (st != COSA_OK) {
        cli_error(cmd, "model '%s': %s", o.mod.model->name,
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
    cli_model_free(&o.mod);
    return rc;
}

int cmd_model_dump(int argc, char **argv) { return dump_main("model-dump", argc, argv, 0); }

int cmd_linearize(int argc, char **argv) { return dump_main("linearize", argc, argv, 1); }
