#ifndef CWEBSOCKET_TLS_H
#define CWEBSOCKET_TLS_H

// OpenSSL 3 for the TLS engine. Swift calls the OpenSSL functions directly; the wrappers below exist only for the
// macros the importer cannot see.
#include <stdint.h>
#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// SSL_OP_NO_TICKET: no stateless session tickets in TLS 1.2.
extern const uint64_t CWebSocket_SSL_OP_NO_TICKET;
/// SSL_OP_NO_RENEGOTIATION: refuse TLS 1.2 renegotiation.
extern const uint64_t CWebSocket_SSL_OP_NO_RENEGOTIATION;
/// SSL_OP_CIPHER_SERVER_PREFERENCE: the server's cipher order wins in TLS 1.2.
extern const uint64_t CWebSocket_SSL_OP_CIPHER_SERVER_PREFERENCE;

/// SSL_CTX_set_min_proto_version; returns 1 on success.
int CWebSocket_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
/// SSL_CTX_set_max_proto_version; returns 1 on success.
int CWebSocket_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
/// SSL_CTX_set_mode; returns the new mode bit mask.
long CWebSocket_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
/// SSL_CTX_set_session_cache_mode; returns the previous mode.
long CWebSocket_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode);
/// SSL_set_tlsext_host_name (SNI); returns 1 on success.
int CWebSocket_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
/// BIO_get_mem_ptr; returns 1 on success.
long CWebSocket_BIO_get_mem_ptr(BIO *bio, BUF_MEM **memory);

#endif
