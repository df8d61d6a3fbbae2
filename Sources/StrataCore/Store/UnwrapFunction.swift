/// Swift's force unwrap in a store query (``StoreExpression/unwrapped(_:)``):
/// its name in SQL, and the error a query fails with when the value is NULL.
///
/// ```swift
/// // #Predicate<Book> { $0.rating! > 3 } on a book without a rating
/// // SQLite: strata_unwrap("rating") > 3 raises; the fetch throws `failure`.
/// ```
package enum UnwrapFunction {
    package static let name = "strata_unwrap"
    package static let message = "the predicate force-unwraps a value that is nil in a stored row"

    package static var failure: StrataError {
        StrataError(.unsupportedPredicate, message + "; unwrap with ?? or test for nil first")
    }
}
