#ifndef CWEBSOCKET_ZLIB_H
#define CWEBSOCKET_ZLIB_H

#include <zlib.h>

// deflateInit2 and inflateInit2 are macros that pass the library version and the size of z_stream; the Swift
// importer cannot see macros with arguments, so these functions expand them.

int CWebSocket_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy);

int CWebSocket_inflateInit2(z_streamp stream, int windowBits);

#endif
