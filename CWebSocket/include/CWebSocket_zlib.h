#ifndef CWEBSOCKET_ZLIB_H
#define CWEBSOCKET_ZLIB_H

#endif
