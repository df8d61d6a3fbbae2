import ArgumentParser
import Foundation
import Logging
import Strata

/// The `strata` command-line tool.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata: a Core Data-style object graph and persistence stack for Swift.",
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, InspectCommand.self, FetchCommand.self, HistoryCommand.self, CheckCommand.self,
            ExportCommand.self, ImportCommand.self, MigrateCommand.self, SchemaCommand.self,
        ])

    func run() async throws {
        throw CleanExit.helpRequest(self)
    }

    /// Runs the command; a failure is one line on standard error (a JSON
    /// object with `--json`) and exit status 1.
    static func main() async {
        // Stores log their migrations at info; a command shows only what goes wrong beyond its one line.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let message = fullMessage(for: error)
            let status = exitCode(for: error)
            // Usage errors, in JSON too when asked; help and the version as they are.
            if CommandOutput.isJSON, status != .success, !message.isEmpty {
                CommandOutput.fail(code: "usage", message: message, status: status.rawValue)
            }
            exit(withError: error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as StrataError {
            CommandOutput.fail(code: error.code.rawValue, message: error.message)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch {
            CommandOutput.fail(code: "error", message: "\(error)")
        }
    }
}

/// What the commands print besides their results.
enum CommandOutput {
    /// Whether the command line asked for JSON (`--json`).
    static var isJSON: Bool { CommandLine.arguments.dropFirst().contains("--json") }

    /// Prints a failure and exits: `strata: message`, or with `--json`
    /// `{"error": {"code": …, "message": …}}`, on standard error.
    static func fail(code: String, message: String, status: Int32 = 1) -> Never {
        let text: String
        if isJSON {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(["error": ["code": code, "message": message]])) ?? Data()
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = "strata: \(message)"
        }
        FileHandle.standardError.write(Data((text + "\n").utf8))
        exit(status)
    }

    /// `1 row`, `2 rows`.
    static func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number) \(number == 1 ? singular : plural ?? singular + "s")"
    }
}
