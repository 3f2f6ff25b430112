import Foundation

/// Carries a subscription's changes from the client's thread to a `RollcallRoomModel` on the main actor: roster
/// changes as at most one pending refresh (a patch's several changes, or several patches, become one read of the
/// roster), other changes one by one, in order. It goes through the main dispatch queue, the main actor's executor,
/// which runs what it is given in order.
final class RoomModelRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var refreshPending = false

    /// Follows the subscription; the relay keeps the model weakly, so a model nobody shows stops being updated.
    @MainActor
    func start(_ subscription: RoomSubscription, model: RollcallRoomModel) {
        let box = WeakModel(model)
        subscription.onChange { [self] change in
            switch change {
            case .snapshotReplaced, .participantAdded, .participantUpdated, .participantRemoved, .roomUpdated:
                self.scheduleRefresh(box)
            case .driftDetected:
                break
            case .eventReceived, .connectionLost, .resumed, .unsubscribed, .ended, .waiting:
                self.scheduleRefresh(box)
                Self.onMainActor { box.model?.take(change) }
            }
        }
    }

    private func scheduleRefresh(_ box: WeakModel) {
        let first = self.lock.withLock {
            defer { self.refreshPending = true }
            return !self.refreshPending
        }
        guard first else { return }
        Self.onMainActor {
            self.lock.withLock { self.refreshPending = false }
            box.model?.refresh()
        }
    }

    private static func onMainActor(_ work: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated { work() } }
    }
}

/// A weak reference to a model, sendable because the model is only touched on the main actor.
private final class WeakModel: @unchecked Sendable {
    @MainActor weak var model: RollcallRoomModel?

    @MainActor init(_ model: RollcallRoomModel) { self.model = model }
}
