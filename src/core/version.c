#include <meshquery/base.h>

#define MQ_STR2(x) #x
#define MQ_STR(x) MQ_STR2(x)

const char *mq_version(void)
{
    return MQ_STR(MQ_VERSION_MAJOR) "." MQ_STR(MQ_VERSION_MINOR) "." MQ_STR(MQ_VERSION_PATCH);
}

const char *mq_status_string(mq_status status)
{
    switch (status) {
    case MQ_OK:
        return "ok";
    case MQ_ERR_INVALID_ARG:
        return "invalid argument";
    case MQ_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case MQ_ERR_IO:
        return "input/output error";
    case MQ_ERR_PARSE:
        return "parse error";
    case MQ_ERR_LIMIT:
        return "limit exceeded";
    case MQ_ERR_UNSUPPORTED:
        return "unsupported input";
    case MQ_ERR_CORRUPT:
        return "corrupt file";
    }
    return "unknown status";
}
