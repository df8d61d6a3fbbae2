/// Where a member row of a many-owner read stands among its owner's members.
///
/// A store reads the members of many owners either through its index, each
/// owner's rows together and in their stored order (`.next`), or, when the
/// owners are (nearly) every owner there is, in table order, each row with
/// the position it holds (`.stored`); the reader then files each row with its
/// owner and puts each owner's rows in order itself.
///
/// ```swift
/// try store.fetchMembers(entityIndex: owner.index, ordinal: ordinal, owners: keys, everyOwner: true) {
///     owner, position, row in
///     rows.add(row, owner: owner, position: position)
/// }
/// ```
package enum MemberPosition: Sendable, Equatable {
    /// The row follows the rows read before it for the same owner.
    case next
    /// The row's stored position: an owner's rows order by it, then by key,
    /// which is the order rows of a table scan come in.
    case stored(Int64)
    /// A stored position that is not an integer (none, or a value another
    /// program wrote): it orders as the store orders values (`StoredValueOrder`;
    /// no position comes first).
    case storedValue(StoredValue)
}
