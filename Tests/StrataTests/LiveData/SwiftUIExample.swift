// The SwiftUI example of the "Observing changes" article, compiled where
// SwiftUI exists.
#if canImport(SwiftUI)
import SwiftUI
import Strata

struct BookList: View {
    let controller: FetchedResultsController<Book>

    var body: some View {
        List {
            ForEach(controller.sections, id: \.name) { section in
                Section(section.name) {
                    ForEach(section.objects, id: \.objectID) { book in
                        Text(book.title)
                    }
                }
            }
        }
    }
}
#endif
