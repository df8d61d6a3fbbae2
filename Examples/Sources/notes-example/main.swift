// A command-line notes app on Strata: two models joined many-to-many, fetches with
// #Predicate and SortDescriptor, and case- and accent-insensitive search.
//   swift run --package-path Examples notes-example add "Groceries" "milk, eggs" --tag home
//   swift run --package-path Examples notes-example list --tag home      (store: --store DIR, $NOTES_STORE, or the default)

import Foundation
import Strata

@Model final class Note {
    var title: String
    var body: String
    var created: Date
    var pinned: Bool = false
    @Relationship(inverse: \Tag.notes) var tags: [Tag] = []

    init(title: String, body: String, created: Date = Date()) {
        self.title = title
        self.body = body
        self.created = created
    }
}

@Model final class Tag {
    @Attribute(.unique) var name: String
    var notes: [Note] = []

    init(name: String) {
        self.name = name
    }
}

struct NotesError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    static let usage = """
    usage: notes-example [--store DIR] COMMAND
      add TITLE [BODY] [--tag NAME ...]   add a note, with any number of tags
      list [--tag NAME]                   pinned notes first, then newest first
      search TEXT                         notes whose title or body contains TEXT
      pin TITLE | unpin TITLE             pin or unpin the notes with this title
      delete TITLE                        delete the notes with this title
    The store lives in DIR, else in $NOTES_STORE, else in Strata's default directory.
    """
}

/// The command line as positional words and `--name value` options (repeatable).
struct Arguments {
    var words: [String] = []
    var options: [String: [String]] = [:]

    init(_ raw: [String]) throws(NotesError) {
        var rest = raw[...]
        while let word = rest.popFirst() {
            guard word.hasPrefix("--") else {
                words.append(word)
                continue
            }
            let name = String(word.dropFirst(2))
            guard name == "store" || name == "tag" else { throw NotesError("unknown option \(word)") }
            guard let value = rest.popFirst() else { throw NotesError("\(word) needs a value") }
            options[name, default: []].append(value)
        }
    }
}

/// The store the user asked for, or nil for the container's default
/// (`<PersistentContainer.defaultDirectoryURL>/Notes.sqlite`).
func storeDescription(_ arguments: Arguments) -> StoreDescription? {
    let directory = arguments.options["store"]?.last ?? ProcessInfo.processInfo.environment["NOTES_STORE"]
    guard let directory, !directory.isEmpty else { return nil }
    let url = URL(fileURLWithPath: directory, isDirectory: true).appendingPathComponent("Notes.sqlite")
    return StoreDescription(url: url)
}

