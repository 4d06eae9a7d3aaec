/* Simulate a model file of FMUs in four calls: load, simulate, free, free;
 * no reference run (no error figures), as `cosa simulate --ref none`. */
#include <cosa.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "net.cosa";
    char err[512];
    cosa_case *c = NULL;
    cosa_case_sim *s = NULL;
    const cosa_case_sim_opts o = {.ref = COSA_CASE_REF_NONE};
    /* 1. the model file, 2. ZOH at a macro step of 1 ms over 0.1 s */
    if (cosa_case_load(path, &c, err, sizeof err) != COSA_OK ||
        cosa_case_simulate(c, "zoh", 1e-3, 0.1, &o, &s, err, sizeof err) != COSA_OK) {
        fprintf(stderr, "simulate_fmus: %s\n", err);
        cosa_case_free(c);
        return 1;
    }
    const cosa_run_result *r = s->run; /* the trajectory: t, y (ny x npoints) */
    printf("status %s\nreference %s\nsteps %zu\n", cosa_run_status_name(r->status),
           s->reference, r->run.steps);
    for (size_t k = 0; k < s->ny; k++) /* the outputs at the end: y.SUB.NAME */
        printf("y.%s %.17g\n", s->yname[k], r->y[k + (r->npoints - 1) * r->ny]);
    /* 3., 4. */
    cosa_case_sim_free(s);
    cosa_case_free(c);
    return 0;
}
