import GRDB

extension WalletSchema {
    /// v2: seed-only wallets (SLIP-39 shares made by another wallet). `sealedSecret` holds the
    /// BIP39 entropy of a `bip39` wallet or the BIP32 seed of a `seed` wallet; the sealing
    /// context names which, so a changed `kind` fails authentication.
    static func v2(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE wallet RENAME COLUMN sealedEntropy TO sealedSecret;
            ALTER TABLE wallet ADD COLUMN kind TEXT NOT NULL DEFAULT 'bip39' CHECK (kind IN ('bip39', 'seed'));
            """)
    }
}
