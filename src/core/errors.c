/* Error codes, messages, version queries and versioned structs. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const char *ibr_strerror(int code)
{
    switch (code) {
    case IBR_OK:
        return "success";
#define IBR__XX(name, val, msg) \
    case IBR_##name:            \
        return msg;
        IBR_ERRNO_MAP(IBR__XX)
#undef IBR__XX
    default:
        return "unknown error";
    }
}

const char *ibr_status_name(int code)
{
    switch (code) {
    case IBR_OK:
        return "IBR_OK";
#define IBR__XX(name, val, msg) \
    case IBR_##name:            \
        return "IBR_" #name;
        IBR_ERRNO_MAP(IBR__XX)
#undef IBR__XX
    default:
        return "IBR_UNKNOWN";
    }
}

int ibr_version(void)
{
    return IBR_VERSION_NUMBER;
}

const char *ibr_version_string(void)
{
    return IBR_VERSION_STRING;
}

int ibr__versioned_init(void *s, const void *def, size_t size, unsigned int version)
{
    if (!s)
        return IBR_EINVAL;
    if (!size)
        return IBR_EVERSION;
    memcpy(s, def, size);
    memcpy(s, &version, sizeof version);
    return 0;
}

int ibr__verr(char *buf, int code, const char *fmt, va_list ap)
{
    if (buf) {
        if (fmt)
            vsnprintf(buf, IBR_ERRMSG_SIZE, fmt, ap);
        else
            buf[0] = 0;
    }
    return code;
}

int ibr__err(char *buf, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ibr__verr(buf, code, fmt, ap);
    va_end(ap);
    return code;
}
