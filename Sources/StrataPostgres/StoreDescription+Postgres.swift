import StrataCore

extension StoreDescription {
    /// A store in a PostgreSQL database, in the description's schema (namespace).
    ///
    /// Containers in many processes (servers) that load the same database and
    /// schema share one store: their saves merge into each other's contexts
    /// when `remoteChangeNotifications` (and `historyTracking`) are on.
    ///
    /// ```swift
    /// var description = StoreDescription.postgres(PostgresStoreDescription(host: "db", database: "app", username: "app"))
    /// description.historyTracking = true
    /// description.remoteChangeNotifications = true
    /// container.storeDescriptions = [description]
    /// ```
    public static func postgres(_ server: PostgresStoreDescription) -> StoreDescription {
        let name = "PostgreSQL \(server.host):\(server.port)/\(server.database) schema \(server.schemaName)"
        return StoreDescription(type: StoreType(name: name, opener: StoreOpener { schema, description, opening throws(StrataError) in
            try PostgresStore(
                description: server, schema: schema, readOnly: description.isReadOnly, options: description.storeOptions,
                opening: opening)
        }))
    }

    /// A store in the PostgreSQL database a URL names
    /// (`postgres://user:password@host:port/database?schema=name`).
    ///
    /// ```swift
    /// container.storeDescriptions = [try .postgres(url: "postgres://app@127.0.0.1/app?schema=library")]
    /// ```
    public static func postgres(url: String) throws(StrataError) -> StoreDescription {
        postgres(try PostgresStoreDescription(url: url))
    }
}
