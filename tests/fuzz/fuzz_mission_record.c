/* Fuzz target: the decoders of the state store's records (a request of the
 * outbox, a queued runtime event), which a reopen reads back from the file. */
#include <stdint.h>
#include <stdlib.h>

#include "gsvm/mission.h"
#include "mission/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsvm_error err;
    gsvm_mission_request_record_check((const char *)data, size, &err);
    mreq *r = ms_mreq_decode((const char *)data, size, &err);
    if (r) {
        char *again = ms_mreq_encode(r);
        free(again);
        ms_mreq_free(r);
    }
    mevent *e = ms_mevent_decode((const char *)data, size);
    if (e) {
        char *again = ms_mevent_encode(e);
        free(again);
        ms_mevent_free(e);
    }
    return 0;
}
