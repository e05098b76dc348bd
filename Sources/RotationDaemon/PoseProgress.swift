import RotationSensors

/// What `rotationd --fix-mount` shows of a pose being held: one line redrawn in place on a terminal, and plain
/// lines, one per step, elsewhere. Pure text.
enum PoseProgress {
    /// Cells of the bar.
    static let width = 24
    /// The share of the bar the settling fills; measuring fills the rest.
    static let settleShare = 0.3
    /// The spinner's frames, one per redraw, so that a line that waits still shows it is alive.
    static let spinner: [Character] = ["|", "/", "-", "\\"]

    /// The in-place line for `phase`, at redraw `tick`, with what the device reads as now (`reads`).
    static func line(_ phase: PoseHold.Phase, tick: Int, reads: String) -> String {
        let spin = spinner[tick % spinner.count]
        switch phase {
        case .turning:
            return "  \(spin) waiting for the device to turn into the pose (it reads \(reads) now)"
        case .settling(let p):
            return "  \(spin) \(bar(p * settleShare)) keep it still (it reads \(reads))"
        case .measuring(let p):
            return "  \(spin) \(bar(settleShare + p * (1 - settleShare))) measuring, keep it still"
        case .held:
            return "  \(bar(1)) held"
        case .moved(let degrees):
            return "  moved by \(Int(degrees.rounded()))° while measuring"
        }
    }

    /// The plain line for `phase` of the pose called `label` ("pose 2", "check"), or nil when the phase is not a
    /// new step.
    static func plain(_ phase: PoseHold.Phase, label: String) -> String? {
        switch phase {
        case .turning: return "  \(label): waiting for the device to turn"
        case .settling: return "  \(label): waiting for the device to be still"
        case .measuring: return "  \(label): still, measuring"
        case .held: return nil
        case .moved(let degrees): return "  \(label): moved by \(Int(degrees.rounded()))° while measuring"
        }
    }

    /// `[#####-----] 42%` for a fraction from 0 to 1.
    static func bar(_ fraction: Double) -> String {
        let f = max(0, min(1, fraction))
        let filled = Int((f * Double(width)).rounded(.down))
        let percent = String(Int((f * 100).rounded(.down)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            + String(repeating: " ", count: 3 - percent.count) + percent + "%"
    }
}
