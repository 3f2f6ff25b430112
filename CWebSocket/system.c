#define _GNU_SOURCE
#include <sys/socket.h>
#include <pthread.h>
#include "CWebSocket.h"

int CWebSocket_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

void CWebSocket_setThreadName(pthread_t thread, const char *name) {
    (void)pthread_setname_np(thread, name);
}
