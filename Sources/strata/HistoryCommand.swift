import ArgumentParser
import Foundation
import Strata

/// `strata history STORE`: the transactions a store's history records.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a store's history: transactions with their author, context and changes.")

    @OptionGroup var options: StoreFileOptions

    @Option(name: .long, help: "Only transactions after this token.")
    var after: Int64?

    @Option(name: .long, help: "Only transactions by this author.")
    var author: String?

    func run() throws {
        let listing = try StoreBrowser.history(at: options.file, after: after, author: author)
        if options.json {
            try options.printJSON(listing)
            return
        }
        if listing.transactions.isEmpty { print("\(listing.fileName): no transactions") }
        let dates = ISO8601DateFormatter()
        for transaction in listing.transactions {
            let who = [transaction.author, transaction.contextName].compactMap { $0 }.joined(separator: ", ")
            print("\(transaction.token)  \(dates.string(from: transaction.date))  \(who.isEmpty ? "-" : who)")
            for change in transaction.changes {
                let properties = change.updatedProperties.map { " (\($0.joined(separator: ", ")))" } ?? ""
                print("  \(change.type.rawValue) \(change.entityName) \(change.primaryKey)\(properties)")
            }
        }
    }
}
