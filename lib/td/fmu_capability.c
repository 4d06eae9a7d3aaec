/* fmu_capability.c -- what an FMU can do for a master, summarised from its
 * model description (input polynomial degree, Jacobians, FMU state, step
 * sizes), and whether a coupling scheme can run on it.  The same rules as
 * the unit's step (unit_fmu.c) and cosa simulate's checks, in one place for
 * the analyses (advise, point, limit, map) to consult before any run. */
#include "td/fmu_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cosa_fmu_capability_get(const cosa_fmu *fmu, cosa_fmu_capability *cap)
{
    if (!cap)
        return;
    memset(cap, 0, sizeof *cap);
    if (!fmu)
        return;
    const fmu_description *d = &fmu->desc;
    cap->fmi_version = d->version;
    cap->max_output_derivative_order = d->max_output_der;
    cap->directional = (d->caps & COSA_FMU_CAP_DIRECTIONAL) != 0;
    cap->fmu_state = (d->caps & COSA_FMU_CAP_GET_SET_STATE) != 0;
    cap->variable_step = (d->caps & COSA_FMU_CAP_VARIABLE_STEP) != 0;
    cap->fixed_step = d->fixed_step;
    cap->default_step = d->default_step;
    cap->event_mode = (d->caps & COSA_FMU_CAP_EVENT_MODE) != 0;
    cap->early_return = (d->caps & COSA_FMU_CAP_EARLY_RETURN) != 0;
    cap->clocks = (d->caps & COSA_FMU_CAP_CLOCKS) != 0;
    cap->scheduled = (d->caps & COSA_FMU_CAP_SCHEDULED) != 0;
    cap->smoothness = d->smoothness;
    if (d->caps & COSA_FMU_CAP_MODEL_EXCHANGE) {
        /* cosa integrates it (unit_fmu_me.c): the input polynomial enters
         * every right-hand side, any step length, snapshots of its states */
        cap->model_exchange = 1;
        cap->fmu_state = cap->variable_step = 1;
        cap->input_degree_max = COSA_UNIT_DEGMAX;
        return;
    }
    /* degree >= 1: FMI 2.0 input derivatives (any order: the standard sets
     * no bound on fmi2SetRealInputDerivatives' order), or FMI 3.0
     * intermediate update with every input settable during the step */
    int im = d->version == 3 && (d->caps & COSA_FMU_CAP_INTERMEDIATE_UPDATE);
    size_t bad = d->nin;
    for (size_t i = 0; im && i < d->nin; i++)
        if (!d->vars[d->inputs[i]].intermediate_update) {
            im = 0;
            bad = i;
        }
    const int interp = d->version == 2 && (d->caps & COSA_FMU_CAP_INTERPOLATE_INPUTS);
    cap->input_degree_max = d->nin == 0 || im || interp ? COSA_UNIT_DEGMAX : 0;
    if (cap->input_degree_max > 0)
        return;
    if (d->version == 2)
        snprintf(cap->degree_why, sizeof cap->degree_why,
                 "FMI 2.0 without canInterpolateInputs holds its inputs (degree 0)");
    else if (!(d->caps & COSA_FMU_CAP_INTERMEDIATE_UPDATE))
        snprintf(cap->degree_why, sizeof cap->degree_why,
                 "FMI 3.0 without providesIntermediateUpdate holds its inputs (degree 0)");
    else
        snprintf(cap->degree_why, sizeof cap->degree_why,
                 "input %.60s is not intermediateUpdate=\"true\": inputs held (degree 0)",
                 bad < d->nin ? d->vars[d->inputs[bad]].name : "?");
}

/* The rule of recommendedIntermediateInputSmoothness k (README "FMU import"):
 * the FMI 3.0 standard says the FMU converges best when its inputs over a
 * communication step are C^k (k times continuously differentiable; 0:
 * continuous).  Every input polynomial is C^inf inside the step, and cosa's
 * extrapolated inputs jump at communication points whatever their degree, so
 * the attribute cannot be met or missed by continuity; what it tells is how
 * many input derivatives the FMU's solver is built to use.  cosa gives such
 * an FMU input polynomials of degree <= k: derivatives of order > k come
 * from the extrapolation's highest (least accurate) terms and feed nothing
 * the FMU exploits.  k = 0, also when the attribute is absent (the
 * standard's default), caps nothing. */
int cosa_fmu_smoothness_degree(int k)
{
    return k <= 0 || k > COSA_UNIT_DEGMAX ? COSA_UNIT_DEGMAX : k;
}

