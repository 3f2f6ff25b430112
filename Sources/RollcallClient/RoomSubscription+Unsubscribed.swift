extension RoomSubscription {
    /// The join waits in the room's waiting room: publishes `.waiting(position:)`, and `waitingPosition` says where.
    func waiting(position: Int) {
        guard self.isActive else { return }
        let handler = self.lock.withLock { () -> (@Sendable (Int) -> Void)? in
            self.currentWaitingPosition = position
            return self.waitingHandler
        }
        handler?(position)
        self.broadcaster.publish(.waiting(position: position))
    }

    /// The gateway took the subscription out of its room: publishes `.unsubscribed(reason)`, then ends the
    /// subscription (`.ended` with an error whose `unsubscribeReason` is the reason). The client has already
    /// forgotten it, so a reconnect does not join the room again.
    func unsubscribed(_ reason: RollcallUnsubscribeReason) {
        guard self.isActive else { return }
        self.broadcaster.publish(.unsubscribed(reason))
        self.end(RollcallError(.unsubscribed(reason)))
    }
}
