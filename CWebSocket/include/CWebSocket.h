#ifndef CWEBSOCKET_H
#define CWEBSOCKET_H

// Umbrella header of the C shims. Each area keeps its own header so that the shims stay small and separate.
#include "CWebSocket_zlib.h"
#include "CWebSocket_tls.h"
#include "CWebSocket_system.h"

#endif
