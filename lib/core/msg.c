/* msg.c -- see kb_msg.h. */
#include "core/kb_msg.h"

#include "core/kb_proc.h"

int kb_msg_send(int fd, uint32_t type, const void *payload, size_t len)
{
    kb_msg_hdr h = {KB_MSG_MAGIC, type, len};
    if (kb_write_full(fd, &h, sizeof h) != 0)
        return -1;
    if (len && kb_write_full(fd, payload, len) != 0)
        return -1;
    return 0;
}

int kb_msg_recv(int fd, uint32_t *type, void *buf, size_t cap, size_t *len, double timeout_s)
{
    kb_msg_hdr h;
    double t0 = kb_now_s();
    int rc = kb_read_full(fd, &h, sizeof h, timeout_s);
    if (rc != 0)
        return rc;
    if (h.magic != KB_MSG_MAGIC || h.len > cap) {
        *type = h.type;
        *len = h.magic == KB_MSG_MAGIC ? (size_t)h.len : 0;
        return -3;
    }
    double left = timeout_s - (kb_now_s() - t0);
    if (h.len && (rc = kb_read_full(fd, buf, (size_t)h.len, left > 1.0 ? left : 1.0)) != 0)
        return rc;
    *type = h.type;
    *len = (size_t)h.len;
    return 0;
}
