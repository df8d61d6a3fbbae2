@testable import StrataCore
import StrataTestModels
import Testing

@Suite("Identity map")
struct IdentityMapTests {
    @Test func objectsAreFoundByKeyAcrossPagesAndGoneOnceRemoved() {
        let map = IdentityMap()
        let keys: [Int64] = [1, 31, 32, 33, 63, 64, 1_000, 1 << 40, 7]
        var books: [Int64: Book] = [:]
        for key in keys {
            let book = Book(title: "\(key)", year: Int(key % 1000))
            books[key] = book
            map[key] = book
        }
        #expect(map.count == keys.count)
        for key in keys { #expect(map[key] === books[key]) }
        #expect(map[2] == nil)
        #expect(map[0] == nil)
        map[31] = books[1]
        #expect(map.count == keys.count, "replacing an object does not add one")
        #expect(map[31] === books[1])
        #expect(map.removeValue(forKey: 64) === books[64])
        #expect(map[64] == nil)
        #expect(map.removeValue(forKey: 64) == nil)
        map[1 << 40] = nil
        #expect(map.count == keys.count - 2)
        let listed = map.map(\.key).sorted()
        #expect(listed == [1, 7, 31, 32, 33, 63, 1_000])
        #expect(map.values.count == map.count)
        map.removeAll()
        #expect(map.isEmpty)
        #expect(map[1] == nil)
    }

    @Test func aKeyOrderedScanFillsPagesInOrder() {
        let map = IdentityMap()
        let books = (1...1_000).map { Book(title: "\($0)", year: $0) }
        map.reserveCapacity(books.count)
        for (offset, book) in books.enumerated() { map[Int64(offset + 1)] = book }
        #expect(map.count == 1_000)
        #expect((1...1_000).allSatisfy { map[Int64($0)] === books[$0 - 1] })
        for key in stride(from: 1, through: 1_000, by: 2) { map.removeValue(forKey: Int64(key)) }
        #expect(map.count == 500)
        #expect(Set(map.map(\.key)) == Set(stride(from: 2, through: 1_000, by: 2).map(Int64.init)))
    }
}
