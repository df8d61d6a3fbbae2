/// Carries a non-Sendable error's description across domains, where StrataError keeps its cause.
///
/// ```swift
/// throw StrataError(.sqlite, "Store operation failed", underlyingError: SendableDescription(error))
/// ```
package struct SendableDescription: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ error: any Error) { description = String(describing: error) }
}
