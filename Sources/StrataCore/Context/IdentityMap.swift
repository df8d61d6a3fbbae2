/// The registered objects of one entity, by primary key: one part of a
/// context's identity map.
///
/// Primary keys come from a per-entity sequence, so the rows of a scan, and
/// most objects a context holds together, have neighbouring keys. The map keeps
/// objects in pages of 32 consecutive keys, found through a dictionary with a
/// one-page cache: registering or finding the rows of a key-ordered scan costs
/// one dictionary lookup per 32 rows and touches memory in order, where a
/// dictionary of objects would hash each key to a random place.
///
/// ```swift
/// let books = IdentityMap()
/// books[42] = book
/// books[42] === book        // true
/// books.removeValue(forKey: 42)
/// ```
final class IdentityMap: Sequence {
    private static let pageShift = 5
    private static let pageSize = Page.slotCount
    /// No key maps to this page number (keys are 64-bit, shifted right by 5).
    private static let noPage = Int64.min

    // Touched for every row a fetch registers; only this class accesses them,
    // never two at once, so they are not checked for exclusivity at run time.
    @exclusivity(unchecked) private var pages: [Int64: Page] = [:]
    /// The page used last and its number (`key >> pageShift`); `noPage` for none.
    @exclusivity(unchecked) private var cachedNumber: Int64 = IdentityMap.noPage
    /// Held without a retain: `pages` keeps it alive, and the cache is
    /// cleared whenever its page leaves `pages`.
    @exclusivity(unchecked) private var cachedPage: Unmanaged<Page>?
    /// The number of registered objects.
    @exclusivity(unchecked) private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(key: Int64) -> (any PersistentModel)? {
        get {
            guard let page = page(containing: key) else { return nil }
            return page._withUnsafeGuaranteedRef { $0.object(at: Self.slot(of: key)) }
        }
        set {
            if let newValue {
                insertNew(newValue, forKey: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Registers `object` for `key` (replacing any object there).
    func insertNew(_ object: any PersistentModel, forKey key: Int64) {
        let page = page(containing: key) ?? addPage(containing: key)
        if page._withUnsafeGuaranteedRef({ $0.store(object, at: Self.slot(of: key)) }) { count += 1 }
    }

    /// Registers `object` for `key` unless an object is registered there
    /// already; returns that object (and registers nothing) if so.
    func insertIfAbsent(_ object: any PersistentModel, forKey key: Int64) -> (any PersistentModel)? {
        let page = page(containing: key) ?? addPage(containing: key)
        let slot = Self.slot(of: key)
        if let existing = page._withUnsafeGuaranteedRef({ $0.object(at: slot) }) { return existing }
        _ = page._withUnsafeGuaranteedRef { $0.store(object, at: slot) }
        count += 1
        return nil
    }

    /// Removes the object for `key` and returns it, moved out without a retain.
    @discardableResult
    func removeValue(forKey key: Int64) -> (any PersistentModel)? {
        guard let page = page(containing: key),
              let object = page._withUnsafeGuaranteedRef({ $0.take(at: Self.slot(of: key)) }) else { return nil }
        count -= 1
        if page._withUnsafeGuaranteedRef({ $0.memberCount }) == 0 { removePage(numbered: key >> Self.pageShift) }
        return object
    }

    func removeAll() {
        // The map is empty before the objects go: a `deinit` they run may use it.
        let released = pages
        pages = [:]
        cachedNumber = Self.noPage
        cachedPage = nil
        count = 0
        withExtendedLifetime(released) {}
    }

    /// Makes room for about `additional` more objects with neighbouring keys.
    func reserveCapacity(_ additional: Int) {
        pages.reserveCapacity(pages.count + additional / Self.pageSize + 1)
    }

    /// Every registered object, in no particular order.
    var values: [any PersistentModel] {
        var objects: [any PersistentModel] = []
        objects.reserveCapacity(count)
        for (_, object) in self { objects.append(object) }
        return objects
    }

    func makeIterator() -> AnyIterator<(key: Int64, value: any PersistentModel)> {
        var pageIterator = pages.makeIterator()
        var current: (number: Int64, page: Page)?
        var slot = Self.pageSize
        return AnyIterator {
            while true {
                if let (number, page) = current, slot < Self.pageSize {
                    defer { slot += 1 }
                    if let object = page.object(at: slot) {
                        return ((number << Self.pageShift) | Int64(slot), object)
                    }
                    continue
                }
                guard let next = pageIterator.next() else { return nil }
                current = (next.key, next.value)
                slot = 0
            }
        }
    }

    private static func slot(of key: Int64) -> Int {
        Int(key & Int64(pageSize - 1))
    }

    private func page(containing key: Int64) -> Unmanaged<Page>? {
        let number = key >> Self.pageShift
        if number == cachedNumber { return cachedPage }
        guard let page = pages[number] else { return nil }
        cachedNumber = number
        cachedPage = Unmanaged.passUnretained(page)
        return cachedPage
    }

    private func addPage(containing key: Int64) -> Unmanaged<Page> {
        let number = key >> Self.pageShift
        let page = Page.make()
        pages[number] = page
        cachedNumber = number
        cachedPage = Unmanaged.passUnretained(page)
        return cachedPage!
    }

    private func removePage(numbered number: Int64) {
        pages[number] = nil
        if number == cachedNumber {
            cachedNumber = Self.noPage
            cachedPage = nil
        }
    }
}

@available(*, unavailable, message: "An identity map belongs to its context's isolation domain")
extension IdentityMap: Sendable {}

/// The object slots of 32 consecutive keys (the header counts the occupied
/// ones), allocated with their page in one block.
private final class Page: ManagedBuffer<Int, (any PersistentModel)?> {
    static let slotCount = 32

    static func make() -> Page {
        let buffer = Page.create(minimumCapacity: slotCount) { _ in 0 }
        // `create` allocates an instance of the class it is called on.
        let page = unsafeDowncast(buffer, to: Page.self)
        page.withUnsafeMutablePointerToElements { $0.initialize(repeating: nil, count: slotCount) }
        return page
    }

    deinit {
        _ = withUnsafeMutablePointerToElements { $0.deinitialize(count: Self.slotCount) }
    }

    // The count is reached through the header's address: `header` itself is
    // checked for exclusivity at run time on every registration.
    var memberCount: Int { withUnsafeMutablePointerToHeader { $0.pointee } }

    func object(at slot: Int) -> (any PersistentModel)? {
        withUnsafeMutablePointerToElements { $0[slot] }
    }

    /// Stores an object; true when the slot was empty.
    func store(_ object: any PersistentModel, at slot: Int) -> Bool {
        let wasEmpty = withUnsafeMutablePointerToElements { elements in
            let wasEmpty = elements[slot] == nil
            elements[slot] = object
            return wasEmpty
        }
        if wasEmpty { withUnsafeMutablePointerToHeader { $0.pointee += 1 } }
        return wasEmpty
    }

    /// Moves the object out of a slot, leaving it empty.
    func take(at slot: Int) -> (any PersistentModel)? {
        let object = withUnsafeMutablePointerToElements { elements in
            let object = (elements + slot).move()
            (elements + slot).initialize(to: nil)
            return object
        }
        if object != nil { withUnsafeMutablePointerToHeader { $0.pointee -= 1 } }
        return object
    }
}
