import Glibc
import RotationSystem

/// The system's `tar`, run to pack a report's directory into a gzip-compressed archive.
///
/// A `.tar.gz` is what a bug tracker takes as an attachment (GitHub takes `.gz` and `.tgz`, not `.tar`), and
/// tar and gzip are on every Debian system (both are Essential): packing with them costs rotationd no
/// compression code of its own.
enum ArchiveCommand {
    /// Why packing failed.
    struct Failure: Error, CustomStringConvertible {
        /// What happened, with the fix.
        let description: String
    }

    /// Packs the directory `name` under `parent` into `archive` (`tar -czf ARCHIVE -C PARENT NAME`), the members
    /// named `NAME/FILE`; what tar says when it fails is in the failure.
    static func pack(_ name: String, in parent: String, to archive: String) throws(Failure) {
        let tar = ChildCommand(argv: ["tar", "-czf", archive, "-C", parent, name])
        let (status, output) = tar.run()
        // 127: tar could not be started (tar itself exits 0, 1 or 2); the output is then why.
        if status == 127 {
            throw Failure(description: "cannot run tar: \(output); install tar and gzip")
        }
        guard status == 0 else {
            let said = output.trimmed(" \t\n\r")
            throw Failure(description: "\(tar.text) failed with status \(status)" + (said.isEmpty ? "" : ": \(said)"))
        }
    }
}
