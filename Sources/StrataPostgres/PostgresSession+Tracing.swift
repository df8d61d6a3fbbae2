import StrataCore
import Tracing

extension PostgresSession {
    /// Runs one statement as a client span (`SELECT app|library`) under the
    /// operation that sent it, with the statement's text: values are bound,
    /// never in the text, so the span holds none of them. With no tracer
    /// bootstrapped it only looks at the tracer.
    ///
    /// ```swift
    /// let rows = try traced(sql) { () throws(StrataError) in try answer(to: query, doing: "reading books") }
    /// ```
    func traced<Result>(_ sql: String, _ body: () throws(StrataError) -> Result) throws(StrataError) -> Result {
        if InstrumentationSystem.tracer is NoOpTracer { return try body() }
        let operation = Self.operationName(of: sql)
        let span = startSpan("\(operation) \(telemetry.identity.namespace)", ofKind: .client)
        defer { span.end() }
        telemetry.identity.describe(span)
        span.updateAttributes { attributes in
            attributes["db.operation.name"] = operation
            attributes["db.query.text"] = sql
        }
        do {
            return try body()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            span.attributes["error.type"] = error.code.rawValue
            throw error
        }
    }

    /// The statement's first word, as OpenTelemetry's `db.operation.name`.
    static func operationName(of sql: String) -> String {
        let word = sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }
        return word.isEmpty ? "SQL" : word.uppercased()
    }
}
