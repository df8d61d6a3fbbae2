#!/usr/bin/env python3
"""Makes every Swift example in README.md and the DocC articles a package that CI builds.

Each article's examples go into one library module (a new module where two examples
declare the same type), with #sourceLocation pointing errors at the Markdown line.
Declarations stay at file scope; statements of each example run in a function of their
own, where the names an article takes as given (container, context, book, …) come from
the prelude in .ci/snippet-prelude.swift. README's example is a whole program: it becomes
an executable, `readme-example`, which CI runs twice against one default store.

An example that needs another platform is marked by an HTML comment on the line before
its fence, which neither GitHub nor DocC shows:
    <!-- snippet: apple-only -->   compiled only where SwiftUI exists

Usage: .ci/snippets.py OUTPUT_DIR   (then: swift build --build-tests --package-path OUTPUT_DIR)
"""
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECLARATION = re.compile(
    r"^(@\w+(\(.*\))?\s+)*(public\s+|private\s+|fileprivate\s+|final\s+|nonisolated\s+)*"
    r"(class|struct|enum|extension|protocol|actor|typealias|func)\b")
ATTRIBUTE_LINE = re.compile(r"^@\w+(\(.*\))?\s*$")
TYPE_NAME = re.compile(r"^(?:@\w+(?:\(.*\))?\s+)*(?:final\s+)?(?:class|struct|enum|protocol|actor)\s+(\w+)")


def examples(path):
    """Yields (line, code, marker) for each ```swift block of a Markdown file."""
    lines = path.read_text().split("\n")
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```swift":
            marker = None
            previous = lines[index - 1].strip() if index > 0 else ""
            found = re.match(r"<!--\s*snippet:\s*([\w-]+)\s*-->", previous)
            if found:
                marker = found.group(1)
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            yield start + 1, lines[start:end], marker
            index = end
        index += 1


def chunks(code):
    """Splits an example into top-level items: [first line offset, lines, is_declaration].

    An item starts at a line at column 0 outside braces, unless the line or the one before
    it continues an expression; comments and attribute lines at column 0 join the next item.
    """
    items = []
    depth = 0
    pending = []
    for offset, line in enumerate(code):
        top = depth == 0 and line != "" and not line[0].isspace()
        continuing = bool(items) and items[-1][1][-1].rstrip().endswith(
            (",", "(", "[", "=", "&&", "||", "??", "+", " in"))
        if top and (line.startswith("//") or ATTRIBUTE_LINE.match(line)):
            pending.append(line)
        elif top and line[0] not in "})]." and not continuing:
            items.append([offset - len(pending), pending + [line], bool(DECLARATION.match(line))])
            pending = []
        elif items:
            items[-1][1].extend(pending + [line])
            pending = []
        else:
            items.append([offset - len(pending), pending + [line], False])
            pending = []
        depth += line.count("{") - line.count("}")
    if pending:
        items.append([len(code) - len(pending), pending, False])
    return items


def declared_types(items):
    return {m.group(1) for _, lines, is_declaration in items if is_declaration for m in [TYPE_NAME.match(lines[0])] if m}


def module_source(markdown, examples_in_module):
    """One module's file: imports, declarations at file scope, statements in functions."""
    imports = {"Foundation", "Logging", "Strata", "StrataPostgres", "StrataTesting", "Observation", "SnippetPrelude"}
    body = []
    for number, (line, items, marker) in enumerate(examples_in_module):
        guard_open, guard_close = ("#if canImport(SwiftUI)\n", "#endif\n") if marker == "apple-only" else ("", "")
        statements = []
        body.append(guard_open)
        for offset, lines, is_declaration in items:
            if lines[0].startswith("import "):
                imports.update(l.split()[1] for l in lines if l.startswith("import "))
                continue
            location = f'#sourceLocation(file: "{markdown}", line: {line + offset})\n'
            text = "\n".join(lines) + "\n"
            if is_declaration:
                body.append(location + text + "#sourceLocation()\n")
            else:
                statements.append(location + text + "#sourceLocation()\n")
        if statements:
            body.append(f"@MainActor func example{number}() async throws {{\n" + "".join(statements) + "}\n")
        body.append(guard_close)
    ordered = sorted(imports - {"SwiftUI"})
    header = "".join(f"import {name}\n" for name in ordered)
    if "SwiftUI" in imports:
        header += "#if canImport(SwiftUI)\nimport SwiftUI\n#endif\n"
    return header + "\n" + "\n".join(body)


def main():
    output = Path(sys.argv[1]).resolve()
    sources = output / "Sources"
    if sources.exists():
        for path in sorted(sources.rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
    (sources / "SnippetPrelude").mkdir(parents=True)
    (sources / "SnippetPrelude" / "Prelude.swift").write_text((ROOT / ".ci" / "snippet-prelude.swift").read_text())

    modules = []
    readme = ROOT / "README.md"
    readme_examples = list(examples(readme))
    if len(readme_examples) != 1:
        sys.exit(f"README.md should hold one Swift example, a whole program; it holds {len(readme_examples)}")
    line, code, _ = readme_examples[0]
    (sources / "readme-example").mkdir()
    (sources / "readme-example" / "main.swift").write_text(
        f'#sourceLocation(file: "README.md", line: {line})\n' + "\n".join(code) + "\n")

    count = 1
    for article in sorted(ROOT.glob("Sources/*/*.docc/*.md")):
        relative = article.relative_to(ROOT).as_posix()
        groups = [[]]
        names = set()
        for line, code, marker in examples(article):
            if not code:
                continue
            count += 1
            items = chunks(code)
            declared = declared_types(items)
            if declared & names:
                groups.append([])
                names = set()
            names |= declared
            groups[-1].append((line, items, marker))
        for index, group in enumerate(g for g in groups if g):
            name = f"{article.stem}{index + 1}"
            source = module_source(relative, group)
            # Swift Testing's macros register tests only in a test target.
            modules.append((name, "\nimport Testing\n" in source))
            (sources / name).mkdir()
            (sources / name / "Examples.swift").write_text(source)

    strata = os.path.relpath(ROOT, output)
    targets = "".join(
        f'        .{"testTarget" if tests else "target"}(name: "{m}", dependencies: strata + ["SnippetPrelude"], '
        f'swiftSettings: settings),\n'
        for m, tests in modules)
    (output / "Package.swift").write_text(f'''// swift-tools-version: 6.2
// Made by .ci/snippets.py from README.md and the DocC articles; do not edit.
import PackageDescription

// Examples bind values to show them (`let page = try context.fetch(…)`), which the compiler
// would call unused: only errors matter here.
let settings: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-suppress-warnings"])]
let strata: [Target.Dependency] = [
    .product(name: "Strata", package: "{ROOT.name}"),
    .product(name: "StrataPostgres", package: "{ROOT.name}"),
    .product(name: "StrataTesting", package: "{ROOT.name}"),
    .product(name: "StrataServiceLifecycle", package: "{ROOT.name}"),
    .product(name: "Logging", package: "swift-log"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
]
let package = Package(
    name: "StrataSnippets",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "{strata}"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "SnippetPrelude", dependencies: strata, swiftSettings: settings),
        .executableTarget(name: "readme-example", dependencies: [.product(name: "Strata", package: "{ROOT.name}")], swiftSettings: settings),
{targets}    ]
)
''')
    print(f"{count} examples: README's program and {len(modules)} modules of the articles' examples in {output}")


if __name__ == "__main__":
    main()
