import Foundation
import Metrics
import Tracing

/// A store in OpenTelemetry's database terms: what its spans and metrics say
/// it is.
///
/// ```swift
/// DatabaseIdentity(system: "postgresql", namespace: "app.library", serverAddress: "db", serverPort: 5432)
/// ```
package struct DatabaseIdentity: Sendable, Hashable {
    /// `db.system.name`: `sqlite`, `postgresql`, or `strata.memory`.
    package var system: String
    /// `db.namespace`: the file's name, or PostgreSQL's database and schema.
    package var namespace: String
    /// `server.address` and `server.port`, for a store behind a network.
    package var serverAddress: String?
    package var serverPort: Int?

    package init(system: String, namespace: String, serverAddress: String? = nil, serverPort: Int? = nil) {
        self.system = system
        self.namespace = namespace
        self.serverAddress = serverAddress
        self.serverPort = serverPort
    }

    /// The attributes every span of this store carries.
    package func describe(_ span: any Span) {
        span.updateAttributes { attributes in
            attributes["db.system.name"] = system
            attributes["db.namespace"] = namespace
            if let serverAddress { attributes["server.address"] = serverAddress }
            if let serverPort { attributes["server.port"] = serverPort }
        }
    }
}

/// The spans and metrics of one loaded store, made when it loads, and the
/// gate its operations pass (see ``OperationGate``).
///
/// Each operation a context or container asks of the store (a fetch, a save,
/// a batch request, a migration) is a client span named as OpenTelemetry's
/// database conventions say (`fetch Book`, `save Library.sqlite`) and a
/// `db.client.operation.duration` timer. Rows read and written and conflicts
/// met are counters. With no tracer bootstrapped an operation costs one look
/// at the tracer; metrics made before `MetricsSystem.bootstrap` stay no-ops,
/// as swift-metrics' do, and then no clock is read either.
///
/// ```swift
/// let objects = try telemetry.measure(.fetch, collection: "Book") { report in
///     let rows = try store.fetch(plan)
///     report.rows = rows.count
///     return rows
/// }
/// ```
package final class StoreTelemetry: Sendable {
    /// What a context or container asks of a store.
    package enum Operation: String, Sendable, CaseIterable {
        case fetch, count, aggregate, save
        case batchInsert = "batch insert", batchUpdate = "batch update", batchDelete = "batch delete"
        case migrate
    }

    /// What an operation found out while it ran, for its span and metrics.
    package struct Report {
        /// Rows read or written.
        package var rows: Int?
        /// Objects a save inserts, updates and deletes.
        package var inserted = 0, updated = 0, deleted = 0
        /// The context's name and author.
        package var contextName: String?, author: String?
    }

    package let identity: DatabaseIdentity
    /// Every measured operation passes it, so closing the store can let them finish.
    package let gate = OperationGate()
    /// Whether a metrics backend was bootstrapped when the store loaded.
    private let measures: Bool
    private let durations: [Operation: Metrics.Timer]
    private let rowsRead: Counter
    private let rowsWritten: Counter

    /// Where its metrics are made, those made later (a failure's, a conflict's) too.
    package let metricsFactory: any MetricsFactory

    /// Metrics come from `factory`: the one bootstrapped, or the one a
    /// container captured where it was asked to load (a task may bind its own
    /// with `withMetricsFactory`, which a store opening on another thread would miss).
    package init(_ identity: DatabaseIdentity, metricsFactory factory: any MetricsFactory = MetricsSystem.factory) {
        self.identity = identity
        metricsFactory = factory
        measures = !(factory is NOOPMetricsHandler)
        let dimensions = [("db.system.name", identity.system), ("db.namespace", identity.namespace)]
        durations = Dictionary(uniqueKeysWithValues: Operation.allCases.map { operation in
            (operation, Metrics.Timer(
                label: "db.client.operation.duration", dimensions: dimensions + [("db.operation.name", operation.rawValue)],
                preferredDisplayUnit: .seconds, factory: factory))
        })
        rowsRead = Counter(label: "strata.rows.read", dimensions: dimensions, factory: factory)
        rowsWritten = Counter(label: "strata.rows.written", dimensions: dimensions, factory: factory)
    }

    /// Runs `body` as `operation` on `collection` (an entity's name). An
    /// operation `nested` in another one (a fetch in a save's hook) is inside
    /// the gate already, so closing lets it run.
    package func measure<T>(
        _ operation: Operation, collection: String? = nil, nested: Bool = false, _ body: (inout Report) throws -> T
    ) throws -> T {
        if !nested { try gate.enter() }
        defer { if !nested { gate.leave() } }
        let started = measures ? ContinuousClock.now : nil
        var report = Report()
        do {
            let result: T
            if InstrumentationSystem.tracer is NoOpTracer {
                result = try body(&report)
            } else {
                result = try withSpan(spanName(operation, collection), ofKind: .client) { span in
                    defer { describe(span, operation, collection, report) }
                    do {
                        return try body(&report)
                    } catch {
                        describe(span, failure: error)
                        throw error
                    }
                }
            }
            record(operation, report, since: started)
            return result
        } catch {
            recordFailure(operation, error, since: started)
            throw error
        }
    }

    /// ``measure(_:collection:_:)`` for an operation that awaits its store.
    nonisolated(nonsending) package func measure<T>(
        _ operation: Operation, collection: String? = nil, nested: Bool = false, _ body: (inout Report) async throws -> T
    ) async throws -> T {
        if !nested { try gate.enter() }
        defer { if !nested { gate.leave() } }
        let started = measures ? ContinuousClock.now : nil
        var report = Report()
        do {
            let result: T
            if InstrumentationSystem.tracer is NoOpTracer {
                result = try await body(&report)
            } else {
                result = try await withSpan(spanName(operation, collection), ofKind: .client) { span in
                    defer { describe(span, operation, collection, report) }
                    do {
                        return try await body(&report)
                    } catch {
                        describe(span, failure: error)
                        throw error
                    }
                }
            }
            record(operation, report, since: started)
            return result
        } catch {
            recordFailure(operation, error, since: started)
            throw error
        }
    }

    /// Counts conflicts a save met, by kind (`merge`, `uniqueness`).
    package func recordConflicts(_ count: Int, kind: String) {
        guard measures, count > 0 else { return }
        Counter(
            label: "strata.conflicts",
            dimensions: [("db.system.name", identity.system), ("db.namespace", identity.namespace), ("kind", kind)],
            factory: metricsFactory
        ).increment(by: count)
    }

    /// `{db.operation.name} {target}`, where the target is the entity or, for
    /// operations on the whole store, the namespace.
    private func spanName(_ operation: Operation, _ collection: String?) -> String {
        "\(operation.rawValue) \(collection ?? identity.namespace)"
    }

    private func describe(_ span: any Span, _ operation: Operation, _ collection: String?, _ report: Report) {
        identity.describe(span)
        span.updateAttributes { attributes in
            attributes["db.operation.name"] = operation.rawValue
            if let collection { attributes["db.collection.name"] = collection }
            if let rows = report.rows { attributes["db.response.returned_rows"] = rows }
            if operation == .save {
                attributes["strata.save.inserted"] = report.inserted
                attributes["strata.save.updated"] = report.updated
                attributes["strata.save.deleted"] = report.deleted
            }
            if let name = report.contextName { attributes["strata.context"] = name }
            if let author = report.author { attributes["strata.author"] = author }
        }
    }

    private func describe(_ span: any Span, failure error: any Error) {
        span.attributes["error.type"] = (error as? StrataError)?.code.rawValue ?? String(describing: type(of: error))
    }

    private func record(_ operation: Operation, _ report: Report, since started: ContinuousClock.Instant?) {
        guard let started else { return }
        durations[operation]?.record(duration: ContinuousClock.now - started)
        guard let rows = report.rows else { return }
        switch operation {
        case .fetch, .aggregate: rowsRead.increment(by: rows)
        case .count, .migrate: break
        case .save, .batchInsert, .batchUpdate, .batchDelete: rowsWritten.increment(by: rows)
        }
    }

    /// A failed operation's duration, under its `error.type` (made when it
    /// fails, as failures are rare).
    private func recordFailure(_ operation: Operation, _ error: any Error, since started: ContinuousClock.Instant?) {
        guard let started else { return }
        let type = (error as? StrataError)?.code.rawValue ?? "_OTHER"
        Metrics.Timer(
            label: "db.client.operation.duration",
            dimensions: [
                ("db.system.name", identity.system), ("db.namespace", identity.namespace),
                ("db.operation.name", operation.rawValue), ("error.type", type),
            ],
            preferredDisplayUnit: .seconds, factory: metricsFactory
        ).record(duration: ContinuousClock.now - started)
    }
}
