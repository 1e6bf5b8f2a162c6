import HawalaText

/// A coin that may pay: its value and the weight of spending it.
public struct SelectableCoin: Sendable, Hashable {
    public let outpoint: OutPoint
    public let value: Sats
    public let inputWeight: Int

    public init(outpoint: OutPoint, value: Sats, inputWeight: Int) {
        self.outpoint = outpoint
        self.value = value
        self.inputWeight = inputWeight
    }
}

/// The coins chosen for a payment, its fee and its change (nil when the rest goes to the fee).
public struct CoinSelectionResult: Sendable, Equatable {
    public let coins: [SelectableCoin]
    public let fee: Sats
    public let change: Sats?
    /// The transaction's estimated weight, change included when there is change.
    public let weight: Int
    /// What the choice costs beyond the ideal, in base units (Bitcoin Core's "waste").
    public let waste: Int64
    /// Whether branch-and-bound found an exact match (no change needed).
    public let exact: Bool
}

/// Which coins pay: branch-and-bound for a change-less match first (Bitcoin Core's, after
/// Erhardt), else the candidate with the least waste among largest-first, oldest-first and
/// random draws.
public struct CoinSelection: Sendable {
    /// The weight of everything but the inputs and the change: version, counts, lock time,
    /// segwit marker, the recipients' outputs.
    public let baseWeight: Int
    /// The payment's amount (without the fee).
    public let target: Sats
    public let feeRate: FeeRate
    /// The rate the wallet expects to pay later, which decides whether spending many coins now is waste.
    public let longTermFeeRate: FeeRate
    /// The change output's weight and the weight of spending it later.
    public let changeOutputWeight: Int
    public let changeSpendWeight: Int
    /// The smallest change worth making (below it, the rest goes to the fee).
    public let dust: Sats

    public init(baseWeight: Int, target: Sats, feeRate: FeeRate, longTermFeeRate: FeeRate,
                changeOutputWeight: Int, changeSpendWeight: Int, dust: Sats) {
        self.baseWeight = baseWeight
        self.target = target
        self.feeRate = feeRate
        self.longTermFeeRate = longTermFeeRate
        self.changeOutputWeight = changeOutputWeight
        self.changeSpendWeight = changeSpendWeight
        self.dust = dust
    }

    /// The branch-and-bound search gives up after this many steps (Bitcoin Core's bound).
    static let maximumTries = 100_000

    private func fee(_ weight: Int) -> Int64 { Int64(feeRate.fee(weight: weight).value) }
    private func effectiveValue(_ coin: SelectableCoin) -> Int64 { Int64(coin.value.value) - fee(coin.inputWeight) }
    private func inputWaste(_ coin: SelectableCoin) -> Int64 {
        fee(coin.inputWeight) - Int64(longTermFeeRate.fee(weight: coin.inputWeight).value)
    }
    private var costOfChange: Int64 { fee(changeOutputWeight) + Int64(longTermFeeRate.fee(weight: changeSpendWeight).value) }

    /// The coins for the payment.
    /// - Throws: `OnChainError.insufficientFunds` when all of them can't pay the target and its fee.
    public func select(from coins: [SelectableCoin], unit: String) throws(OnChainError) -> CoinSelectionResult {
        let usable = coins.filter { effectiveValue($0) > 0 }
        if let exact = branchAndBound(usable) { return exact }
        var candidates: [[SelectableCoin]] = [
            usable.sorted { $0.value > $1.value },
            usable,  // in the order given: oldest first
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 { candidates.append(usable.shuffled(using: &generator)) }
        let results = candidates.compactMap(accumulate)
        guard let best = results.min(by: { $0.waste < $1.waste }) else {
            let available = (try? Sats.sum(coins.map(\.value))) ?? Sats.supply
            let allWeight = coins.reduce(baseWeight) { $0 + $1.inputWeight }
            let needed = (try? target + feeRate.fee(weight: allWeight)) ?? Sats.supply
            throw .insufficientFunds(needed: needed, available: available, unit: unit)
        }
        return best
    }

    /// Adds coins in `order` until they pay the target with change (or without it when the rest
    /// would be dust).
    private func accumulate(_ order: [SelectableCoin]) -> CoinSelectionResult? {
        var chosen: [SelectableCoin] = [], sum: Int64 = 0, weight = baseWeight, waste: Int64 = 0
        let target = Int64(self.target.value)
        for coin in order {
            chosen.append(coin)
            sum += Int64(coin.value.value)
            weight += coin.inputWeight
            waste += inputWaste(coin)
            let feeWithout = fee(weight)
            guard sum >= target + feeWithout else { continue }
            let feeWith = fee(weight + changeOutputWeight)
            let change = sum - target - feeWith
            if change >= Int64(dust.value) {
                return CoinSelectionResult(coins: chosen, fee: Sats(clamping: UInt64(feeWith)), change: Sats(clamping: UInt64(change)),
                                           weight: weight + changeOutputWeight, waste: waste + costOfChange, exact: false)
            }
            let excess = sum - target - feeWithout
            return CoinSelectionResult(coins: chosen, fee: Sats(clamping: UInt64(sum - target)), change: nil,
                                       weight: weight, waste: waste + excess, exact: false)
        }
        return nil
    }

    /// A set whose effective value lands in [target, target + cost of change]: no change output.
    private func branchAndBound(_ coins: [SelectableCoin]) -> CoinSelectionResult? {
        let sorted = coins.sorted { effectiveValue($0) > effectiveValue($1) }
        let values = sorted.map(effectiveValue)
        let target = Int64(self.target.value) + fee(baseWeight)
        let upper = target + costOfChange
        var remaining = values.reduce(0, +)
        guard remaining >= target else { return nil }
        var selected: [Bool] = Array(repeating: false, count: sorted.count)
        var current: Int64 = 0, currentWaste: Int64 = 0
        var best: [Bool]? = nil, bestWaste = Int64.max
        var depth = 0
        let wastes = sorted.map(inputWaste)
        for _ in 0..<Self.maximumTries {
            var backtrack = false
            if current + remaining < target || current > upper || (currentWaste > bestWaste && feeRate > longTermFeeRate) {
                backtrack = true
            } else if current >= target {
                let waste = currentWaste + (current - target)
                if waste <= bestWaste { best = Array(selected[..<depth]) + Array(repeating: false, count: sorted.count - depth); bestWaste = waste }
                backtrack = true
            }
            if backtrack {
                // Walk back to the last included coin, exclude it and try the branch without it.
                while depth > 0 && !selected[depth - 1] {
                    depth -= 1
                    remaining += values[depth]
                }
                if depth == 0 { break }
                depth -= 1
                selected[depth] = false
                current -= values[depth]
                currentWaste -= wastes[depth]
                depth += 1
            } else if depth < sorted.count {
                remaining -= values[depth]
                selected[depth] = true
                current += values[depth]
                currentWaste += wastes[depth]
                depth += 1
            } else {
                break
            }
        }
        guard let best else { return nil }
        let chosen = zip(sorted, best).filter(\.1).map(\.0)
        let weight = baseWeight + chosen.reduce(0) { $0 + $1.inputWeight }
        let sum = chosen.reduce(Int64(0)) { $0 + Int64($1.value.value) }
        return CoinSelectionResult(coins: chosen, fee: Sats(clamping: UInt64(sum - Int64(self.target.value))), change: nil,
                                   weight: weight, waste: bestWaste, exact: true)
    }
}
