import HawalaText

// The one JSON shape of each on-chain concept, for the CLI's --json and the app's API alike.

extension Ledger {
    /// `{"chain", "confirmedSats", "unconfirmedSats", "utxos"}`.
    public func balanceJSON(coin: Coin) -> JSONValue {
        .object([("chain", .string(coin.rawValue)), ("confirmedSats", .int(Int(confirmed.value))),
                 ("unconfirmedSats", .int(Int(unconfirmed.value))), ("utxos", .int(coins.count))])
    }

    /// `[{"txid", "amountSats", "feeSats", "confirmations", "label"}]`, newest first.
    public func historyJSON(labels: [String: String]) -> JSONValue {
        .array(payments.map { payment in
            .object([("txid", .string(payment.txid.description)), ("amountSats", .int(Int(payment.amount))),
                     ("feeSats", .int(Int(payment.fee.value))), ("confirmations", .int(payment.confirmations)),
                     ("label", .nullable(labels["tx:\(payment.txid)"]))])
        })
    }

    /// `[{"outpoint", "address", "valueSats", "confirmations", "frozen", "change", "type"}]`;
    /// `type` is the account's descriptor kind: `wpkh`, `tr`, `sh-wpkh` or `pkh`.
    public func utxosJSON(network: OnChainNetwork) -> JSONValue {
        .array(coins.map { coin in
            .object([("outpoint", .string(coin.outpoint.description)),
                     ("address", .nullable(OutputScript(coin.script)?.address(on: network))),
                     ("valueSats", .int(Int(coin.value.value))), ("confirmations", .int(coin.confirmations)),
                     ("frozen", .bool(coin.frozen)), ("change", .bool(coin.place.keychain == .change)),
                     ("type", .string(coin.place.kind.rawValue))])
        })
    }
}

extension SendPlan {
    /// The preview's rows, the same on every face: amount, fee, rate, total, change, amounts in
    /// the chain's base unit.
    public var previewRows: [(label: String, value: String)] { previewRows { "\(AmountText.grouped($0)) \(network.coin.baseUnit)" } }

    /// The preview's rows with amounts written by `amountText` (a face's unit).
    public func previewRows(_ amountText: (Sats) -> String) -> [(label: String, value: String)] {
        let unit = network.coin.baseUnit
        var rows: [(label: String, value: String)] = [
            ("To", recipient),
            ("Amount", amountText(amount)),
            ("Fee", "\(amountText(fee)) (\(feeRate.perVByte) \(unit)/vB, \(vsize) vB)"),
            ("Total", amountText(total)),
        ]
        rows.append(("Change", change.map { "\(amountText($0)) back to this wallet" } ?? "none"))
        if network.isTest { rows.append(("Network", "\(network) (test coins)")) }
        return rows
    }
}
