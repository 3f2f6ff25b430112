/// Who may receive an event (`RoomEvent.audience(in:)`): the room's subscribers, as their event modes take it, or
/// only the participant it is about, while the lists do not show that participant (hidden).
enum EventAudience: Hashable {
    /// Every subscriber whose event mode takes the event.
    case everyone
    /// Only the connections of this participant (its own events, while it is hidden).
    case participant(String)

    /// Whether a subscriber who is `uid` may receive the event.
    func admits(_ uid: String?) -> Bool {
        switch self {
        case .everyone: return true
        case .participant(let only): return only == uid
        }
    }
}
