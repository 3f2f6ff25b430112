#ifndef CWEBSOCKET_SYSTEM_H
#define CWEBSOCKET_SYSTEM_H

#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <netinet/tcp.h>

/// accept4(2), which glibc declares only under _GNU_SOURCE.
int CWebSocket_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#include <pthread.h>

/// pthread_setname_np(3), which glibc declares only under _GNU_SOURCE.
void CWebSocket_setThreadName(pthread_t thread, const char *name);

#endif
