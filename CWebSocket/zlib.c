#include "CWebSocket.h"

int CWebSocket_deflateInit2(z_streamp stream, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

int CWebSocket_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
