/* failure.c -- the failure policy of the time-domain runs (failure.h). */
#include "td/failure.h"

int td_failure_is_result(cosa_status st)
{
    switch (st) {
    case COSA_ENOTCONVERGED:
    case COSA_ENONFINITE:
    case COSA_ERANGE:
    case COSA_ECORRSINGULAR:
    case COSA_EALGLOOP:
    case COSA_ELAPACK:
    case COSA_EDISCARD:
        return 1;
    default:
        return 0;
    }
}
