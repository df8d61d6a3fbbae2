import Foundation

/// An empty write-ahead log placed beside a closed store before its pool
/// opens, so that opening writes nothing to the store file.
///
/// GRDB needs a non-empty `-wal` file before its readers open, and when there
/// is none it makes one by creating and dropping a table: a commit that later
/// reaches the store file and changes its bytes (a page allocated and freed,
/// the schema cookie bumped). A log holding only SQLite's 32-byte header, with
/// no frames, satisfies it without a commit: SQLite reads such a log as empty
/// and writes a fresh header over it with the first commit.
///
/// The log is created only where none exists (`O_EXCL`), so a log another
/// process is writing is never touched, and only for a file already in WAL
/// mode, whose page size it records. Failing to place one is harmless: GRDB
/// then makes its own.
///
/// ```swift
/// EmptyWriteAheadLog.placeBeside(url)   // then DatabasePool(path: url.path)
/// ```
enum EmptyWriteAheadLog {
    static func placeBeside(_ url: URL) {
        guard let header = try? FileHandle(forReadingFrom: url).read(upToCount: 100), header.count == 100,
              // Bytes 18 and 19: the write and read versions, 2 in WAL mode.
              header[18] == 2, header[19] == 2
        else { return }
        let pageSize = UInt32(header[16]) << 8 | UInt32(header[17])
        let bytes = walHeader(pageSize: pageSize == 1 ? 65_536 : pageSize)
        let mode = (try? FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) ?? 0o600
        let descriptor = open(url.path + "-wal", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        Foundation.close(descriptor)
        if written != bytes.count { unlink(url.path + "-wal") }
    }

    /// SQLite's WAL header (see "The WAL File Format"): magic, format version,
    /// page size, checkpoint sequence, two salts and the checksum of the first
    /// 24 bytes, all big-endian; this magic makes the checksum read the words
    /// big-endian too.
    static func walHeader(pageSize: UInt32) -> [UInt8] {
        let words: [UInt32] = [0x377f_0683, 3_007_000, pageSize, 0, UInt32.random(in: 1...UInt32.max), UInt32.random(in: 1...UInt32.max)]
        var first: UInt32 = 0, second: UInt32 = 0
        for pair in stride(from: 0, to: words.count, by: 2) {
            first = first &+ words[pair] &+ second
            second = second &+ words[pair + 1] &+ first
        }
        return (words + [first, second]).flatMap { word in
            [UInt8(word >> 24), UInt8(word >> 16 & 0xff), UInt8(word >> 8 & 0xff), UInt8(word & 0xff)]
        }
    }
}
