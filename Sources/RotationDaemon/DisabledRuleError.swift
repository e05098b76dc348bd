/// `ROTATIOND_DISABLE_RULES` names a decision rule that does not exist.
struct DisabledRuleError: Error, CustomStringConvertible {
    /// The name given.
    var name: String
    /// The names of every rule, comma-separated.
    var known: String

    /// The sentence logged: the name that was wrong and the names that would do.
    var description: String { "ROTATIOND_DISABLE_RULES: no decision rule is called \"\(name)\"; rules: \(known)" }
}
