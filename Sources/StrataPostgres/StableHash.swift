/// A 64-bit FNV-1a hash of text: the same in every process and version of
/// Swift (unlike `Hasher`), for names and lock numbers servers must agree on.
///
/// ```swift
/// StableHash.hex("strata:app")    // 16 hexadecimal digits
/// ```
enum StableHash {
    static func value(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }

    /// The hash as 16 hexadecimal digits.
    static func hex(_ text: String) -> String {
        let digits = String(value(text), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
