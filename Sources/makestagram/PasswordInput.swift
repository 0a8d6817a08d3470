import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a password: from standard input when asked to (scripts), otherwise at a prompt that does not echo.
struct PasswordInput: ParsableArguments {
    @Flag(help: "Read the password from standard input (one line) instead of prompting.")
    var passwordStdin = false

    func read(prompt: String = "Password: ") throws -> String {
        if passwordStdin || isatty(STDIN_FILENO) == 0 {
            guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("no password on standard input")
            }
            return line
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var settings = termios()
        tcgetattr(STDIN_FILENO, &settings)
        var silent = settings
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = Swift.readLine(strippingNewline: true), !line.isEmpty else {
            throw ValidationError("no password given")
        }
        return line
    }
}
