import Foundation
@testable import StrataCore
import Testing

@Suite("History value encoding")
struct HistoryValueCodingTests {
    @Test
    func everyKindOfValueReadsBackExactly() throws {
        let values: [String: StoredValue] = [
            "quote": .text("say \"hi\"\\ \n\t\r \u{01}\u{1F} héllo \u{1F600}"),
            "empty": .text(""),
            "min": .integer(.min),
            "max": .integer(.max),
            "tenth": .real(0.1),
            "tiny": .real(.leastNonzeroMagnitude),
            "huge": .real(-1.7976931348623157e308),
            "negativeZero": .real(-0.0),
            "infinity": .real(.infinity),
            "negativeInfinity": .real(-.infinity),
            "nothing": .null,
            "bytes": .blob(Data([0, 1, 2, 255])),
        ]
        let coder = HistoryValueCoder()
        let encoded = coder.encode(values)
        let decoded = try #require(try coder.decode(encoded))
        #expect(decoded == values)
        guard case .real(let nan)? = try coder.decode(coder.encode(["nan": .real(.nan)]))?["nan"] else {
            Issue.record("NaN did not read back as a real")
            return
        }
        #expect(nan.isNaN)
    }

    @Test
    func theTextIsPlainJSONWithSortedKeys() throws {
        let encoded = HistoryValueCoder().encode(["b": .integer(2), "a": .text("x")])
        #expect(encoded == .text(#"{"a":{"text":"x"},"b":{"integer":2}}"#))
        guard case .text(let text) = encoded else { return }
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }
}