/// The tag with this name, inserted if the store has none: names are unique,
/// so an existing tag is reused rather than duplicated.
func tag(named name: String, in context: ManagedObjectContext) throws -> Tag {
    var request = FetchRequest<Tag>(predicate: #Predicate { $0.name == name })
    request.fetchLimit = 1
    if let existing = try context.fetch(request).first { return existing }
    let tag = Tag(name: name)
    context.insert(tag)
    return tag
}

/// The notes with one pinned state (and tag), newest first. `Bool` is not
/// `Comparable`, so no `SortDescriptor` orders by `pinned`: `list` fetches the
/// pinned notes, then the rest.
func notes(pinned: Bool, tagged tagName: String?) -> FetchRequest<Note> {
    let predicate: Predicate<Note>
    if let tagName {
        predicate = #Predicate<Note> { note in note.pinned == pinned && note.tags.contains { tag in tag.name == tagName } }
    } else {
        predicate = #Predicate<Note> { note in note.pinned == pinned }
    }
    return FetchRequest<Note>(predicate: predicate, sortBy: [SortDescriptor(\.created, order: .reverse), SortDescriptor(\.title)])
}

/// The notes titled exactly `title`; throws when there are none.
func notes(titled title: String, in context: ManagedObjectContext) throws -> [Note] {
    let found = try context.fetch(FetchRequest<Note>(predicate: #Predicate { $0.title == title }))
    if found.isEmpty { throw NotesError("no note titled \"\(title)\"") }
    return found
}

func show(_ note: Note) {
    let tags = note.tags.map(\.name).sorted()
    let when = note.created.formatted(date: .numeric, time: .shortened)
    print("\(note.pinned ? "*" : " ") \(when)  \(note.title)\(tags.isEmpty ? "" : "  [\(tags.joined(separator: ", "))]")")
    if !note.body.isEmpty { print("    \(note.body)") }
}

/// Runs one command. `container.perform` gives each a fresh context, saves it
/// if the command changed anything, and resets it so no object outlives it.
func run(_ arguments: Arguments, in container: PersistentContainer) throws {
    guard let command = arguments.words.first else { throw NotesError("no command given (run without arguments for usage)") }
    let words = Array(arguments.words.dropFirst())
    switch command {
    case "add":
        guard (1...2).contains(words.count) else { throw NotesError("usage: add TITLE [BODY] [--tag NAME ...]") }
        let title = words[0]
        let body = words.count == 2 ? words[1] : ""
        var tagNames: [String] = []
        for name in arguments.options["tag", default: []] where !tagNames.contains(name) { tagNames.append(name) }
        try container.perform { context in
            let note = Note(title: title, body: body)
            context.insert(note)
            note.tags = try tagNames.map { try tag(named: $0, in: context) }
        }
        print("Added \"\(title)\"\(tagNames.isEmpty ? "" : " tagged \(tagNames.joined(separator: ", "))").")
    case "list":
        guard words.isEmpty else { throw NotesError("usage: list [--tag NAME]") }
        let tagName = arguments.options["tag"]?.last
        try container.perform { context in
            let found = try context.fetch(notes(pinned: true, tagged: tagName))
                + context.fetch(notes(pinned: false, tagged: tagName))
            if found.isEmpty { print(tagName.map { "No notes tagged \($0)." } ?? "No notes yet.") }
            found.forEach(show)
        }
    case "search":
        guard !words.isEmpty else { throw NotesError("usage: search TEXT") }
        // `folded` drops case and diacritics on both sides, in every store and on every platform.
        let query = words.joined(separator: " ").folded
        let request = FetchRequest<Note>(
            predicate: #Predicate { $0.title.folded.contains(query) || $0.body.folded.contains(query) },
            sortBy: [SortDescriptor(\.created, order: .reverse)])
        try container.perform { context in
            let found = try context.fetch(request)
            if found.isEmpty { print("Nothing matches.") }
            found.forEach(show)
        }
    case "pin", "unpin":
        guard words.count == 1 else { throw NotesError("usage: \(command) TITLE") }
        let pinned = command == "pin"
        let count = try container.perform { context in
            let found = try notes(titled: words[0], in: context)
            for note in found { note.pinned = pinned }
            return found.count
        }
        print("\(pinned ? "Pinned" : "Unpinned") \(count) note\(count == 1 ? "" : "s").")
    case "delete":
        guard words.count == 1 else { throw NotesError("usage: delete TITLE") }
        let count = try container.perform { context in
            let found = try notes(titled: words[0], in: context)
            found.forEach(context.delete)
            return found.count
        }
        // Deleting a note only unlinks its tags (the default delete rule, nullify);
        // tags no note uses any more go in a second unit of work, once the first is saved.
        try container.perform { context in
            try context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.notes.isEmpty })).forEach(context.delete)
        }
        print("Deleted \(count) note\(count == 1 ? "" : "s").")
    default:
        throw NotesError("unknown command \(command) (run without arguments for usage)")
    }
}

let raw = Array(CommandLine.arguments.dropFirst())
if raw.isEmpty || raw == ["help"] || raw == ["--help"] || raw == ["-h"] {
    print(NotesError.usage)
    exit(0)
}
do {
    let arguments = try Arguments(raw)
    let container = try PersistentContainer(name: "Notes", schema: Schema(Note.self, Tag.self))
    if let description = storeDescription(arguments) {
        container.storeDescriptions = [description]
    }
    try await container.loadPersistentStores()
    try run(arguments, in: container)
} catch {
    FileHandle.standardError.write(Data("notes-example: \(error)\n".utf8))
    exit(1)
}
