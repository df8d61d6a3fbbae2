/// A `Sendable` struct of chosen properties of a model, read straight from
/// the store: no objects, no identity map, no change tracking.
///
/// A fetch of projections is for reading: lists, exports, responses a server
/// sends, values handed to another isolation domain. Declare the struct with
/// `@Projection(of:)` (from the `Strata` module), naming each property as the model does, and fetch it
/// with ``ManagedObjectContext/fetch(_:as:)``:
///
/// ```swift
/// @Projection(of: Book.self)
/// struct BookRow {
///     let id: ObjectID          // the row's own ID (optional to declare)
///     let title: String
///     let year: Int
///     let author: ObjectID?     // a to-one relationship: the ID it points to
/// }
///
/// let rows = try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\.title)]), as: BookRow.self)
/// ```
///
/// The request's predicate, order, offset and limit apply, and the context's
/// unsaved changes count as they do for ``ManagedObjectContext/fetch(_:)``.
///
/// Written by hand, a projection lists its properties and reads them in the
/// same order:
///
/// ```swift
/// struct Title: ModelProjection {
///     static var projectedProperties: [PartialKeyPath<Book>] { [\Book.title] }
///     let title: String
///     init(reading row: inout ProjectionRow) throws(StrataError) {
///         title = try row.next(as: String.self)
///     }
/// }
/// ```
public protocol ModelProjection: Sendable {
    associatedtype Model: PersistentModel
    /// The model's attributes and to-one relationships the projection reads,
    /// in the order ``init(reading:)`` reads them.
    static var projectedProperties: [PartialKeyPath<Model>] { get }
    /// Reads one row: one `next(as:)` per projected property,
    /// in order.
    init(reading row: inout ProjectionRow) throws(StrataError)
}