cosa_status cosa_fmu_smoothness_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    if (!cap || !s)
        return COSA_EINVAL;
    const int cmax = cosa_fmu_smoothness_degree(cap->smoothness);
    if (nu > 0 && COSA_SCHEME_Q(s) > cmax) {
        if (why && size)
            snprintf(why, size, "an input polynomial of degree %d is above the degree %d that "
                     "its recommendedIntermediateInputSmoothness = %d allows",
                     COSA_SCHEME_Q(s), cmax, cap->smoothness);
        return COSA_EUNSUPPORTED;
    }
    return COSA_OK;
}

cosa_status cosa_fmu_capability_check(const cosa_fmu_capability *cap, size_t nu,
                                      const cosa_scheme *s, char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    if (!cap || !s)
        return COSA_EINVAL;
    /* the input degree: q = p + q_extra for the sweeps of imp:, gs-imp:, gs:P/Q */
    if (nu > 0 && COSA_SCHEME_Q(s) > cap->input_degree_max) {
        if (why && size)
            snprintf(why, size, "an input polynomial of degree %d needs input interpolation: %s",
                     COSA_SCHEME_Q(s), cap->degree_why);
        return COSA_EUNSUPPORTED;
    }
    if (cosa_fmu_smoothness_check(cap, nu, s, why, size) != COSA_OK)
        return COSA_EUNSUPPORTED;
    /* lib/td/iterate.c rolls the units back before every sweep, and steps a
     * Gauss-Seidel sweep (gs:P/Q too) from snapshots before the master
     * repeats the accepted one */
    if (cosa_iteration_of(s)->iterates && !cap->fmu_state) {
        if (why && size)
            snprintf(why, size, "%s restores the units %s: the FMU cannot get and set its "
                     "state (canGetAndSetFMUState)", s->implicit ? "an iterative scheme" :
                     "gs:P/Q", s->implicit ? "before every sweep" : "after its sweep");
        return COSA_EUNSUPPORTED;
    }
    if ((s->corr & COSA_CORR_OUTPUT) && !s->model && !cap->directional && !cap->fmu_state) {
        if (why && size)
            snprintf(why, size, "the output correction needs Jacobians: the FMU provides "
                     "neither directional derivatives nor its state (canGetAndSetFMUState)");
        return COSA_EUNSUPPORTED;
    }
    return COSA_OK;
}

/* The tolerance is the one unit_fmu.c accepts for the time an FMU reports at
 * the end of a step (1e-9 h): a step within it of n fixed internal steps
 * ends where the FMU's own grid does. */
cosa_status cosa_fmu_step_check(const cosa_fmu_capability *cap, double h, char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    if (!cap || !(h > 0.0) || !isfinite(h))
        return COSA_EINVAL;
    const double hf = cap->fixed_step;
    if (!(hf > 0.0))
        return COSA_OK;
    const double n = nearbyint(h / hf);
    if (n >= 1.0 && fabs(h - n * hf) <= 1e-9 * h)
        return COSA_OK;
    if (why && size)
        snprintf(why, size, "it takes fixed internal steps of %.15g s (fixedInternalStepSize): "
                 "a step of %.15g s is %s", hf, h,
                 h < hf ? "shorter than one" : "not a multiple of it");
    return COSA_ERANGE;
}

double cosa_fmu_step_grid(const cosa_fmu_capability *const *caps, size_t n, double H,
                          unsigned kmax)
{
    /* K must divide H / hf_i for every FMU with a fixed step hf_i */
    for (unsigned k = kmax; k > 1; k--) {
        int fits = 1;
        for (size_t i = 0; fits && i < n; i++)
            fits = !caps[i] || cosa_fmu_step_check(caps[i], H / k, NULL, 0) == COSA_OK;
        if (fits)
            return (double)k;
    }
    return 1.0;
}

const char *cosa_fmu_fine_scheme(cosa_fmu *const *fmus, size_t n)
{
    int deg = 2;
    for (size_t i = 0; i < n; i++) {
        if (!fmus[i] || !cosa_fmu_ninput(fmus[i]))
            continue;
        cosa_fmu_capability cap;
        cosa_fmu_capability_get(fmus[i], &cap);
        deg = cap.input_degree_max < deg ? cap.input_degree_max : deg;
    }
    return deg >= 2 ? "soh" : deg == 1 ? "foh" : "zoh";
}
