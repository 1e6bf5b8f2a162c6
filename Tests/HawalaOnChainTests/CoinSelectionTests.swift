import HawalaText
import Testing
@testable import HawalaOnChain

/// Coin selection: a change-less match when one exists, else the least waste; every result pays
/// exactly the target, its fee and its change.
@Suite struct CoinSelectionTests {
    static func coin(_ n: Int, _ value: UInt64) -> SelectableCoin {
        SelectableCoin(outpoint: OutPoint(hash: Array(repeating: UInt8(n % 256), count: 31) + [UInt8(n / 256)], vout: UInt32(n)),
                       value: Sats(clamping: value), inputWeight: 272)
    }

    static func selection(target: UInt64, rate: UInt64 = 1, longTerm: UInt64 = 10) throws -> CoinSelection {
        CoinSelection(baseWeight: 42 + 124, target: Sats(clamping: target), feeRate: try FeeRate(rate), longTermFeeRate: try FeeRate(longTerm),
                      changeOutputWeight: 124, changeSpendWeight: 272, dust: Sats(294))
    }

    @Test func branchAndBoundFindsTheChangelessPair() throws {
        let coins = [10_000, 20_000, 30_000, 40_000].enumerated().map { Self.coin($0.offset, UInt64($0.element)) }
        // 20,000 and 30,000 at 1/vB: each input costs 68, the rest 42 vB (166 weight units).
        let target: UInt64 = 20_000 + 30_000 - 68 - 68 - 42
        let result = try Self.selection(target: target).select(from: coins, unit: "sat")
        #expect(result.exact && result.change == nil)
        #expect(Set(result.coins.map(\.value.value)) == [20_000, 30_000])
        #expect(result.fee.value == 50_000 - target)
    }

    @Test func everyResultBalancesExactly() throws {
        var generator = SeededGenerator(seed: 42)
        for round in 0..<300 {
            let coins = (0..<Int.random(in: 1...40, using: &generator)).map { Self.coin($0, UInt64.random(in: 500...5_000_000, using: &generator)) }
            let sum = coins.reduce(0) { $0 + $1.value.value }
            let target = UInt64.random(in: 294...max(295, sum), using: &generator)
            let rate = UInt64.random(in: 1...200, using: &generator)
            let selection = try Self.selection(target: target, rate: rate)
            switch Result(catching: { () throws(OnChainError) in try selection.select(from: coins, unit: "sat") }) {
            case .success(let result):
                let chosen = result.coins.reduce(0) { $0 + $1.value.value }
                #expect(chosen == target + result.fee.value + (result.change?.value ?? 0), "round \(round)")
                #expect(result.fee >= (try FeeRate(rate)).fee(weight: result.weight), "round \(round)")
                if let change = result.change { #expect(change.value >= 294, "round \(round)") }
                #expect(Set(result.coins.map(\.outpoint)).count == result.coins.count)
            case .failure(let error):
                let allFee = try FeeRate(rate).fee(weight: 166 + 272 * coins.count).value
                #expect(error == .insufficientFunds(needed: Sats(clamping: target + allFee), available: Sats(clamping: sum), unit: "sat"), "round \(round)")
                #expect(sum < target + allFee, "round \(round): refused though all coins pay")
            }
        }
    }

    @Test func tenThousandCoinsAreChosenAmong() throws {
        var generator = SeededGenerator(seed: 7)
        let coins = (0..<10_000).map { Self.coin($0, UInt64.random(in: 1_000...1_000_000, using: &generator)) }
        let result = try Self.selection(target: 12_345_678, rate: 5).select(from: coins, unit: "sat")
        #expect(result.coins.reduce(0) { $0 + $1.value.value } >= 12_345_678 + result.fee.value)
    }

    @Test func coinsWorthLessThanTheirSpendingAreLeft() throws {
        // At 100/vB an input costs 6,800: a 5,000 coin would lower what the payment can spend.
        let coins = [Self.coin(0, 5_000), Self.coin(1, 100_000)]
        let result = try Self.selection(target: 50_000, rate: 100).select(from: coins, unit: "sat")
        #expect(result.coins.map(\.value.value) == [100_000])
    }
}

/// SplitMix64: the same "random" coins every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
