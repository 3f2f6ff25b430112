import Foundation
import Testing

@testable import RollcallCLI
@testable import Rooms

/// What `rollcall ctl --help` tells an operator.
@Suite("rollcall ctl's help")
struct CtlCommandTests {
    @Test("the help names every moderator action and no other")
    func helpNamesEveryModeratorAction() throws {
        let help = CtlCommand.help
        let start = try #require(help.range(of: "a moderator action:"))
        let end = try #require(help.range(of: "permissions ROOM", range: start.upperBound..<help.endIndex))
        let names = help[start.upperBound..<end.lowerBound].split { $0 == "," || $0 == " " || $0 == "\n" }
            .map(String.init)
        #expect(Set(names) == Set(ModeratorAction.allCases.map(\.rawValue)))
        #expect(names.count == ModeratorAction.allCases.count)
    }
}
