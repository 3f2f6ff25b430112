internal import CWebSocket
internal import Glibc

/// A throwaway self-signed certificate and its private key, written as PEM files.
///
/// For tests and local development only: the key is an EC P-256 key, the certificate signs itself with SHA-256, and
/// nothing but the files themselves vouches for it. Clients must trust the certificate file explicitly.
public struct TLSSelfSignedCertificate: Sendable {
    /// The PEM file holding the certificate.
    public let certificatePath: String
    /// The PEM file holding the PKCS #8 private key, readable by the owner only.
    public let privateKeyPath: String

    /// Generates a key pair and a self-signed certificate and writes them to `directory`.
    ///
    /// The files are named `certificate.pem` and `private-key.pem`; existing files of those names are replaced.
    ///
    /// - Parameters:
    ///   - directory: An existing directory to write the two files to.
    ///   - commonName: The subject common name.
    ///   - dnsNames: Host names for the subject alternative name extension.
    ///   - ipAddresses: IPv4 or IPv6 addresses, in text form, for the subject alternative name extension.
    ///   - validityDays: How long the certificate is valid, from an hour ago.
    /// - Returns: The paths of the two files.
    /// - Throws: ``TLSError/Kind/certificateGenerationFailed`` when OpenSSL fails or a file cannot be
    ///   written.
    public static func generate(
        in directory: String,
        commonName: String = "localhost",
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1", "::1"],
        validityDays: Int = 30
    ) throws(TLSError) -> TLSSelfSignedCertificate {
        ERR_clear_error()
        let key = try TLSSelfSignedCertificate.makeKey()
        defer { EVP_PKEY_free(key) }
        let certificate = try TLSSelfSignedCertificate.makeCertificate(
            key: key,
            commonName: commonName,
            subjectAlternativeNames: dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" },
            validityDays: validityDays
        )
        defer { X509_free(certificate) }

        let certificatePEM = try TLSSelfSignedCertificate.pem("certificate") { bio in
            PEM_write_bio_X509(bio, certificate)
        }
        let keyPEM = try TLSSelfSignedCertificate.pem("private key") { bio in
            PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil)
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let result = TLSSelfSignedCertificate(
            certificatePath: base + "certificate.pem",
            privateKeyPath: base + "private-key.pem"
        )
        try TLSSelfSignedCertificate.write(certificatePEM, to: result.certificatePath, mode: 0o644)
        try TLSSelfSignedCertificate.write(keyPEM, to: result.privateKeyPath, mode: 0o600)
        return result
    }

    private static func makeKey() throws(TLSError) -> OpaquePointer {
        guard let parameters = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw TLSError(.certificateGenerationFailed, "cannot create an EC key context")
        }
        defer { EVP_PKEY_CTX_free(parameters) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(parameters) == 1,
            EVP_PKEY_CTX_set_group_name(parameters, "P-256") == 1,
            EVP_PKEY_generate(parameters, &key) == 1,
            let key
        else {
            throw TLSError(.certificateGenerationFailed, "cannot generate a P-256 key")
        }
        return key
    }

    private static func makeCertificate(
        key: OpaquePointer,
        commonName: String,
        subjectAlternativeNames: [String],
        validityDays: Int
    ) throws(TLSError) -> OpaquePointer {
        guard let certificate = X509_new() else {
            throw TLSError(.certificateGenerationFailed, "cannot create a certificate")
        }
        var built = false
        defer {
            if !built {
                X509_free(certificate)
            }
        }
        let name = X509_get_subject_name(certificate)
        guard X509_set_version(certificate, 2) == 1,
            ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int.max)) == 1,
            X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
            X509_gmtime_adj(X509_getm_notAfter(certificate), validityDays * 86_400) != nil,
            X509_set_pubkey(certificate, key) == 1,
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
            X509_set_issuer_name(certificate, name) == 1
        else {
            throw TLSError(.certificateGenerationFailed, "cannot fill in the certificate for \(commonName)")
        }
        var extensions: [(Int32, String)] = [(NID_basic_constraints, "critical,CA:FALSE")]
        if !subjectAlternativeNames.isEmpty {
            extensions.append((NID_subject_alt_name, subjectAlternativeNames.joined(separator: ",")))
        }
        for (nid, value) in extensions {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let `extension` = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError(.certificateGenerationFailed, "cannot encode the certificate extension \(value)")
            }
            defer { X509_EXTENSION_free(`extension`) }
            guard X509_add_ext(certificate, `extension`, -1) == 1 else {
                throw TLSError(.certificateGenerationFailed, "cannot add the certificate extension \(value)")
            }
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else {
            throw TLSError(.certificateGenerationFailed, "cannot sign the certificate")
        }
        built = true
        return certificate
    }

    /// Runs `encode` against a memory buffer and returns what it wrote.
    private static func pem(
        _ what: String,
        _ encode: (OpaquePointer) -> Int32
    ) throws(TLSError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw TLSError(.certificateGenerationFailed, "cannot create a memory buffer")
        }
        defer { BIO_free(bio) }
        guard encode(bio) == 1 else {
            throw TLSError(.certificateGenerationFailed, "cannot encode the \(what) as PEM")
        }
        let count = BIO_ctrl_pending(bio)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(count)) }
        guard read == Int32(count) else {
            throw TLSError(.certificateGenerationFailed, "cannot collect the \(what) PEM")
        }
        return bytes
    }

    /// Replaces the file at `path` with `bytes`, creating it with `mode`.
    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t) throws(TLSError) {
        _ = unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw TLSError(.certificateGenerationFailed, "cannot create \(path): errno \(errno)")
        }
        defer { _ = close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR {
                    continue
                }
                throw TLSError(.certificateGenerationFailed, "cannot write \(path): errno \(errno)")
            }
            offset += written
        }
    }
}
