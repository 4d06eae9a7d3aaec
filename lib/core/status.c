/* status.c -- status messages and version. */
#include "cosa/core.h"
#include "config.h"

static const char *const messages[COSA_STATUS_COUNT] = {
    [COSA_OK] = "success",
    [COSA_EINVAL] = "invalid argument (NULL pointer or inconsistent dimensions)",
    [COSA_ERANGE] = "argument out of range",
    [COSA_ENONFINITE] = "non-finite value (NaN or Inf) in the input",
    [COSA_ENOMEM] = "out of memory",
    [COSA_EALGLOOP] = "algebraic loop not solvable: I - D L is singular",
    [COSA_ECORRSINGULAR] = "output correction not solvable: I - G_p L is singular",
    [COSA_ELAPACK] = "LAPACK reported a numerical failure",
    [COSA_ESCHEME] = "unknown scheme (expected zoh|foh|soh|p0..p8 [+mbcorr|+ecorr|+ocorr], "
                     "optionally gs: prefix)",
    [COSA_EMODEL] = "unknown model",
    [COSA_EPARAM] = "unknown or invalid model parameter",
    [COSA_EUNSTABLEREF] = "the monolithic reference system is unstable",
    [COSA_EWORKSPACE] = "workspace too small for this system or scheme",
    [COSA_EUNSUPPORTED] = "combination not supported",
    [COSA_ENOTCONVERGED] = "computation overflowed or did not converge",
    [COSA_EIO] = "input/output error",
    [COSA_ESYNTAX] = "syntax error",
    [COSA_EMODELSHAPE] = "the assumed (correction) model has other subsystem dimensions than the "
                         "system",
    [COSA_EFMU] = "FMU could not be loaded, or one of its calls failed",
    [COSA_EITERSINGULAR] = "implicit coupling has no unique fixed point: I - M is singular",
    [COSA_EDISCARD] = "a unit could not complete its step (an FMU returned Discard)",
    [COSA_ECANCELLED] = "cancelled by the caller",
    [COSA_ETERMINATED] = "a unit asked to end the simulation (terminateSimulation)",
};

const char *cosa_strerror(cosa_status status)
{
    if ((int)status < 0 || status >= COSA_STATUS_COUNT || !messages[status])
        return "unknown status";
    return messages[status];
}

const char *cosa_version(void) { return PACKAGE_VERSION; }
