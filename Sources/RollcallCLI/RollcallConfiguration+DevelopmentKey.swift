extension RollcallConfiguration {
    /// Refuses the development key on a listener beyond loopback: its secret is in the repository, so anyone who
    /// can reach the port could mint an admin token for any room. Loopback listeners keep it (development on one
    /// machine); `auth.allow_development_key = true` allows it anywhere, for a lab network.
    ///
    /// - Throws: `ConfigError` naming the key, the address, and how to set a key of one's own.
    func refuseDevelopmentKeyBeyondLoopback() throws(ConfigError) {
        guard !self.auth.allowsDevelopmentKeyBeyondLoopback, let key = self.auth.developmentKeyInUse else { return }
        let listeners =
            self.server.listen.map { ("server.listen", $0) } + self.server.tlsListen.map { ("tls.listen", $0) }
        guard let (setting, address) = listeners.first(where: { !$0.1.isLoopback }) else { return }
        throw ConfigError(
            "auth.keys: '\(key)' is the development key from config/rollcall.conf, whose secret anyone can read, "
                + "and \(setting) has \(address), beyond loopback: anyone reaching it could mint an admin token. "
                + "Set a key of your own (auth.keys = main:SECRET of at least 32 bytes, for example "
                + "ROLLCALL_AUTH_KEYS=main:$(openssl rand -hex 32), or --set auth.keys=...), listen on 127.0.0.1 "
                + "only, or, for a lab network, set auth.allow_development_key = true")
    }
}
