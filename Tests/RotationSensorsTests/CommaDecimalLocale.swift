import Foundation
import TestSupport

/// A locale whose decimal separator is a comma (such as fr_FR.UTF-8), usable by this process and its children:
/// the system's, or compiled with `localedef` into a scratch directory that `LOCPATH` points at.
struct CommaDecimalLocale {
    /// The locale's name, such as "fr_FR.UTF-8".
    let name: String
    /// The scratch directory holding the compiled locale, or nil when the system has it.
    let directory: String?

    /// Makes `language` (such as "fr_FR") available in UTF-8; nil when it is missing and `localedef` or the
    /// locale sources (Debian package `locales`, installed by `scripts/install-deps.sh`) are too.
    static func make(_ language: String) -> CommaDecimalLocale? {
        let name = "\(language).UTF-8"
        if let loc = newlocale(LC_NUMERIC_MASK, name, nil) {
            freelocale(loc)
            return CommaDecimalLocale(name: name, directory: nil)
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rotationd-locale-\(UUID().uuidString)")
        guard FileManager.default.isReadableFile(atPath: "/usr/share/i18n/locales/\(language)"),
              (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return nil }
        let compiled = try? ChildProcess.run("/usr/bin/localedef", ["-i", language, "-f", "UTF-8", dir.appendingPathComponent(name).path],
                                             timeout: Tolerance.build)
        guard compiled?.status == 0 else {
            try? FileManager.default.removeItem(at: dir)
            return nil
        }
        return CommaDecimalLocale(name: name, directory: dir.path)
    }

    /// The variables that give a child process this locale's numbers: `LC_NUMERIC`, `LOCPATH` when compiled,
    /// and an empty `LC_ALL` (which glibc treats as unset), so an inherited `LC_ALL` cannot override it.
    var environment: [String: String] {
        var env = ["LC_NUMERIC": name, "LC_ALL": ""]
        if let directory { env["LOCPATH"] = directory }
        return env
    }

    /// The decimal point a child process started with `environment` gets, as `locale -k decimal_point` prints it.
    func decimalPointInChild() -> String? {
        guard let locale = try? ChildProcess.run("/usr/bin/locale", ["-k", "decimal_point"], environment: environment) else { return nil }
        // decimal_point=","
        let text = locale.out.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("decimal_point=\"") && text.hasSuffix("\"") else { return nil }
        return String(text.dropFirst("decimal_point=\"".count).dropLast())
    }

    /// Deletes the scratch directory, if any.
    func remove() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
