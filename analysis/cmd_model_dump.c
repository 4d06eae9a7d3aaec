/* cmd_model_dump.c -- `cosa model-dump`: write a model as a model file. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void help(void)
{
    printf("Usage: cosa model-dump [--model NAME | --model-file PATH] [--set NAME=VALUE]...\n"
           "                       [-o FILE]\n\n"
           "Write the model, with the parameter values given, as a model file (format:\n"
           "README, 'Model files') to stdout, or to FILE with -o.  Loading the file gives\n"
           "the same A, B, C, D, L and initial state to the last bit, hence the same Phi.\n"
           "Built-in models keep their parameter expressions where cosa knows them, so\n"
           "--set and map axes work on the dumped file too.\n\n"
           "%s\nOptions:\n"
           "  -o, --output FILE    write to FILE (replaced only when the dump succeeded)\n"
           "  -h, --help           this help\n",
           cli_model_help);
}

static int extra(void *ctx, int opt, const char *arg)
{
    if (opt != 'o')
        return 1;
    *(const char **)ctx = arg;
    return 0;
}

int cmd_model_dump(int argc, char **argv)
{
    const char *cmd = "model-dump";
    static const struct option more[] = {{"output", required_argument, NULL, 'o'},
                                         {0, 0, 0, 0}};
    const char *outpath = NULL;
    cli_case cs = {0};
    char *tmp = NULL;
    FILE *f = NULL;
    int rc = cli_parse(cmd, argc, argv, more, extra, &outpath, help, &cs);
    if (rc < 0) {
        rc = CLI_OK;
        goto out;
    }
    if (rc != CLI_OK)
        goto out;
    if (cs.scheme_text || cs.dt_text || cs.seq_text) {
        cli_error(cmd, "--scheme, --dt and --sequence do not apply to model-dump");
        rc = CLI_EUSAGE;
        goto out;
    }
    if ((rc = cli_model_resolve(&cs.mod, cmd)) != CLI_OK ||
        (rc = cli_model_linear(&cs.mod, cmd, "model files describe linear models only")) !=
            CLI_OK)
        goto out;
    if (outpath) {
        size_t n = strlen(outpath) + 16;
        tmp = malloc(n);
        if (!tmp) {
            cli_error(cmd, "out of memory");
            rc = CLI_EFAIL;
            goto out;
        }
        snprintf(tmp, n, "%s.tmp%ld", outpath, (long)getpid());
        f = fopen(tmp, "w");
        if (!f) {
            cli_error(cmd, "cannot write '%s'", outpath);
            rc = CLI_EFAIL;
            goto out;
        }
    }
    cosa_status st = cosa_model_dump(f ? f : stdout, cs.mod.model, cs.mod.par);
    if (f && fclose(f) != 0 && st == COSA_OK)
        st = COSA_EIO;
    f = NULL;
    if (st != COSA_OK) {
        if (tmp)
            remove(tmp);
        cli_error(cmd, "model '%s': %s", cs.mod.model->name,
                  st == COSA_EUNSUPPORTED ? "coupling is not a 0/1 selection matrix"
                                          : cosa_strerror(st));
        rc = st == COSA_EIO ? CLI_EFAIL : CLI_EUSAGE;
        goto out;
    }
    if (tmp && rename(tmp, outpath) != 0) {
        remove(tmp);
        cli_error(cmd, "cannot write '%s'", outpath);
        rc = CLI_EFAIL;
    }
out:
    if (f) {
        fclose(f);
        remove(tmp);
    }
    free(tmp);
    cli_case_free(&cs);
    return rc;
}
