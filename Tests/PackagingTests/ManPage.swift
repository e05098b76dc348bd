import Foundation
import TestSupport

/// A man page rendered by `man`, as a reader sees it.
struct ManPage {
    /// The rendered text.
    var text: String
    /// What `man --warnings` (groff) said about the page; empty when it had nothing to say.
    var warnings: String

    /// Renders the roff page at `path` (gzipped or not) with `man --warnings -l`, 200 columns wide so that
    /// option entries stay on one line.
    static func render(_ path: String) throws -> ManPage {
        let r = try ChildProcess.run("man", ["--warnings", "-l", path],
                                     environment: ["MANWIDTH": "200", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"])
        return ManPage(text: try r.output(), warnings: r.err)
    }

    /// Turns the scdoc source `man/NAME.scd` into roff in `directory` with `scdoc`, and renders it.
    static func renderSource(_ name: String, in directory: ScratchDirectory) throws -> ManPage {
        let roff = directory.path(name)
        _ = try ChildProcess.run("/bin/sh", ["-c", "scdoc < \"$0\" > \"$1\"", PackagePaths.source("man/\(name).scd"), roff]).output()
        return try render(roff)
    }
}
