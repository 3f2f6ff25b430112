import RollcallClient
import Testing

/// The default reconnect policy, the same in the three clients (docs/CLIENT.md).
@Suite struct RollcallReconnectPolicyTests {
    @Test func theDefaultMakesTenAttemptsFrom200MillisecondsDoublingTo10Seconds() {
        let policy = RollcallReconnectPolicy()
        #expect(policy.maximumAttempts == 10)
        #expect(policy.initialDelay == 0.2 && policy.maximumDelay == 10 && policy.multiplier == 2)
        #expect(policy.jitter == 0.2)
    }
}
