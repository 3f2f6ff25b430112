extension RoomSubscription {
    /// The gateway took the subscription out of its room: publishes `.unsubscribed(reason)`, then ends the
    /// subscription (`.ended` with an error whose `unsubscribeReason` is the reason). The client has already
    /// forgotten it, so a reconnect does not join the room again.
    func unsubscribed(_ reason: RollcallUnsubscribeReason) {
        guard self.isActive else { return }
        self.broadcaster.publish(.unsubscribed(reason))
        self.end(RollcallError(.unsubscribed(reason)))
    }
}
