/*
 * The failure tail of the engines that build their tables in several
 * allocating steps (dfsssp, lash, nue): whatever step failed, the run gets
 * one message saying why, and a cancel by the caller's progress callback
 * stays a cancel.
 */
#include "engines/engine_int.h"

int ibr__engine_fail(ibr_run *run, int rc, const char *what)
{
    if (rc == IBR_ENOMEM)
        return ibr__fail(run, IBR_ENOMEM, "out of memory");
    if (rc == IBR_ECANCELED)
        return rc;
    return ibr__fail(run, rc, "internal error %d while %s", rc, what);
}
