#include "CWebSocket.h"
