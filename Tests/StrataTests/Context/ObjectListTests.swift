@testable import StrataCore
import StrataTestModels
import Testing

@Suite("Change lists")
struct ObjectListTests {
    @Test func membersKeepTheOrderTheyJoinedAcrossRemovalsAndReinsertions() {
        let books = (0..<5).map { Book(title: "\($0)", year: $0) }
        var list = ObjectList(.changed)
        let joined = books.map { list.insert($0) }
        #expect(joined == [true, true, true, true, true])
        let joinedAgain = list.insert(books[2])
        #expect(!joinedAgain, "a member joins once")
        list.remove(books[1])
        list.remove(books[3])
        #expect(!list.contains(books[1]))
        let rejoined = list.insert(books[1])
        #expect(rejoined, "a removed object can join again, at the end")
        #expect(list.objects.map { ($0 as! Book).title } == ["0", "2", "4", "1"])
        #expect(list.count == 4)
        #expect(list.positionProblems().isEmpty)
    }

    @Test func manyRemovalsCloseTheHolesAndKeepPositionsRight() {
        let books = (0..<300).map { Book(title: "\($0)", year: $0) }
        var list = ObjectList(.deleted)
        for book in books { list.insert(book) }
        for book in books where book.year % 3 != 0 { list.remove(book) }
        #expect(list.count == 100)
        #expect(list.objects.map { ($0 as! Book).year } == Array(stride(from: 0, to: 300, by: 3)))
        #expect(list.positionProblems().isEmpty)
        list.removeAll()
        #expect(list.isEmpty)
        #expect(!list.contains(books[0]))
    }

    @Test func theTwoListsOfAnObjectAreIndependent() {
        let book = Book(title: "Dune", year: 1965)
        var changed = ObjectList(.changed)
        var deleted = ObjectList(.deleted)
        changed.insert(book)
        #expect(!deleted.contains(book))
        deleted.insert(book)
        changed.remove(book)
        #expect(deleted.contains(book))
        #expect(!changed.contains(book))
    }
}
