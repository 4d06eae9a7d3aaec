/* cmd_fmu_info.c -- `cosa fmu-info FILE.fmu`: what cosa reads from an FMU
 * (README "FMU import"): version, capabilities, states, inputs, outputs,
 * parameters; the FMU is unzipped, parsed and its binary loaded, so every
 * error the importer can find at load time shows here. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static void help(void)
{
    printf("Usage: cosa fmu-info FILE.fmu\n\n"
           "Open an FMI 3.0 or 2.0 co-simulation FMU as cosa's importer does (unzip into a\n"
           "private temporary directory, read modelDescription.xml, load the binary for\n"
           "this platform and resolve its functions) and print what it found:\n"
           "  fmi VERSION, model NAME, identifier ID, capabilities (get-set-state,\n"
           "  directional-derivatives, interpolate-inputs, intermediate-update,\n"
           "  variable-step), then one line per continuous state, input, output and\n"
           "  parameter: KIND NAME vr=VALUE_REFERENCE [start=VALUE]\n"
           "A broken FMU gives one line naming the file and what is wrong, exit code 2\n"
           "(1 if the file cannot be read); the temporary directory is always removed.\n");
}

static void line(const char *kind, const cosa_fmu_var *v)
{
    char b[32];
    printf("%-10s %-20s vr=%u", kind, v->name, v->vr);
    if (v->has_start)
        printf(" start=%s", cli_num(b, sizeof b, v->start));
    printf("\n");
}

int cmd_fmu_info(int argc, char **argv)
{
    const char *cmd = "fmu-info";
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            help();
            return CLI_OK;
        }
        cli_error(cmd, "unknown option (see 'cosa fmu-info --help')");
        return CLI_EUSAGE;
    }
    if (argc - optind != 1) {
        cli_error(cmd, "%s (see 'cosa fmu-info --help')",
                  argc - optind ? "one FMU at a time" : "which FMU? give FILE.fmu");
        return CLI_EUSAGE;
    }
    const char *path = argv[optind];
    char err[512];
    cosa_fmu *f = NULL;
    const cosa_status st = cosa_fmu_open(path, &f, err, sizeof err);
    if (st != COSA_OK) {
        cli_error(cmd, "%s: %s", path, err);
        /* a missing or unreadable file is bad input like a broken FMU */
        return st == COSA_ENOMEM ? CLI_EFAIL : CLI_EUSAGE;
    }
    const unsigned caps = cosa_fmu_caps(f);
    static const char *const capname[] = {"get-set-state", "directional-derivatives",
                                          "interpolate-inputs", "intermediate-update",
                                          "variable-step"};
    printf("fmi %d.0\nmodel %s\nidentifier %s\ncapabilities", cosa_fmu_version(f),
           cosa_fmu_model_name(f), cosa_fmu_identifier(f));
    int any = 0;
    for (unsigned k = 0; k < 5; k++)
        if (caps & (1u << k)) {
            printf(" %s", capname[k]);
            any = 1;
        }
    printf("%s\n", any ? "" : " none");
    for (size_t i = 0; i < cosa_fmu_nstate(f); i++)
        line("state", cosa_fmu_var_at(f, cosa_fmu_state(f, i)));
    for (size_t i = 0; i < cosa_fmu_ninput(f); i++)
        line("input", cosa_fmu_var_at(f, cosa_fmu_input(f, i)));
    for (size_t i = 0; i < cosa_fmu_noutput(f); i++)
        line("output", cosa_fmu_var_at(f, cosa_fmu_output(f, i)));
    for (size_t i = 0; i < cosa_fmu_nvar(f); i++) {
        const cosa_fmu_var *v = cosa_fmu_var_at(f, i);
        if (v->causality == COSA_FMU_PARAMETER)
            line("parameter", v);
    }
    cosa_fmu_close(f);
    return CLI_OK;
}
