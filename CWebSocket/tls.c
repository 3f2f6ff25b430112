#include "CWebSocket.h"

const uint64_t CWebSocket_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
const uint64_t CWebSocket_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
const uint64_t CWebSocket_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;

int CWebSocket_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

int CWebSocket_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

long CWebSocket_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

long CWebSocket_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

int CWebSocket_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

long CWebSocket_BIO_get_mem_ptr(BIO *bio, BUF_MEM **memory) {
    return BIO_get_mem_ptr(bio, memory);
}
