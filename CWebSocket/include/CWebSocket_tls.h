#ifndef CWEBSOCKET_TLS_H
#define CWEBSOCKET_TLS_H

#endif
