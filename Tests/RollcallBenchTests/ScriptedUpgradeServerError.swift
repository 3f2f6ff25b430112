/// The scripted upgrade server could not start.
struct ScriptedUpgradeServerError: Error, CustomStringConvertible {
    let description: String
}
