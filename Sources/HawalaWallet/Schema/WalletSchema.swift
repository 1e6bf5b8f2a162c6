import GRDB

/// The wallet store's schema, one migration a version (`Schema/V1.swift`, `V2.swift`…): a store
/// opened by a newer Hawala is brought up to date in order, each version in one transaction. A
/// released version never changes; a change is a new version.
enum WalletSchema {
    /// Every version, oldest first.
    static let versions: [(name: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1", v1),
        ("v2", v2),
        ("v3", v3),
        ("v4", v4),
        ("v5", v5),
        ("v6", v6),
        ("v7", v7),
        ("v8", v8),
        ("v9", v9),
        ("v10", v10),
        ("v11", v11),
        ("v12", v12),
        ("v13", v13),
        ("v14", v14),
        ("v15", v15),
        ("v16", v16),
        ("v17", v17),
    ]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for version in versions { migrator.registerMigration(version.name, migrate: version.migrate) }
        return migrator
    }
}
