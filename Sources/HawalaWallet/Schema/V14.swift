import GRDB

extension WalletSchema {
    /// v14: the on-chain wallet (`HawalaOnChain`): per wallet and coin, the node it reads, the
    /// recent blocks it has seen (the last is where its sync stands; the others find a reorg),
    /// the transactions that touch its keys (raw, with the block that holds them, none while
    /// unconfirmed), frozen coins, and BIP-329 labels.
    static func v14(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE onchainNode (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                coin TEXT NOT NULL,
                kind TEXT NOT NULL,
                location TEXT NOT NULL,
                auth TEXT NOT NULL,
                chain TEXT NOT NULL,
                gapLimit INTEGER NOT NULL,
                PRIMARY KEY (walletId, coin));
            CREATE TABLE onchainBlock (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                coin TEXT NOT NULL,
                height INTEGER NOT NULL,
                hash TEXT NOT NULL,
                PRIMARY KEY (walletId, coin, height));
            CREATE TABLE onchainTx (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                coin TEXT NOT NULL,
                txid TEXT NOT NULL,
                raw BLOB NOT NULL,
                height INTEGER,
                blockHash TEXT,
                seenAt REAL NOT NULL,
                PRIMARY KEY (walletId, coin, txid));
            CREATE TABLE onchainFrozen (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                coin TEXT NOT NULL,
                outpoint TEXT NOT NULL,
                PRIMARY KEY (walletId, coin, outpoint));
            CREATE TABLE onchainLabel (
                walletId TEXT NOT NULL REFERENCES wallet(id) ON DELETE CASCADE,
                coin TEXT NOT NULL,
                type TEXT NOT NULL,
                ref TEXT NOT NULL,
                label TEXT NOT NULL,
                PRIMARY KEY (walletId, coin, type, ref));
            """)
    }
}
