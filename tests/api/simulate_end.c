/* simulate_end.c -- a test helper of the one-call API's horizon
 * (tests/test_one_call_api.sh): cosa_case_simulate on a model file (or a
 * built-in model: "builtin:NAME") at SCHEME, DT, TEND, with --set-like
 * NAME=VALUE arguments and "none" for no reference; prints the status,
 * the steps, the last point's time and the outputs there (%.17g). */
#include <cosa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: simulate_end MODEL SCHEME DT TEND [none] [NAME=VALUE]...\n");
        return 2;
    }
    char err[512] = "";
    cosa_case *c = NULL;
    cosa_case_sim *s = NULL;
    cosa_case_sim_opts o = {0};
    cosa_status st = strncmp(argv[1], "builtin:", 8) == 0
                         ? cosa_case_builtin(argv[1] + 8, &c, err, sizeof err)
                         : cosa_case_load(argv[1], &c, err, sizeof err);
    for (int i = 5; st == COSA_OK && i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (strcmp(argv[i], "none") == 0) {
            o.ref = COSA_CASE_REF_NONE;
        } else if (eq) {
            *eq = '\0';
            st = cosa_case_set(c, argv[i], strtod(eq + 1, NULL), err, sizeof err);
        }
    }
    if (st == COSA_OK)
        st = cosa_case_simulate(c, argv[2], strtod(argv[3], NULL), strtod(argv[4], NULL), &o,
                                &s, err, sizeof err);
    if (st != COSA_OK) {
        fprintf(stderr, "simulate_end: %s\n", err);
        cosa_case_free(c);
        return 1;
    }
    const cosa_cosim_result *r = s->run->fixed;
    printf("status %s\nsteps %zu\nt_end %.17g\n", cosa_run_status_name(s->run->status),
           s->run->run.steps, r->t[r->ndone]);
    for (size_t k = 0; k < s->ny; k++)
        printf("y.%s %.17g\n", s->yname[k], r->y[k + r->ndone * r->ny]);
    cosa_case_sim_free(s);
    cosa_case_free(c);
    return 0;
}
