/// Why a scripted server could not start.
struct ScriptedServerError: Error, CustomStringConvertible {
    let description: String
}
