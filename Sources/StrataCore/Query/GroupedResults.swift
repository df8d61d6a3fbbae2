import Foundation

/// One group of a grouped fetch: the values its objects share and the
/// aggregates computed over them, typed by the key paths and aggregates asked
/// for. A single key or aggregate is its value; several are a tuple.
///
/// ```swift
/// let groups = try context.fetchGroups(
///     of: FetchRequest<Book>(), by: \.genre, \.author?.name, computing: .count, .sum(\.pages))
/// for group in groups {
///     let (genre, author) = group.keys          // (String, String?)
///     let (books, pages) = group.values         // (Int, Int)
///     print(genre, author ?? "anonymous", books, pages)
/// }
/// ```
public struct FetchedGroup<Keys, Values> {
    /// The values the group's objects share, in the order of the key paths.
    public let keys: Keys
    /// The aggregates over the group's objects, in the order asked for.
    public let values: Values
}

extension FetchedGroup: Sendable where Keys: Sendable, Values: Sendable {}

/// A condition on a group's aggregates, SQL's `HAVING`: built by comparing
/// an ``Aggregate`` with a value and combined with `&&`, `||` and `!`. A
/// comparison with an aggregate that is `nil` (the minimum of no values) keeps
/// no group, as in SQL.
///
/// ```swift
/// let prolific = try context.fetchGroups(
///     of: FetchRequest<Book>(), by: \.author?.name, computing: .count,
///     having: .count >= 3 && .min(\.year) < 1950)
/// ```
public struct GroupCondition<Model: PersistentModel> {
    indirect enum Node {
        case compare(AggregateTerm<Model>, GroupQuery.Comparison, StoredValue)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
    }

    let node: Node

    /// Both conditions hold.
    public static func && (lhs: GroupCondition, rhs: GroupCondition) -> GroupCondition {
        GroupCondition(node: .and(lhs.node, rhs.node))
    }

    /// Either condition holds.
    public static func || (lhs: GroupCondition, rhs: GroupCondition) -> GroupCondition {
        GroupCondition(node: .or(lhs.node, rhs.node))
    }

    /// The condition does not hold (and is known).
    public static prefix func ! (condition: GroupCondition) -> GroupCondition {
        GroupCondition(node: .not(condition.node))
    }
}

/// One key of the order of grouped results: a grouping key or an aggregate,
/// forward or reverse. Groups that tie fall back to their keys, ascending.
///
/// ```swift
/// let busiest = try context.fetchGroups(
///     of: FetchRequest<Book>(), by: \.year, computing: .count,
///     sortBy: [.aggregate(.count, .reverse), .key(\.year)], limit: 5)
/// ```
public struct GroupOrder<Model: PersistentModel> {
    enum Term {
        case key(AnyKeyPath)
        case aggregate(AggregateTerm<Model>)
    }

    let term: Term
    let order: SortOrder

    /// By one of the key paths the results are grouped by.
    public static func key<V>(_ keyPath: KeyPath<Model, V>, _ order: SortOrder = .forward) -> GroupOrder {
        GroupOrder(term: .key(keyPath), order: order)
    }

    /// By an aggregate of each group, asked for or not.
    public static func aggregate<V>(_ aggregate: Aggregate<Model, V>, _ order: SortOrder = .forward) -> GroupOrder {
        GroupOrder(term: .aggregate(AggregateTerm(aggregate)), order: order)
    }
}

/// An aggregate without its result type: what a condition or order names.
struct AggregateTerm<Model: PersistentModel> {
    let function: AggregateFunction
    let keyPath: AnyKeyPath?
    let read: (Model) -> StoredValue

    init<Value>(_ aggregate: Aggregate<Model, Value>) {
        function = aggregate.function
        keyPath = aggregate.keyPath
        read = aggregate.read
    }

    /// Aggregates are the same when they compute the same function of the same value.
    func isSame(as other: AggregateTerm) -> Bool {
        function == other.function && keyPath == other.keyPath
    }
}

// MARK: - Comparing aggregates

extension Aggregate where Value: PersistentValue & Comparable {
    /// The group's aggregate is below the value.
    public static func < (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .lessThan, rhs) }
    /// The group's aggregate is at most the value.
    public static func <= (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .lessThanOrEqual, rhs) }
    /// The group's aggregate is above the value.
    public static func > (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .greaterThan, rhs) }
    /// The group's aggregate is at least the value.
    public static func >= (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .greaterThanOrEqual, rhs) }
    /// The group's aggregate is the value.
    public static func == (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .equal, rhs) }
    /// The group's aggregate is another value.
    public static func != (lhs: Aggregate, rhs: Value) -> GroupCondition<Model> { compare(lhs, .notEqual, rhs) }
}

extension Aggregate {
    /// The group's aggregate (a minimum, maximum or average) is below the value.
    public static func < <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .lessThan, rhs)
    }
    /// The group's aggregate is at most the value.
    public static func <= <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .lessThanOrEqual, rhs)
    }
    /// The group's aggregate is above the value.
    public static func > <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .greaterThan, rhs)
    }
    /// The group's aggregate is at least the value.
    public static func >= <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .greaterThanOrEqual, rhs)
    }
    /// The group's aggregate is the value.
    public static func == <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .equal, rhs)
    }
    /// The group's aggregate is another value.
    public static func != <V: PersistentValue & Comparable>(lhs: Aggregate, rhs: V) -> GroupCondition<Model> where Value == V? {
        compare(lhs, .notEqual, rhs)
    }

    private static func compare<V: PersistentValue>(
        _ aggregate: Aggregate, _ comparison: GroupQuery.Comparison, _ value: V
    ) -> GroupCondition<Model> {
        GroupCondition(node: .compare(AggregateTerm(aggregate), comparison, value.storedValue))
    }
}
