/* rho(Phi) of FOH+MBCorr on the two-mass oscillator at dT = 1 ms, via libcosa */
#include <cosa.h>
#include <stdio.h>

int main(void)
{
    const cosa_model *m = cosa_model_find("twomass");
    double par[64]; /* m->nparam <= 64 for the built-in models */
    cosa_system *sys = NULL;
    cosa_scheme s;
    cosa_point_result r;
    cosa_model_defaults(m, par);
    if (m->create(m, par, &sys) != COSA_OK || cosa_scheme_parse("foh+mbcorr", &s) != COSA_OK)
        return 1;
    cosa_eval_workspace *w = cosa_eval_workspace_alloc(sys, s.order);
    cosa_status st = cosa_evaluate(sys, &s, 1e-3, NULL, 1.0, COSA_WANT_RHO, &r, w);
    printf("rho %.17g (%s)\n", r.rho, cosa_strerror(st));
    cosa_eval_workspace_free(w);
    cosa_system_free(sys);
    return st != COSA_OK;
}
