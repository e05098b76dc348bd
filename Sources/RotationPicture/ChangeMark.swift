import RotationEngine
import RotationProtocol

/// A published change the picture marks and numbers: one whose rotation, flat flag, inputs or posture changed.
/// A change of the tilt class or the hinge angle alone is shown by its lane or plot, not numbered.
struct ChangeMark: Sendable {
    /// What a change changed: the SVG classes of its marker.
    enum Part: String, Sendable {
        case rotation, flat, inputs, posture
    }

    /// Its number, from 1, as the markers and the table give it.
    let number: Int
    /// The time of its sample.
    let time: Double
    /// What changed, most telling first.
    let parts: [Part]
    /// The rule named on its marker: the rotation's, else the flat flag's, the posture's, the inputs'.
    let label: String
    /// One line per part for the table: what was published, the rule and what it means.
    let lines: [String]

    /// The marks of `changes`, numbered in order, each compared with the state before it.
    static func marks(_ changes: [PictureRecording.Change]) -> [ChangeMark] {
        var before = DeviceState.initial
        var marks: [ChangeMark] = []
        for (index, change) in changes.enumerated() {
            defer { before = change.state }
            let s = change.state, r = change.reason
            var parts: [Part] = [], lines: [String] = [], labels: [String] = []
            if s.rotation != before.rotation {
                parts.append(.rotation)
                let (label, line) = rotationText(s.rotation, r.rotation, at: change.time)
                labels.append(label)
                lines.append(line)
            }
            if s.flat != before.flat {
                parts.append(.flat)
                let name = s.flat ? "flat (\(s.tilt?.name ?? "tilt unknown"))" : "lifted (\(s.tilt?.name ?? "tilt unknown"))"
                labels.append(r.flat?.name ?? "flat")
                lines.append(name + ": " + (r.flat.map { "\($0.name): \(RuleGlossary.phrase($0))" } ?? "rule not recorded"))
            }
            if s.fold.posture != before.fold.posture {
                parts.append(.posture)
                let hinge = s.fold.hinge.map { " \($0)°" } ?? ""
                let name = (s.fold.posture?.rawValue ?? "no posture") + hinge
                labels.append(r.posture?.rule.rawValue ?? "posture")
                lines.append(name + ": " + (r.posture.map {
                    "\($0.rule.rawValue): \(RuleGlossary.phrase($0.rule)) (\(RuleGlossary.phrase($0.source)))"
                } ?? "rule not recorded"))
            }
            // The first state names the inputs it was decided with; only a later change of them is a decision, and
            // the engine records its rule.
            if s.inputs != before.inputs, index > 0 {
                parts.append(.inputs)
                labels.append(r.inputs?.name ?? "inputs")
                lines.append("inputs \(s.inputs.rawValue): " + (r.inputs.map { "\($0.name): \(RuleGlossary.phrase($0))" } ?? "rule not recorded"))
            }
            guard !parts.isEmpty else { continue }
            marks.append(ChangeMark(number: marks.count + 1, time: change.time, parts: parts, label: labels[0], lines: lines))
        }
        return marks
    }

    /// The marker's label and the table's line for a new rotation.
    private static func rotationText(_ rotation: Rotation?, _ reason: RotationReason?, at time: Double) -> (String, String) {
        let name = rotation.map { "\($0.name) \($0.degrees)°" } ?? "no rotation"
        guard let reason else { return ("rotation", name + ": rule not recorded") }
        let rule = reason.rule
        var notes: [String] = []
        if reason.isFirst {
            notes.append("the first decision")
        } else if let proposedBy = reason.proposedBy {
            let since = reason.proposedAt.map { " \(Int(((time - $0) * 1000).rounded())) ms before" } ?? ""
            notes.append("proposed\(since) by \(proposedBy.name)")
        }
        if let held = reason.heldBy, held != rule { notes.append("held last by \(held.name)") }
        if reason.passedBy != rule { notes.append("let through by \(reason.passedBy.name)") }
        return (rule.name, "\(name): \(rule.name): \(RuleGlossary.phrase(rule)) (\(notes.joined(separator: "; ")))")
    }
}
