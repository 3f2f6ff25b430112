#if canImport(Glibc)
import Glibc
#endif
import RollcallCLI

exit(CommandRunner.run(Array(CommandLine.arguments.dropFirst())))
