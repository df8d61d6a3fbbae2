// A Hummingbird server on Strata: the container is a service of the application's
// ServiceGroup, so on SIGTERM or SIGINT the server stops taking requests first, then the
// container finishes the saves in flight and closes its store.
//   swift run --package-path Examples library-server --port 8080 [--store DIR | --postgres URL]
//   curl -X POST localhost:8080/books -d '{"title": "The Dispossessed", "year": 1974}'
//   curl localhost:8080/books

import Foundation
import Hummingbird
import Logging
import Strata
import StrataPostgres
import StrataServiceLifecycle

@Model final class Book {
    var title: String
    var year: Int
    init(title: String, year: Int) { self.title = title; self.year = year }
}

/// A book as the API sends and receives it: read straight from the store as a projection.
@Projection(of: Book.self)
struct BookBody: ResponseCodable {
    var title: String
    var year: Int
}

/// The command line: `--port N`, and `--store DIR` or `--postgres URL`.
struct Options {
    var port = 8080
    var store: StoreDescription?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let word = rest.popFirst() {
            guard let value = rest.popFirst() else { throw ServerError("\(word) needs a value") }
            switch word {
            case "--port":
                guard let port = Int(value), (1...65535).contains(port) else { throw ServerError("--port takes 1 to 65535, not \(value)") }
                self.port = port
            case "--store":
                store = StoreDescription(url: URL(fileURLWithPath: value, isDirectory: true).appendingPathComponent("Library.sqlite"))
            case "--postgres":
                var description = try StoreDescription.postgres(url: value)
                description.historyTracking = true
                description.remoteChangeNotifications = true
                store = description
            default:
                throw ServerError("unknown option \(word) (--port N, --store DIR, --postgres URL)")
            }
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func router(for container: PersistentContainer) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("books") { _, _ -> [BookBody] in
        try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.year), SortDescriptor(\.title)]), as: BookBody.self)
        }
    }
    router.post("books") { request, context -> EditedResponse<BookBody> in
        let body = try await request.decode(as: BookBody.self, context: context)
        guard !body.title.isEmpty else { throw HTTPError(.badRequest, message: "A book needs a title") }
        try await container.performBackgroundTask { context in
            context.insert(Book(title: body.title, year: body.year))
            try context.save()
        }
        return EditedResponse(status: .created, response: body)
    }
    return router
}

var logger = Logger(label: "library-server")
logger.logLevel = .info
do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let container = try PersistentContainer(name: "Library", schema: Schema(Book.self), logger: logger)
    if let store = options.store { container.storeDescriptions = [store] }
    // Loaded before the server starts, so no request meets an unloaded store.
    try await container.loadPersistentStores()
    let app = Application(
        router: router(for: container),
        configuration: .init(address: .hostname("127.0.0.1", port: options.port)),
        services: [container],
        logger: logger)
    try await app.runService()
    logger.info("Stopped; the store is closed")
} catch {
    FileHandle.standardError.write(Data("library-server: \(error)\n".utf8))
    exit(1)
}
