import Foundation
import HawalaText
import Testing
@testable import HawalaCrypto
@testable import HawalaKeys

func loadVectors<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors"))
    return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
}

func hex(_ bytes: [UInt8]) -> String { hexString(bytes) }
func unhex(_ s: String) -> [UInt8] { bytes(fromHex: s)! }

